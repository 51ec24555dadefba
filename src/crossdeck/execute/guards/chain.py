"""Checks of a transaction against the chain itself, right before it is signed.

The fees a quote asks for are held to the chain's own fee market (a max fee above a multiple
of the current base fee plus tip is refused: a quote once asked for 100,000 gwei of tip), the
wallet must hold the value, the gas and the token it pays, and the transaction is simulated
with `eth_call` at the latest block: one that would revert is refused with its reason.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

from crossdeck.base.concurrently import answer
from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.guards.base import (
    GuardResult,
    _fail,
    _ok,
    _same_address,
)
from crossdeck.models import NATIVE_ADDRESS, NATIVE_DECIMALS, Quote, format_units
from crossdeck.models.text import short

DEFAULT_FEE_CAP_MULTIPLE = 3


def _native(amount: int) -> str:
    return f"{Decimal(format_units(amount, NATIVE_DECIMALS)).normalize():f} native"


def native_usd_price(quote: Quote, chain_id: int) -> Decimal | None:
    """USD per whole native unit of `chain_id`, from the quote's own amounts (currencyIn when it
    is that native currency, else the gas fee's)."""
    details = quote.details
    candidates = [details.currency_in if details else None, quote.fees.gas if quote.fees else None]
    for amount in candidates:
        currency = amount.currency if amount is not None else None
        if currency is None or isinstance(currency, str) or amount is None:
            continue
        if currency.chain_id != chain_id or not _same_address(currency.address, NATIVE_ADDRESS):
            continue
        usd, units = amount.amount_usd_decimal, amount.amount
        if usd is not None and units:
            return usd / Decimal(format_units(units, NATIVE_DECIMALS))
    return None


def _gas_words(quote: Quote, chain_id: int, wei: int) -> str:
    price = native_usd_price(quote, chain_id)
    if price is None:
        return _native(wei)
    usd = price * Decimal(format_units(wei, NATIVE_DECIMALS))
    return f"{_native(wei)} (about ${usd:.2f})"


async def chain_guards(
    gateway: Any,
    tx: dict[str, Any],
    sender: str,
    quote: Quote,
    fee_cap_multiple: float,
    where: str,
) -> list[GuardResult]:
    """`tx`: the unsigned transaction (chainId, to, value, data, gas, maxFeePerGas,
    maxPriorityFeePerGas)."""
    chain_id = int(tx["chainId"])
    token_need = _token_need(quote, tx)
    # the node is asked everything at once (one round trip, not four); each answer is taken,
    # and each error said, in the order they were asked one by one before
    reads: tuple[Any, ...] = await asyncio.gather(
        gateway.fee_params(),
        gateway.balance(sender),
        _token_held(gateway, token_need, sender),
        _simulate(gateway, tx, sender, chain_id, where),
        return_exceptions=True,
    )
    fees_read, balance_read, token_read, simulated = reads
    results: list[GuardResult] = []
    try:
        suggested_max, tip = answer(fees_read)
    except CrossdeckError as exc:
        return [_fail("fee-market", f"the fee market of chain {chain_id} cannot be read: {exc}")]
    # fee_params suggests twice the base fee plus the tip; the bound is on base fee plus tip
    base = (suggested_max - tip) // 2
    cap = int((base + tip) * fee_cap_multiple)
    max_fee, priority = int(tx["maxFeePerGas"]), int(tx["maxPriorityFeePerGas"])
    worst = int(tx["gas"]) * max_fee
    if max_fee > cap or priority > cap:
        results.append(
            _fail(
                "fee-market",
                f"asks up to {format_units(max_fee, 9)} gwei per gas (tip "
                f"{format_units(priority, 9)} gwei) where chain {chain_id} now charges "
                f"{format_units(base + tip, 9)} gwei; the limit is {fee_cap_multiple:g}x "
                f"({format_units(cap, 9)} gwei); at most {_gas_words(quote, chain_id, worst)} "
                "in gas. Ask for a new quote, or raise guards.fee_cap_multiple in the settings",
                where,
            )
        )
    else:
        results.append(
            _ok(
                "fee-market",
                f"gas costs at most {_gas_words(quote, chain_id, worst)} "
                f"({format_units(max_fee, 9)} gwei per gas, within {fee_cap_multiple:g}x of "
                f"the chain's {format_units(base + tip, 9)} gwei)",
                where,
            )
        )
    value = int(tx.get("value") or 0)
    try:
        have = answer(balance_read)
    except CrossdeckError as exc:
        return [*results, _fail("balance", f"the wallet's balance cannot be read: {exc}", where)]
    if have < value + worst:
        results.append(
            _fail(
                "balance",
                f"the wallet holds {_native(have)} on chain {chain_id}, but this needs "
                f"{_native(value)} plus up to {_native(worst)} of gas; fund the wallet or send "
                "less",
                where,
            )
        )
    else:
        results.append(
            _ok("balance", f"the wallet holds {_native(have)}, enough for value and gas", where)
        )
    if token_need is not None:
        token, amount = token_need
        held = answer(token_read) or 0
        if held < amount:
            results.append(
                _fail(
                    "balance",
                    f"the wallet holds {held} of token {short(token)}, but the payment "
                    f"is {amount}; fund the wallet or send less",
                    where,
                )
            )
        else:
            results.append(_ok("balance", f"the wallet holds {held} of {short(token)}", where))
    results.append(answer(simulated))
    return results


async def _token_held(gateway: Any, need: tuple[str, int] | None, sender: str) -> int | None:
    """The wallet's balance of the token the payment needs (None when it needs none)."""
    return None if need is None else int(await gateway.erc20_balance(need[0], sender))


def _token_need(quote: Quote, tx: dict[str, Any]) -> tuple[str, int] | None:
    payment = quote.payment_details
    if payment is None or payment.amount is None or payment.currency is None:
        return None
    if _same_address(payment.currency, NATIVE_ADDRESS):
        return None
    return payment.currency, int(payment.amount)


async def _simulate(
    gateway: Any, tx: dict[str, Any], sender: str, chain_id: int, where: str
) -> GuardResult:
    call = {"from": sender, "to": tx["to"], "value": tx.get("value") or 0, "data": tx["data"]}
    try:
        await gateway.call(call, "latest")
    except CrossdeckError as exc:
        reason = getattr(exc, "message", str(exc))
        return _fail(
            "simulation",
            f"simulated at the latest block of chain {chain_id}, it would revert: {reason}",
            where,
        )
    return _ok("simulation", f"simulated at the latest block of chain {chain_id}: succeeds", where)
