"""The venue's user-signed actions, checked and applied to the ledger, each refusal in the
venue's words (a `VenueError`, answered as `{"status":"err"}`):

- `sendAsset`: a token from one book (perps '', 'spot', a HIP-3 DEX) to a book of any account,
  optionally out of one of the signer's sub accounts (`fromSubAccount`);
- `usdClassTransfer`: USDC between one's perps and spot (`toPerp`); out of a sub account when
  the amount ends in ` subaccount:<address>`, as the venue's SDK writes it; refused for a unified
  account, whose perps and spot are one balance;
- `usdSend` (perps USDC) and `spotSend` (a spot token) to another account;
- `userSetAbstraction`: the account mode (`disabled`, `unifiedAccount`, `portfolioMargin`).

Common rules: the signer must exist; a nonce is used once, within 2 days before and 1 day after
the venue's clock, and consumed only when the action succeeds (so a refused one can be retried
with the same nonce). The first send that leaves an account (to an account that is neither
itself, its master nor one of its sub accounts) pays `first_send_fee` in USDC from the book it
leaves; a move between one's own books pays nothing. A send to an address that has no account
yet pays `new_account_fee` besides (the new account's activation, as the venue's docs have it:
1 USDC on the first transaction that has the new account as destination), so the account it
creates is activated: its own first send is free. Both due at once: both are taken (no public
source says they merge; docs/venue.md, "The world's venue").
"""

from __future__ import annotations

from typing import Any

from eth_utils.crypto import keccak

from crossdeck.sim.venue.assets import (
    ADDRESS_RE,
    CURRENCIES,
    PERPS_USDC_ADDRESS,
    SPOT_DEX,
    SPOT_USDC_TOKEN_ID,
    USDC,
    USDC_DECIMALS,
    InsufficientBalance,
    VenueCurrency,
    VenueError,
    book,
    currency_for,
    format_units,
    parse_units,
    token_from_wire,
)
from crossdeck.sim.venue.ledger import (
    SETTABLE_MODES,
    Changes,
    SendAssetRecord,
    VenueLedger,
)

_SUB_ACCOUNT_MARK = " subaccount:"


class _Move:
    """The balance changes of one action, read against the ledger as it stands."""

    def __init__(self, ledger: VenueLedger) -> None:
        self.ledger = ledger
        self.changes: Changes = {}

    def have(self, user: str, address: str) -> int:
        return self.changes.get((user, address), self.ledger.held(user, address))

    def add(self, user: str, address: str, delta: int) -> None:
        self.changes[(user, address)] = self.have(user, address) + delta


def _check_nonce(ledger: VenueLedger, signer: str, nonce: int) -> None:
    if not ledger.exists(signer):
        raise VenueError(f"User or API Wallet {signer} does not exist.")
    now = ledger.now_ms()
    if ledger.nonce_used(signer, nonce):
        raise VenueError("Invalid nonce: duplicate nonce")
    if nonce < now - ledger.nonce_past_window_ms:
        hours = ledger.nonce_past_window_ms // 3_600_000
        raise VenueError(f"Invalid nonce: nonce is more than {hours} h in the past")
    if nonce > now + ledger.nonce_future_window_ms:
        hours = ledger.nonce_future_window_ms // 3_600_000
        raise VenueError(f"Invalid nonce: nonce is more than {hours} h in the future")


def _amount(text: str, decimals: int) -> int:
    try:
        return parse_units(text, decimals)
    except ValueError as exc:
        raise VenueError(f"Invalid amount: {exc}") from None


def _destination(text: str) -> str:
    if not ADDRESS_RE.fullmatch(text):
        raise VenueError(f"Invalid destination address: {text!r}")
    return text.lower()


def _owner(ledger: VenueLedger, signer: str, sub_account: str) -> str:
    """The account an action spends from: the signer, or a sub account the signer masters."""
    if sub_account == "":
        return signer
    if not ADDRESS_RE.fullmatch(sub_account) or ledger.master_of(sub_account) != signer:
        raise VenueError(f"Invalid sub account {sub_account!r}: not a sub account of {signer}")
    return sub_account.lower()


