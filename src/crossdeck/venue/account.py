"""The trader's whole venue account, read as the venue means it.

The account's mode (`userAbstraction`, read first, as the public UI kit does) decides where its
USDC is: in a standard account each book (perps, each HIP-3 DEX, spot) holds its own, and what
can leave perps is the perps `withdrawable`; in a unified or portfolio-margin account the perps
`withdrawable` reads 0 and the collateral of every perp book is the spot USDC balance, so that is
what can be withdrawn. Sub accounts and vault equities are listed beside the books; they are not
the wallet's to withdraw.

The venue's first-send fee, and whether it is still due, is `crossdeck.venue.fee`'s.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from crossdeck.base.errors import InputError
from crossdeck.models.venue import (
    USDC_DECIMALS,
    ClearinghouseState,
    SpotClearinghouseState,
    to_units,
)
from crossdeck.models.venue_account import (
    UNIFIED_MODES,
    LedgerUpdate,
    SubAccount,
    VaultEquity,
    mode_words,
)
from crossdeck.venue.currencies import USDC
from crossdeck.venue.fee import first_send_fee_of

if TYPE_CHECKING:
    from crossdeck.venue.client import VenueClient

VENUE_CHAIN = 1337  # the venue's chain id at the service
PERPS = "perps"
SPOT = "spot"


def usdc_units(value: Decimal) -> int:
    """A venue USDC decimal in its smallest unit, rounded down, exactly (integers only)."""
    return to_units(value, USDC_DECIMALS)


def format_usdc(units: int) -> str:
    """Smallest units as the venue writes USDC: '12.5', '0.0'."""
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(units), 10**USDC_DECIMALS)
    return f"{sign}{whole}.{str(frac).rjust(USDC_DECIMALS, '0').rstrip('0') or '0'}"


def dex_of(book: str) -> str:
    """A book's name as a sendAsset writes it: perps '', spot 'spot', a HIP-3 DEX its name."""
    return "" if book == PERPS else book


def book_words(book: str) -> str:
    return book if book in (PERPS, SPOT) else f"HIP-3 {book}"


@dataclass(frozen=True)
class VenueAccount:
    user: str
    mode: str  # the venue's word (userAbstraction)
    perps: ClearinghouseState
    spot: SpotClearinghouseState
    dexes: dict[str, ClearinghouseState]
    subs: list[SubAccount] = field(default_factory=list)
    vaults: list[VaultEquity] = field(default_factory=list)
    updates: list[LedgerUpdate] = field(default_factory=list)

    @property
    def unified(self) -> bool:
        return self.mode in UNIFIED_MODES

    @property
    def mode_words(self) -> str:
        return mode_words(self.mode)

    @property
    def spot_usdc(self) -> int:
        balance = self.spot.balance_of(USDC)
        return usdc_units(balance.available) if balance is not None else 0

    def books(self) -> dict[str, int]:
        """USDC of each book as the venue reports it: perps, each HIP-3 DEX, spot."""
        out = {PERPS: usdc_units(self.perps.withdrawable)}
        out.update({dex: usdc_units(state.withdrawable) for dex, state in self.dexes.items()})
        out[SPOT] = self.spot_usdc
        return out

    @property
    def withdraw_book(self) -> str:
        """The book a withdrawal leaves from: spot for a unified account, else perps."""
        return SPOT if self.unified else PERPS

    def withdrawable(self, book: str | None = None) -> int:
        """What can leave `book` (default: the withdrawal book), before any fee: a unified
        account's perp books are its spot USDC."""
        book = book or self.withdraw_book
        if self.unified and book != SPOT:
            return self.spot_usdc
        return max(self.books().get(book, 0), 0)

    @property
    def first_send_fee_due(self) -> bool:
        return self.first_send_fee > 0

    @property
    def first_send_fee(self) -> int:
        return first_send_fee_of(self.updates, self.user)

    def sub_account(self, named: str) -> str:
        """The address of the sub account `named` (its address or its name, as the venue lists
        them under subAccounts): a transfer's fromSubAccount. Another's is refused."""
        wanted = named.strip()
        for sub in self.subs:
            if wanted.lower() == sub.sub_account_user.lower() or wanted == sub.name:
                return sub.sub_account_user
        names = ", ".join(f"{s.name} ({s.sub_account_user})" for s in self.subs) or "none"
        raise InputError(
            f"{wanted} is not a sub account of {self.user}", hint=f"its sub accounts: {names}"
        )

    def max_send(self, book: str | None = None) -> int:
        """What the venue lets leave `book` for another account: its withdrawable less the
        first-send fee while that is due (0 when the fee is more than the book holds)."""
        return max(self.withdrawable(book) - self.first_send_fee, 0)


async def read_account(client: VenueClient, user: str, dexes: list[str]) -> VenueAccount:
    """Every read of the account at once: mode, perps, each HIP-3 DEX, spot, sub accounts,
    vault equities and ledger updates."""
    # two gathers: asyncio.gather keeps each answer's type for at most six awaitables
    (mode, perps, spot, dex_states), (subs, vaults, updates) = await asyncio.gather(
        asyncio.gather(
            client.user_abstraction(user),
            client.clearinghouse_state(user),
            client.spot_clearinghouse_state(user),
            client.dex_states(user, dexes),
        ),
        asyncio.gather(
            client.sub_accounts(user), client.vault_equities(user), client.ledger_updates(user)
        ),
    )
    return VenueAccount(user, mode, perps, spot, dex_states, subs, vaults, updates)
