"""`gas-limit`: a transaction's gas limit is held to what the chain's own node expects it to use.

The gas limit is the service's word, and the wallet pays up to limit x max fee: a quote once
asked for 20,000,000 gas on a deposit that uses ~40,000. A limit above `guards.gas_limit_multiple`
(default 2) times the node's `eth_estimateGas` for the same call is refused, with both figures.

Before the first signature every transaction of the quote whose call the node can estimate now
is checked (so a tampered limit stops the run before anything is signed); one that depends on an
earlier step (a deposit that spends the allowance its approve grants) cannot be estimated
before that step is mined, and is checked right before it is signed, like every transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crossdeck.errors import CrossdeckError
from crossdeck.execute.guards.base import GuardResult, _fail, _items, _ok, _where
from crossdeck.models import Quote
from crossdeck.wallet.errors import WouldRevertError

if TYPE_CHECKING:
    from crossdeck.execute.gateways import Gateways

NAME = "gas-limit"
DEFAULT_GAS_LIMIT_MULTIPLE = 2.0


def gas_limit_verdict(
    gas: int, estimate: int, multiple: float, chain_id: int, where: str | None
) -> GuardResult:
    """`gas` (the limit the transaction would carry) against the node's `estimate`."""
    cap = int(estimate * multiple)
    if gas > cap:
        return _fail(
            NAME,
            f"the gas limit is {gas:,} where chain {chain_id}'s node estimates {estimate:,} "
            f"(eth_estimateGas); the limit is {multiple:g}x ({cap:,}). Ask for a new quote, or "
            "raise guards.gas_limit_multiple in the settings",
            where,
        )
    return _ok(
        NAME,
        f"gas limit {gas:,}, within {multiple:g}x of the {estimate:,} chain {chain_id}'s node "
        "estimates",
        where,
    )


async def gas_limit_guard(
    gateway: Any, call: dict[str, Any], gas: int, multiple: float, chain_id: int, where: str
) -> GuardResult | None:
    """Right before signing: the estimate of `call` (from, to, value, data) now. None when
    the node says the call would revert: the dry run (`simulation`) refuses it with the
    reason, and one refusal says it."""
    try:
        estimate = await gateway.estimate_gas(call)
    except WouldRevertError:
        return None
    except CrossdeckError as exc:
        reason = getattr(exc, "message", str(exc))
        return _fail(
            NAME,
            f"chain {chain_id}'s node cannot estimate the transaction's gas ({reason}), so "
            f"its gas limit of {gas:,} cannot be held to anything",
            where,
        )
    return gas_limit_verdict(gas, estimate, multiple, chain_id, where)


async def quote_gas_guards(
    quote: Quote, sender: str, gateways: Gateways, multiple: float
) -> list[GuardResult]:
    """Before the first signature: each transaction that names its gas limit, estimated as it
    stands now; from the first one the node cannot estimate on, those after it on its chain
    wait for their turn (they may spend what it grants)."""
    results: list[GuardResult] = []
    waiting: set[int] = set()  # chains where an earlier transaction could not be estimated
    for _, step, index, item in _items(quote):
        if item.kind_of_data != "transaction":
            continue
        tx = item.as_transaction()
        chain_id, where = tx.chain_id, _where(step, index)
        gateway = gateways.get(chain_id) if chain_id is not None else None
        if tx.gas is None or chain_id is None or gateway is None or not tx.to:
            continue  # no limit of the service's to hold (crossdeck estimates its own), or
            # refused by the item guards (no chain, no RPC, no `to`)
        if chain_id in waiting:
            results.append(
                _ok(NAME, "checked right before it is signed, after the steps before it", where)
            )
            continue
        call = {"from": sender, "to": tx.to, "value": tx.value or 0, "data": tx.data or "0x"}
        try:
            estimate = await gateway.estimate_gas(call)
        except CrossdeckError:
            waiting.add(chain_id)
            results.append(
                _ok(
                    NAME,
                    "the node cannot estimate it before the steps before it are mined; checked "
                    "right before it is signed",
                    where,
                )
            )
            continue
        results.append(gas_limit_verdict(int(tx.gas), estimate, multiple, chain_id, where))
    return results
