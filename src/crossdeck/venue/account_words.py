"""The venue account in words and as JSON: one reading for `crossdeck venue balance`, the Venue
screen and the portfolio's venue rows, so they agree and each says the account's mode."""

from __future__ import annotations

from typing import Any

from crossdeck.models.display import decimal_amount_text
from crossdeck.venue.account import VenueAccount, book_words, format_usdc
from crossdeck.venue.fee import usdc_text

# as a wallet shows it ('50,000 USDC'); the exact figures are in `account_wire` (--json)
_usdc = usdc_text


def account_lines(account: VenueAccount, dexes_known: bool = True) -> list[str]:
    """The account in words: mode, each book, what can be withdrawn and the Max, sub accounts
    and vault equities. The Venue screen shows the same lines."""
    lines = [
        f"venue account {account.user}",
        f"account mode  {account.mode_words} ({account.mode})",
    ]
    books = account.books()
    for book, units in books.items():
        lines.append(f"  {book_words(book):<12} {_usdc(units)}")
    if not dexes_known:
        lines.append("  HIP-3 dexes  unknown (the service's /chains was not read)")
    for balance in account.spot.balances:
        if balance.coin.upper() != "USDC":
            total, held = (
                decimal_amount_text(v, balance.coin) for v in (balance.total, balance.hold)
            )
            lines.append(f"  spot {balance.coin:<7} {total}  held {held}")
    where = f"from {account.withdraw_book}" + (
        " (unified: the spot USDC is the collateral)" if account.unified else ""
    )
    lines.append(f"withdrawable  {_usdc(account.withdrawable())} {where}")
    fee = account.first_send_fee
    lines.append(
        f"max withdraw  {_usdc(account.max_send())} "
        + (f"(first-send fee {_usdc(fee)} left for the venue)" if fee else "(no first-send fee)")
    )
    for sub in account.subs:
        state = sub.clearinghouse_state
        value = decimal_amount_text(state.withdrawable, "USDC") if state else "? USDC"
        lines.append(f"sub account   {sub.name} {sub.sub_account_user}: perps {value}")
    for vault in account.vaults:
        equity = decimal_amount_text(vault.equity, "USDC")
        lines.append(f"vault equity  {vault.vault_address}: {equity} (not withdrawable)")
    return lines


def account_wire(account: VenueAccount) -> dict[str, Any]:
    return {
        "address": account.user,
        "mode": account.mode,
        "unified": account.unified,
        "perps": account.perps.to_wire(),
        "dexes": {dex: state.to_wire() for dex, state in account.dexes.items()},
        "spot": account.spot.to_wire(),
        "books": {book: format_usdc(units) for book, units in account.books().items()},
        "withdrawBook": account.withdraw_book,
        "withdrawable": format_usdc(account.withdrawable()),
        "firstSendFee": format_usdc(account.first_send_fee),
        "maxWithdraw": format_usdc(account.max_send()),
        "subAccounts": [s.to_wire() for s in account.subs],
        "vaultEquities": [v.to_wire() for v in account.vaults],
    }
