"""`gas-limit`: a transaction's gas limit is held to what the chain's own node expects it to use.

The gas limit is the service's word, and the wallet pays up to limit x max fee: a quote once
asked for 20,000,000 gas on a deposit that uses ~40,000. A limit above `guards.gas_limit_multiple`
(default 2) times the node's `eth_estimateGas` for the same call is refused, with both figures.

Before the first signature every transaction of the quote is checked, so a tampered limit stops
the run before anything is signed. One that depends on an earlier step (a deposit that spends the
allowance its approve grants) cannot be estimated before that step is mined: it is held to the
gas it uses when its chain's transactions run in order in one `eth_simulateV1` (the receipt's
gasUsed, after refunds). A node that can do neither is a refusal. Right before each transaction
is signed, its limit is held to `eth_estimateGas` again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.guards.base import GuardResult, _fail, _items, _ok, _where
from crossdeck.models import Quote
from crossdeck.wallet.errors import WouldRevertError

if TYPE_CHECKING:
    from crossdeck.execute.gateways import Gateways

NAME = "gas-limit"
_NOT_NOW = "not now: "  # marks a chain whose estimate failed for another reason than a revert
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
    """Before the first signature: each transaction that names its gas limit, held to the
    node's `eth_estimateGas` as it stands now. From the first one on a chain that the node
    cannot estimate now (a deposit that spends the allowance its approve grants), that one and
    those after it on its chain are held to the gas they use when the chain's transactions run
    in order (`eth_simulateV1`), since that is how they will run."""
    results: list[GuardResult] = []
    # chain -> each of its transactions' simulated gasUsed, in order (None: it fails there), or
    # why the node could not simulate them
    simulated: dict[int, list[int | None] | str] = {}
    sent: dict[int, int] = {}  # chain -> how many of its transactions come before this one
    for _, step, index, item in _items(quote):
        if item.kind_of_data != "transaction":
            continue
        tx = item.as_transaction()
        chain_id, where = tx.chain_id, _where(step, index)
        gateway = gateways.get(chain_id) if chain_id is not None else None
        if chain_id is None or gateway is None or not tx.to:
            continue  # refused by the item guards (no chain, no RPC, no `to`)
        position = sent[chain_id] = sent.get(chain_id, -1) + 1
        if tx.gas is None:
            continue  # no limit of the service's to hold: crossdeck estimates its own
        if chain_id not in simulated:
            call = tx.call_from(sender)
            try:
                estimate = await gateway.estimate_gas(call)
            except WouldRevertError:
                # as it stands now it reverts: it may spend what a step before it grants
                in_order = _chain_calls(quote, sender).get(chain_id, [])
                simulated[chain_id] = await _simulated_gas(gateway, in_order)
            except CrossdeckError as exc:
                # not a revert (another chain, too little to pay, the node out of reach): the
                # guards of the chain refuse it, and the limit is held again before signing
                reason = getattr(exc, "message", str(exc))
                simulated[chain_id] = _NOT_NOW + reason
            else:
                results.append(gas_limit_verdict(int(tx.gas), estimate, multiple, chain_id, where))
                continue
        results.append(
            _after_earlier_steps(
                int(tx.gas), simulated[chain_id], position, multiple, chain_id, where
            )
        )
    return results


def _chain_calls(quote: Quote, sender: str) -> dict[int, list[dict[str, Any]]]:
    """Every transaction of the quote as a call, per chain, in the order they are sent."""
    found: dict[int, list[dict[str, Any]]] = {}
    for tx in quote.transactions():
        if tx.chain_id is None or not tx.to:
            continue
        found.setdefault(tx.chain_id, []).append(tx.call_from(sender))
    return found


async def _simulated_gas(gateway: Any, calls: list[dict[str, Any]]) -> list[int | None] | str:
    """The gasUsed of each of a chain's transactions run in order in one `eth_simulateV1`
    (None for one that fails there), or why the node could not say."""
    try:
        answers = await gateway.simulate(calls)
    except CrossdeckError as exc:
        return getattr(exc, "message", str(exc))
    if len(answers) != len(calls):
        return f"it answered eth_simulateV1 with {len(answers)} results for {len(calls)} calls"
    used: list[int | None] = []
    for answer in answers:
        status, gas_used = str(answer.get("status")), str(answer.get("gasUsed"))
        if status not in ("0x0", "0x1"):
            return f"it answered eth_simulateV1 with a call status of {status!r:.40}"
        try:
            used.append(int(gas_used, 16) if status == "0x1" else None)
        except ValueError:
            return f"it answered eth_simulateV1 with a gasUsed of {gas_used!r:.40}"
    return used


def _after_earlier_steps(
    gas: int,
    simulated: list[int | None] | str,
    position: int,
    multiple: float,
    chain_id: int,
    where: str,
) -> GuardResult:
    if isinstance(simulated, str) and simulated.startswith(_NOT_NOW):
        return _ok(
            NAME,
            f"the node cannot estimate it now ({simulated.removeprefix(_NOT_NOW)}); checked "
            "right before it is signed",
            where,
        )
    if isinstance(simulated, str):
        return _fail(
            NAME,
            f"chain {chain_id}'s node cannot estimate the transaction before the steps before "
            f"it are mined, nor run them in order (eth_simulateV1: {simulated}), so its gas "
            f"limit of {gas:,} cannot be held to anything before the first signature",
            where,
        )
    used = simulated[position] if position < len(simulated) else None
    if used is None:
        # it fails even after the steps before it: the dry run right before it is signed
        # refuses it with the reason, and the gas limit is held again there
        return _ok(NAME, "checked right before it is signed, after the steps before it", where)
    cap = int(used * multiple)
    if gas > cap:
        return _fail(
            NAME,
            f"the gas limit is {gas:,} where chain {chain_id}'s node, running it after the "
            f"steps before it (eth_simulateV1), finds it uses {used:,}; the limit is "
            f"{multiple:g}x ({cap:,}). Ask for a new quote, or raise guards.gas_limit_multiple "
            "in the settings",
            where,
        )
    return _ok(
        NAME,
        f"gas limit {gas:,}, within {multiple:g}x of the {used:,} it uses on chain "
        f"{chain_id} after the steps before it (eth_simulateV1)",
        where,
    )