def _own(ledger: VenueLedger, owner: str, destination: str) -> bool:
    """Whether a send from `owner` to `destination` stays within one trader's accounts."""
    if destination == owner:
        return True
    master = ledger.master_of(owner) or owner
    return destination == master or ledger.master_of(destination) == master


def _fees(ledger: VenueLedger, owner: str, destination: str) -> tuple[int, int]:
    """(first-send fee, new-account fee) a send from `owner` to `destination` pays."""
    if _own(ledger, owner, destination):
        return 0, 0
    first = 0 if ledger.fee_paid(owner) else ledger.first_send_fee
    return first, 0 if ledger.exists(destination) else ledger.new_account_fee


def _fee(ledger: VenueLedger, owner: str, destination: str) -> int:
    """All a send pays the venue, and the refusal's words when the book is short of it."""
    return sum(_fees(ledger, owner, destination))


def fee_words(ledger: VenueLedger, owner: str, destination: str) -> str:
    """' plus the first-send fee 1.0 USDC and the new-account fee 1.0 USDC', or ''."""
    first, new = _fees(ledger, owner, destination)
    said = [
        f"the {name} fee {format_units(fee, USDC_DECIMALS)} USDC"
        for name, fee in (("first-send", first), ("new-account", new))
        if fee
    ]
    return f" plus {' and '.join(said)}" if said else ""


def _spend(
    move: _Move,
    owner: str,
    source: VenueCurrency,
    amount: int,
    where: str,
    destination: str | None = None,
) -> int:
    """Debit `amount` of `source` and the fees a send to `destination` pays (USDC of the same
    book; None: a move between one's own books, no fee) or refuse, saying so. The fee taken."""
    fee = 0 if destination is None else _fee(move.ledger, owner, destination)
    fee_book = currency_for(source.dex, USDC)
    assert fee_book is not None  # every book holds USDC (perps collateral or spot USDC)
    fee_book = move.ledger.book_of(owner, fee_book)
    need = amount + (fee if fee_book.address == source.address else 0)
    have = move.have(owner, source.address)
    if have < need or (
        fee_book.address != source.address and move.have(owner, fee_book.address) < fee
    ):
        note = "" if destination is None else fee_words(move.ledger, owner, destination)
        raise InsufficientBalance(
            f"Insufficient balance for withdrawal: sending {format_units(amount, source.decimals)}"
            f" {source.symbol}{note} from {where}, available"
            f" {format_units(have, source.decimals)}"
        )
    move.add(owner, source.address, -amount)
    if fee:
        move.add(owner, fee_book.address, -fee)
    return fee


def _hash(*parts: object) -> str:
    return "0x" + keccak(text=":".join(str(p) for p in parts)).hex()


def _update(ledger: VenueLedger, tx: str, delta: dict[str, Any]) -> dict[str, Any]:
    return {"time": ledger.now_ms(), "hash": tx, "delta": delta}


def _accounts(ledger: VenueLedger, owner: str, destination: str, fee: int) -> dict[str, bool]:
    """The accounts a send marks: the sender has made its first send once one leaves it; the
    receiver exists from now on, its fee paid when the send that created it carried the fee
    (as the venue has it: that account's first send is free, and its ledger's first entry
    is that send, fee and all)."""
    accounts = {} if _own(ledger, owner, destination) else {owner: True}
    if not ledger.exists(destination):
        accounts[destination] = fee > 0
    return accounts


