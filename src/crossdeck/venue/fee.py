"""The venue's first-send fee, read and said in one place for every place that shows it: the
quote (`crossdeck quote`/`bridge` and the Quote screen), the confirm before a venue action is
signed (the app's dialog and the command line's), the transfer form and `venue transfer`.

The venue takes about 1 USDC (facts.md) once per account, on top of the account's first send
that leaves it (the published ledger records it as `fee: "1.0"` on a `spotTransfer`), from the
USDC of the book the send leaves. Whether it is still due is read from the account's own ledger
(`userNonFundingLedgerUpdates`), as a large wallet's public integration reads it:
- paid once the account has sent to another account (`send`, `spotTransfer`,
  `internalTransfer`); a bridge withdrawal (`withdraw`) goes by another fee and does not pay it;
- paid when the account was created by a transfer that carried the fee (its first entry has a
  fee of at least 1 USDC);
- an empty ledger is a fresh account: due.
A ledger that cannot be read counts as due: a fee kept that was not needed stays in the account,
a fee not kept makes a whole-balance withdrawal fail.

A send to an address that has no venue account yet pays that account's activation besides (the
venue's docs, "Activation gas fee": 1 quote token on the first transaction that has the new
account as destination). Where a transfer names its destination (`venue transfer --to-address`,
the transfer form) the venue's `preTransferCheck` says it: `SendFee.new_account`. A withdrawal
goes to the service's own address, which has its account. When both are due both are counted
(docs/venue.md, "The world's venue").
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.display import amount_text, units_text
from crossdeck.models.venue import USDC_DECIMALS, USDC_UNIT, to_units

if TYPE_CHECKING:
    from crossdeck.models.venue_account import LedgerUpdate
    from crossdeck.venue.client import VenueClient

FIRST_SEND_FEE = 1 * 10**USDC_DECIMALS


def _paid_at_creation(updates: list[LedgerUpdate], user: str) -> bool:
    """Whether the account's first entry is a transfer into it that carried the fee (a later
    one with a fee is its sender's own first send, not this account's)."""
    first = min(updates, key=lambda u: u.time, default=None)
    if first is None or str(first.delta.get("destination") or "").lower() != user.lower():
        return False
    try:
        fee = Decimal(str(first.delta.get("fee")))
    except InvalidOperation:
        return False
    return fee.is_finite() and fee >= 1


def first_send_fee_of(updates: list[LedgerUpdate], user: str) -> int:
    """The first-send fee still due on `user`'s account, in USDC smallest units (0 when paid)."""
    paid = _paid_at_creation(updates, user) or any(u.sent_out_by(user) for u in updates)
    return 0 if paid else FIRST_SEND_FEE


@dataclass(frozen=True)
class SendFee:
    """What the venue takes on top of a send that leaves the account (USDC smallest units; 0
    when none): `units` the account's first-send fee, `new_account` the destination's activation.
    `unread`: why the venue could not say (the fee is then counted as due)."""

    units: int
    unread: str | None = None
    new_account: int = 0

    @property
    def total(self) -> int:
        return self.units + self.new_account

    @property
    def words(self) -> str | None:
        """'venue first-send fee 1 USDC', 'venue new-account fee 1 USDC (...)' or both joined
        with '+' (a quote's summary lists them so); None when none."""
        parts = []
        if self.units:
            parts.append(f"venue first-send fee {amount_text(self.units, USDC_UNIT)}")
        if self.new_account:
            parts.append(
                f"{'' if parts else 'venue '}new-account fee "
                f"{amount_text(self.new_account, USDC_UNIT)} (the destination has no venue "
                "account yet)"
            )
        if not parts:
            return None
        said = " + ".join(parts)
        if self.unread:
            said += f" if due ({self.unread})"
        return said


NO_FEE = SendFee(0)


async def read_send_fee(client: VenueClient, user: str, destination: str | None = None) -> SendFee:
    """The fee on a send from `user`'s account to `destination` (None: to an account not the
    user's, as a withdrawal through the service is): none back to the account itself."""
    if destination is not None and destination.lower() == user.lower():
        return NO_FEE
    try:
        return SendFee(first_send_fee_of(await client.ledger_updates(user), user))
    except CrossdeckError as exc:  # the send stands; say the fee may apply rather than hide it
        unread = f"the account's ledger could not be read: {exc.message}"
        return SendFee(FIRST_SEND_FEE, unread=unread)


async def read_transfer_fee(
    client: VenueClient, user: str, destination: str, first_send: int
) -> SendFee:
    """The fees on a transfer from `user`'s account to another account, `destination`: the
    account's own first-send fee (`first_send`, read with the account) and the destination's
    activation while it has no account, as the venue's `preTransferCheck` says it. A check that
    cannot be read counts the activation as due (said so)."""
    try:
        check = await client.pre_transfer_check(destination, user)
    except CrossdeckError as exc:
        unread = f"the venue's preTransferCheck could not be read: {exc.message}"
        return SendFee(first_send, unread=unread, new_account=FIRST_SEND_FEE)
    return SendFee(first_send, new_account=max(to_units(check.fee, USDC_DECIMALS), 0))


def usdc_text(units: int) -> str:
    """The venue's USDC as a wallet shows it: '1,234.5 USDC'."""
    return amount_text(units, USDC_UNIT)


def usdc_exact_text(units: int) -> str:
    """Where the user answers or signs: as a wallet shows it, and the exact integer."""
    return units_text(units, USDC_UNIT)


def fee_parts(fee: SendFee | None, amount: int | None, sent: str) -> list[tuple[str, str]]:
    """The fee and what leaves the account in total, as (label, words) pairs for a confirm.

    `fee`: None for a move that stays in the trader's own accounts; `amount`: the send in USDC
    smallest units, or None when it sends another token (the fee is USDC all the same); `sent`:
    the send in words with its unit ('10 USDC', '2.5 HYPE')."""
    if fee is None:
        return [("fee", "none: a move between your own books")]
    if not fee.total:
        total = usdc_exact_text(amount) if amount is not None else sent
        return [
            ("fee", "none: this account's first send is made"),
            ("in total", f"{total} leaves your account"),
        ]
    fee_said = f"the {usdc_exact_text(fee.total)} fee"
    if amount is None:  # another token: the fee is USDC beside it
        total = f"{sent} and {usdc_exact_text(fee.total)} leave your account ({fee_said})"
    else:
        total = (
            f"{usdc_exact_text(amount + fee.total)} leave your account: {sent} sent + {fee_said}"
        )
    return [
        ("fee", f"{fee.words}, taken by the venue from the same book on top of the amount"),
        ("in total", total),
    ]
