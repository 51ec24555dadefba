"""EVM transactions in words: the unsigned transaction the confirm dialog shows (chain, from,
to with its role, value, the call decoded by ABI, gas and fees) and a quote's transaction items.
Calldata that does not decode is said so: the balance-changes check simulates or refuses it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crossdeck.execute.describe.currencies import Currencies
from crossdeck.execute.describe.lines import Line
from crossdeck.models import NATIVE_ADDRESS, PaymentDetails, StepItem, TransactionData
from crossdeck.models.display import gwei_text, native_text, units_text
from crossdeck.models.text import short

if TYPE_CHECKING:
    from crossdeck.execute.describe.family import ItemDescriber
    from crossdeck.execute.guards.calldata import Call


# -- calldata ----------------------------------------------------------------------------------


def _roles(
    payment: PaymentDetails | None,
    deposit_address: Mapping[str, Any] | None,
    to: str | None,
    chain_id: int | None,
    currencies: Currencies,
) -> dict[str, str]:
    """What each address a transaction names is, lower-cased: 'the depository', ..."""
    roles: dict[str, str] = {}
    chain = currencies.chains.by_id(chain_id) if currencies.chains and chain_id else None
    if chain is not None and chain.depository:
        roles[chain.depository.lower()] = "the depository"
    if payment is not None:
        if payment.depository:
            roles[payment.depository.lower()] = "the depository"
        if payment.currency and payment.currency.lower() != NATIVE_ADDRESS:
            roles[payment.currency.lower()] = "the payment token"
    if deposit_address is not None and to:
        roles[to.lower()] = "your deposit address"
    return roles


def _named(address: str | None, roles: Mapping[str, str], *, full: bool) -> str:
    if not address:
        return "(none)"
    shown = address if full else short(address)
    role = roles.get(address.lower())
    return f"{role} {shown}" if role else shown


def call_words(
    call: Call | None,
    *,
    to: str | None,
    value: int,
    chain_id: int | None,
    currencies: Currencies,
    roles: Mapping[str, str],
    full: bool = True,
) -> str:
    """What a decoded call does, in one sentence with its amounts in units."""
    native = currencies.native(chain_id)
    if call is None:
        return f"send {native_text(value, native)} to {_named(to, roles, full=full)}"
    args = call.args
    if call.name in ("approve", "transfer"):
        token = currencies.token(chain_id, to)
        amount = units_text(int(args["amount"]), token)
        whom = args["spender"] if call.name == "approve" else args["to"]
        return f"{call.name} {amount} to {_named(whom, roles, full=full)}"
    order = args["id"] if full else short(args["id"])
    depositor = _named(args["depositor"], roles, full=full)
    if call.name == "depositNative":
        return (
            f"deposit {native_text(value, native)} into {_named(to, roles, full=full)} "
            f"for depositor {depositor}, order {order}"
        )
    token = currencies.token(chain_id, args["token"])
    # "of the payment token 0x…" where the token has a role, else "of token 0x…"
    of_token = _named(args["token"], roles, full=full)
    if not roles.get(str(args["token"]).lower()):
        of_token = f"token {of_token}"
    return (
        f"deposit {units_text(int(args['amount']), token)} of {of_token} "
        f"into {_named(to, roles, full=full)} for depositor {depositor}, order {order}"
    )


def _decoded(data: str | None) -> tuple[Call | None, str | None]:
    """The call, or the reason it does not decode."""
    # here, not at the top: eth-abi is not needed until a transaction is described
    from crossdeck.execute.guards.calldata import CalldataError, decode_call

    try:
        return decode_call(data), None
    except CalldataError as exc:
        return None, str(exc)


# -- what will be signed -----------------------------------------------------------------------


def transaction_title(chain_id: int, step_id: str | None, *, deposit_address: bool) -> str:
    if deposit_address:
        return f"Send the transfer to your deposit address on chain {chain_id}"
    return f"Send a transaction on chain {chain_id} (step {step_id})"


def transaction_lines(
    tx: Mapping[str, Any],
    *,
    sender: str,
    payment: PaymentDetails | None = None,
    deposit_address: Mapping[str, Any] | None = None,
    currencies: Currencies | None = None,
) -> list[Line]:
    """`tx` is the unsigned transaction: chainId, nonce, to, value, data, gas, fees."""
    currencies = currencies or Currencies()
    chain_id = int(tx["chainId"])
    to = str(tx.get("to"))
    value = int(tx.get("value") or 0)
    data = str(tx.get("data") or "0x")
    native = currencies.native(chain_id)
    roles = _roles(payment, deposit_address, to, chain_id, currencies)
    call, problem = _decoded(data)
    size = max(len(data) - 2, 0) // 2
    lines = [
        Line("chain", currencies.chain_name(chain_id), raw=str(chain_id)),
        Line("from", sender, raw=sender, kind="address"),
        Line("to", _named(to, roles, full=True), raw=to, kind="address"),
        Line("value", native_text(value, native), raw=str(value), kind="amount"),
    ]
    if problem is not None:
        # the balance-changes check simulates such a call and holds it to the quote, or
        # refuses it; its result stands beside these lines
        lines.append(Line("call", f"not decoded ({problem}): simulated or refused", kind="warning"))
    elif call is not None or size == 0:
        words = call_words(
            call, to=to, value=value, chain_id=chain_id, currencies=currencies, roles=roles
        )
        lines.append(Line("call", words, kind="amount" if call else "text"))
    if size:
        lines.append(Line("data", f"{size} bytes: {data}", raw=data, kind="calldata"))
    else:
        lines.append(Line("data", "none (a plain transfer)"))
    max_fee, tip = int(tx["maxFeePerGas"]), int(tx["maxPriorityFeePerGas"])
    gas = int(tx["gas"])
    lines += [
        Line("nonce", str(tx["nonce"]), raw=str(tx["nonce"])),
        Line("gas", f"{gas} at most", raw=str(gas)),
        Line(
            "max fee",
            f"{gwei_text(max_fee)} per gas (tip {gwei_text(tip)}); at most "
            f"{native_text(gas * max_fee, native)} of gas",
            raw=str(max_fee),
            kind="amount",
        ),
    ]
    if deposit_address:
        refund = deposit_address.get("refund_to") or "the sender"
        lines.append(
            Line(
                "deposit address",
                f"{to}: {deposit_address.get('type', 'open')}, refunds go to {refund}",
                raw=to,
                kind="address",
            )
        )
        quoted = deposit_address.get("quoted_amount")
        if quoted is not None and int(quoted) != value:
            lines.append(
                Line(
                    "NOTE",
                    f"sending {native_text(value, native)} where the quote says "
                    f"{native_text(int(quoted), native)}",
                    raw=str(value),
                    kind="warning",
                )
            )
    return lines


# -- a quote's transaction items -----------------------------------------------------------------


def _tx_item_lines(tx: TransactionData, currencies: Currencies, *, full: bool) -> list[Line]:
    roles = _roles(None, None, tx.to, tx.chain_id, currencies)
    call, problem = _decoded(tx.data)
    where = currencies.chain_name(tx.chain_id)
    if problem is not None:
        shown = f"on {where} to {_named(tx.to, roles, full=full)}"
        return [Line("tx", f"{shown}: calldata not decoded ({problem}): simulated or refused")]
    words = call_words(
        call,
        to=tx.to,
        value=tx.value or 0,
        chain_id=tx.chain_id,
        currencies=currencies,
        roles=roles,
        full=full,
    )
    return [Line("tx", f"on {where}: {words}", raw=tx.data, kind="amount")]


def transaction_item_lines(item: StepItem, currencies: Currencies, *, full: bool) -> list[Line]:
    return _tx_item_lines(item.as_transaction(), currencies, full=full)


ITEMS: dict[str, ItemDescriber] = {"transaction": transaction_item_lines}
