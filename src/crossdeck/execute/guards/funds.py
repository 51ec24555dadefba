"""`funds`: at quote time, before anything is signed, the wallet holds what the quote takes.

What leaves the wallet on the paying chain is the payment (paymentDetails) and the gas of its
transactions there (gas limit times max fee per gas, the most they can cost). A quote for more
than the wallet holds is refused here, in the currency's own units, rather than at the chain
after a signature. The check right before each transaction (guards.chain) stays: balances can
change between the quote and the signature.
"""

from __future__ import annotations

from typing import Any

from crossdeck.errors import CrossdeckError
from crossdeck.execute.guards.base import (
    NATIVE_ADDRESS,
    GuardResult,
    _fail,
    _ok,
    _same_address,
)
from crossdeck.execute.guards.payment import amount_words
from crossdeck.models import Quote

_NAME = "funds"


def most_gas(quote: Quote, chain_id: int) -> int:
    """The most the quote's transactions on `chain_id` can cost in gas, in wei."""
    total = 0
    for step in quote.steps:
        for item in step.items:
            if item.kind_of_data != "transaction":
                continue
            tx = item.as_transaction()
            if tx.chain_id == chain_id and tx.gas is not None and tx.max_fee_per_gas is not None:
                total += int(tx.gas) * int(tx.max_fee_per_gas)
    return total


async def funds_guard(
    quote: Quote, wallet: str, chain_id: int | None, gateway: Any
) -> list[GuardResult]:
    """`chain_id`: the chain the payment is on (paymentDetails mapped through /chains);
    `gateway`: an `EvmGateway` of that chain. Nothing is checked for a payment off EVM (the
    venue checks its own balance) or without paymentDetails (refused by other guards), nor
    when the balance cannot be read."""
    payment = quote.payment_details
    if payment is None or payment.amount is None or chain_id is None or gateway is None:
        return []
    native = payment.currency is None or _same_address(payment.currency, NATIVE_ADDRESS)
    gas = most_gas(quote, chain_id)
    try:
        have = await gateway.balance(wallet)
        token_held = None if native else await gateway.erc20_balance(payment.currency, wallet)
    except CrossdeckError:
        # an RPC that cannot answer (or serves another chain) is refused right before the first
        # transaction, by name (rpc-chain-id, balance); nothing is signed before that either
        return []

    def words(amount: int, currency: str | None = NATIVE_ADDRESS) -> str:
        return amount_words(quote, amount, currency)

    need_native = gas + (payment.amount if native else 0)
    problems = []
    if token_held is not None and token_held < payment.amount:
        problems.append(
            f"the payment is {words(payment.amount, payment.currency)} but the wallet holds "
            f"{words(token_held, payment.currency)}"
        )
    if have < need_native:
        paid = f"{words(payment.amount)} plus " if native else ""
        problems.append(
            f"it needs {paid}up to {words(gas)} of gas ({words(need_native)}) on chain "
            f"{chain_id}, but the wallet holds {words(have)}"
        )
    if problems:
        return [_fail(_NAME, "; ".join(problems) + ". Fund the wallet or ask for less")]
    held = (
        words(have) if native else f"{words(token_held or 0, payment.currency)} and {words(have)}"
    )
    return [
        _ok(_NAME, f"the wallet holds {held} on chain {chain_id}: enough for the payment and gas")
    ]
