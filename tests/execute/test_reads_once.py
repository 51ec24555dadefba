"""A run's checks before its first signature and that signature's own checks ask the node once
for what both need (the wallet's balance, the gas estimate), when the run's gateways reuse a
reading for a moment as the command line's do (`compose.READS_REUSED_FOR`): every check is
still made, each with the node's answer, and what was sent is the same."""

from __future__ import annotations

from execute_support import Kit, native_quote, of_type

from crossdeck import compose
from crossdeck.execute import Finished, GuardsChecked
from helpers.rpc_spy import methods_asked


async def test_the_checks_before_and_at_the_first_signature_read_the_node_once(
    py_kit: Kit,
) -> None:
    kit = py_kit
    await kit.executor.aclose()
    kit.executor = kit.make_executor(reuse_reads_for=compose.READS_REUSED_FOR)
    quote, request = await native_quote(kit)
    gateway = kit.executor.gateways.get(8453)
    assert gateway is not None
    asked = methods_asked(gateway)
    events = await kit.run(quote, request=request)

    [finished] = of_type(events, Finished)
    assert finished.status == "success"
    before_sending = asked[: asked.index("eth_sendRawTransaction")]
    assert before_sending.count("eth_estimateGas") == 1
    assert before_sending.count("eth_getBalance") == 1
    # both checks were made at both moments, on the one reading each
    [checked] = of_type(events, GuardsChecked)
    before = {r.name for r in checked.results if r.ok}
    assert {"funds", "gas-limit"} <= before
    [signed] = kit.asked
    at_signature = {g.name for g in signed.guards if g.ok}
    assert {"gas-limit", "balance", "simulation", "fee-market"} <= at_signature
