"""Answers of the venue's account reads beyond the balances (`/info`): the account's mode
(`userAbstraction`), its sub accounts (`subAccounts`), vault equities (`userVaultEquities`),
non-funding ledger updates (`userNonFundingLedgerUpdates`) and the check before a send to another
address (`preTransferCheck`), as the public venue writes them (recorded answers in
../shared/realdata/venue-info/). Unknown fields are kept.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from crossdeck.models.base import WireModel, new_dict
from crossdeck.models.venue import ClearinghouseState, SpotClearinghouseState, VenueDecimal

UNIFIED_MODES = frozenset({"unifiedAccount", "portfolioMargin"})
"""The modes in which perps and spot USDC are one balance, held on spot (as the public UI kit
reads them: `isUnifiedMode`)."""

MODE_WORDS = {
    "unifiedAccount": "unified",
    "portfolioMargin": "portfolio margin",
    "default": "standard",
    "disabled": "standard",
    "dexAbstraction": "standard (DEX abstraction)",
}


def mode_words(mode: str) -> str:
    """The account mode in words: 'unified', 'portfolio margin', 'standard'."""
    return MODE_WORDS.get(mode, f"{mode} (unknown to crossdeck, read as standard)")


def mode_note(mode: str | None) -> str:
    """The account's mode as the portfolio says it, in `venue balance`'s words ('standard
    (default)', 'unified (unifiedAccount)'), with what the mode means for the USDC and the book a
    withdrawal leaves from. None: the venue did not answer the mode, read as standard (as the
    public UI kit falls back)."""
    if mode is None:
        return (
            "account mode not read (the venue did not answer userAbstraction), read as standard: "
            "withdrawals leave from perps"
        )
    if mode in UNIFIED_MODES:
        return (
            f"{mode_words(mode)} account ({mode}): perps and spot USDC are one balance, "
            "held on spot; withdrawals leave from spot"
        )
    return (
        f"{mode_words(mode)} account ({mode}): perps, spot and each HIP-3 DEX hold their own "
        "USDC; withdrawals leave from perps"
    )


class SubAccount(WireModel):
    """One entry of `subAccounts` (the venue answers null for an account without any)."""

    name: str
    sub_account_user: str
    master: str
    clearinghouse_state: ClearinghouseState | None = None
    spot_state: SpotClearinghouseState | None = None


class VaultEquity(WireModel):
    """One entry of `userVaultEquities`: equity in a vault, not withdrawable from the account."""

    vault_address: str
    equity: VenueDecimal
    locked_until_timestamp: int | None = None


class PreTransferCheck(WireModel):
    """The answer to `preTransferCheck` of a send to `user` from `source`: `fee` is what the
    destination's activation costs the send (the venue's docs, "Activation gas fee": 1 USDC on
    the first transaction that has a new account as destination), 0 once it exists."""

    fee: VenueDecimal
    is_sanctioned: bool = False
    user_exists: bool | None = None
    user_has_sent_tx: bool | None = None


class LedgerUpdate(WireModel):
    """One entry of `userNonFundingLedgerUpdates`; `delta` is kept as sent (its `type` says
    which kind: deposit, accountClassTransfer, send, internalTransfer, spotTransfer, ...)."""

    time: int
    hash: str | None = None
    delta: dict[str, Any] = Field(default_factory=new_dict)

    def sent_out_by(self, user: str) -> bool:
        """Whether this update is a send that left `user`'s account for another account (a
        bridge withdrawal, `withdraw`, is not one: the venue takes its own fee for it)."""
        delta, me = self.delta, user.lower()
        sender = str(delta.get("user") or "").lower()
        destination = str(delta.get("destination") or "").lower()
        kinds = {"send", "internalTransfer", "spotTransfer"}
        return delta.get("type") in kinds and sender == me and destination not in ("", me)