def apply_send_asset(
    ledger: VenueLedger,
    *,
    signer: str,
    destination: str,
    source_dex: str,
    destination_dex: str,
    token: str,
    amount_text: str,
    from_sub_account: str,
    nonce: int,
    signature_chain_id: int,
) -> SendAssetRecord:
    """Check and move one signed sendAsset; raises VenueError with the venue's message."""
    signer = signer.lower()
    with ledger.lock:
        _check_nonce(ledger, signer, nonce)
        owner = _owner(ledger, signer, from_sub_account)
        destination = _destination(destination)
        spot = token_from_wire(token)
        src = ledger.book_of(owner, book(source_dex, spot, "sourceDex"))
        dst = ledger.book_of(destination, book(destination_dex, spot, "destinationDex"))
        if destination == owner and src.address == dst.address:
            raise VenueError("Cannot send to the same account and dex")
        amount = _amount(amount_text, spot.wei_decimals)
        move = _Move(ledger)
        fee = _spend(move, owner, src, amount, source_dex or "perps", destination)
        move.add(destination, dst.address, amount)
        record = SendAssetRecord(
            user=signer, destination=destination, token=token, amount=amount, nonce=nonce,
            source_dex=source_dex, destination_dex=destination_dex, time_ms=ledger.now_ms(),
            signature_chain_id=signature_chain_id, source_currency=src.address,
            destination_currency=dst.address, amount_text=amount_text, fee=fee,
        )  # fmt: skip
        delta = {
            "type": "send", "user": owner, "destination": destination, "sourceDex": source_dex,
            "destinationDex": destination_dex, "token": spot.name, "amount": amount_text,
            "usdcValue": amount_text if spot == USDC else "0.0",
            "fee": format_units(fee, USDC_DECIMALS), "nativeTokenFee": "0.0", "nonce": nonce,
            "feeToken": USDC.name if fee else "",
        }  # fmt: skip
        entry = _update(ledger, _hash("sendAsset", signer, nonce), delta)
        ledger.commit(
            move.changes,
            _accounts(ledger, owner, destination, fee),
            nonce=(signer, nonce),
            send=record,
            updates=[(owner, entry)] + ([(destination, entry)] if destination != owner else []),
        )
    ledger.notify(record)
    return record


def apply_usd_class_transfer(
    ledger: VenueLedger, *, signer: str, amount_text: str, to_perp: bool, nonce: int
) -> None:
    signer = signer.lower()
    with ledger.lock:
        _check_nonce(ledger, signer, nonce)
        amount_part, mark, sub = amount_text.partition(_SUB_ACCOUNT_MARK)
        owner = _owner(ledger, signer, sub if mark else "")
        if ledger.unified(owner):
            raise VenueError(
                f"usdClassTransfer is not available in {ledger.mode(owner)} mode: perps and spot"
                " share one USDC balance"
            )
        amount = _amount(amount_part, USDC_DECIMALS)
        perps, spot = CURRENCIES[PERPS_USDC_ADDRESS], CURRENCIES[SPOT_USDC_TOKEN_ID]
        src, dst = (spot, perps) if to_perp else (perps, spot)
        move = _Move(ledger)
        _spend(move, owner, src, amount, "spot" if to_perp else "perps")
        move.add(owner, dst.address, amount)
        delta = {"type": "accountClassTransfer", "usdc": amount_part, "toPerp": to_perp}
        entry = _update(ledger, _hash("usdClassTransfer", signer, nonce), delta)
        ledger.commit(move.changes, nonce=(signer, nonce), updates=[(owner, entry)])


def apply_usd_send(
    ledger: VenueLedger, *, signer: str, destination: str, amount_text: str, nonce: int
) -> None:
    signer = signer.lower()
    with ledger.lock:
        _check_nonce(ledger, signer, nonce)
        destination = _destination(destination)
        if destination == signer:
            raise VenueError("Cannot send to the same account and dex")
        amount = _amount(amount_text, USDC_DECIMALS)
        perps = CURRENCIES[PERPS_USDC_ADDRESS]
        move = _Move(ledger)
        fee = _spend(move, signer, ledger.book_of(signer, perps), amount, "perps", destination)
        move.add(destination, ledger.book_of(destination, perps).address, amount)
        delta = {
            "type": "internalTransfer", "usdc": amount_text, "user": signer,
            "destination": destination, "fee": format_units(fee, USDC_DECIMALS),
        }  # fmt: skip
        entry = _update(ledger, _hash("usdSend", signer, nonce), delta)
        ledger.commit(
            move.changes,
            _accounts(ledger, signer, destination, fee),
            nonce=(signer, nonce),
            updates=[(signer, entry), (destination, entry)],
        )


def apply_spot_send(
    ledger: VenueLedger, *, signer: str, destination: str, token: str, amount_text: str, nonce: int
) -> None:
    signer = signer.lower()
    with ledger.lock:
        _check_nonce(ledger, signer, nonce)
        destination = _destination(destination)
        if destination == signer:
            raise VenueError("Cannot send to the same account and dex")
        spot = token_from_wire(token)
        amount = _amount(amount_text, spot.wei_decimals)
        src = book(SPOT_DEX, spot, "token")
        move = _Move(ledger)
        fee = _spend(move, signer, src, amount, "spot", destination)
        move.add(destination, src.address, amount)
        delta = {
            "type": "spotTransfer", "token": spot.name, "amount": amount_text,
            "usdcValue": amount_text if spot == USDC else "0.0", "user": signer,
            "destination": destination, "fee": format_units(fee, USDC_DECIMALS),
            "nativeTokenFee": "0.0", "nonce": None, "feeToken": USDC.name if fee else "",
        }  # fmt: skip
        entry = _update(ledger, _hash("spotSend", signer, nonce), delta)
        ledger.commit(
            move.changes,
            _accounts(ledger, signer, destination, fee),
            nonce=(signer, nonce),
            updates=[(signer, entry), (destination, entry)],
        )


def apply_set_abstraction(
    ledger: VenueLedger, *, signer: str, user: str, abstraction: str, nonce: int
) -> None:
    signer = signer.lower()
    with ledger.lock:
        _check_nonce(ledger, signer, nonce)
        if user.lower() != signer:
            raise VenueError(f"Invalid user {user}: only the account itself sets its abstraction")
        if abstraction not in SETTABLE_MODES:
            raise VenueError(
                f"Invalid abstraction {abstraction!r}: expected one of {sorted(SETTABLE_MODES)}"
            )
        changes = ledger.mode_changes(signer, abstraction)
        ledger.commit(changes, nonce=(signer, nonce), mode=(signer, abstraction))


def apply_action(
    ledger: VenueLedger, wire: str, action: dict[str, Any], signer: str, chain_id: int, nonce: int
) -> None:
    """Dispatch one parsed, signature-checked action by its `type`."""
    if wire == "sendAsset":
        apply_send_asset(
            ledger, signer=signer, destination=action["destination"],
            source_dex=action["sourceDex"], destination_dex=action["destinationDex"],
            token=action["token"], amount_text=action["amount"],
            from_sub_account=action["fromSubAccount"], nonce=nonce, signature_chain_id=chain_id,
        )  # fmt: skip
    elif wire == "usdClassTransfer":
        apply_usd_class_transfer(
            ledger, signer=signer, amount_text=action["amount"], to_perp=action["toPerp"],
            nonce=nonce,
        )  # fmt: skip
    elif wire == "usdSend":
        apply_usd_send(
            ledger, signer=signer, destination=action["destination"],
            amount_text=action["amount"], nonce=nonce,
        )  # fmt: skip
    elif wire == "spotSend":
        apply_spot_send(
            ledger, signer=signer, destination=action["destination"], token=action["token"],
            amount_text=action["amount"], nonce=nonce,
        )  # fmt: skip
    elif wire == "userSetAbstraction":
        apply_set_abstraction(
            ledger, signer=signer, user=action["user"], abstraction=action["abstraction"],
            nonce=nonce,
        )  # fmt: skip
    else:  # parse_exchange admits only the kinds above
        raise VenueError(f"Unknown action {wire!r}")
