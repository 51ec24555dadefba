"""Same-chain swaps in both forms the public service quotes, run by the executor against the
world on both chain backends: self-executed through the world's router (the default; the
router's calldata is not decoded but simulated with eth_simulateV1 and held to the quote), and
through the depository with `forceSolverExecution`. Each route also meets a tampering that the
simulation refuses, saying what would have happened."""

from __future__ import annotations

import copy
from typing import Any

from execute_support import (
    ETH,
    NATIVE,
    PERPS_USDC,
    VENUE_UNIT,
    Kit,
    finished,
    fund,
    gas_paid,
    new_address,
    of_type,
    usdc_address,
)

from crossdeck.execute import Failed, GuardsChecked, TxSent
from crossdeck.execute.guards import GuardResult
from crossdeck.models import Quote, QuoteRequest

CHAIN = 8453
MISSING = "eth_simulateV1"
USDC_UNIT = 10**6


def steps(quote: Quote) -> list[str]:
    return [str(step.id) for step in quote.steps]


async def eth_to_usdc(kit: Kit, **options: Any) -> tuple[Quote, QuoteRequest]:
    """A quote to swap 0.01 ETH for USDC on CHAIN."""
    return await kit.quote(
        origin_chain_id=CHAIN,
        destination_chain_id=CHAIN,
        origin_currency=NATIVE,
        destination_currency=usdc_address(kit.world, CHAIN),
        amount=str(ETH // 100),
        **options,
    )


async def usdc_to_eth(kit: Kit, **options: Any) -> tuple[Quote, QuoteRequest]:
    """A quote to swap 20 USDC for ETH on CHAIN."""
    return await kit.quote(
        origin_chain_id=CHAIN,
        destination_chain_id=CHAIN,
        origin_currency=usdc_address(kit.world, CHAIN),
        destination_currency=NATIVE,
        amount=str(20 * USDC_UNIT),
        **options,
    )


def checks(events: list[Any]) -> list[GuardResult]:
    [checked] = of_type(events, GuardsChecked)
    return list(checked.results)


def balance_changes(results: list[GuardResult]) -> GuardResult:
    [found] = [r for r in results if r.name == "balance-changes"]
    return found


async def test_self_executed_eth_to_usdc_through_the_router(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={CHAIN: ETH // 10})
    quote, request = await eth_to_usdc(kit)
    # the public form: one transaction to the router /chains names, no protocol.v2
    assert steps(quote) == ["swap"] and quote.payment_details is None
    chains = await kit.service.chains()
    chain = chains.by_id(CHAIN)
    assert chain is not None
    tx = quote.steps[0].items[0].as_transaction()
    # the world's router is router 3.2 (/chains names it at the top level and under "v3.2")
    assert chain.contract_addresses()[(tx.to or "").lower()] == "router 3.2 (v3.2.erc20Router)"
    before_eth = await kit.native(CHAIN, kit.address)
    before_usdc = await kit.usdc(CHAIN, kit.address)

    events = await kit.run(quote, request=request)

    done = finished(events)
    assert done.status == "success", [e.to_json() for e in events]
    simulated = balance_changes(checks(events))
    minimum = quote.details.currency_out.minimum_amount
    assert simulated.ok and "you send 0.01 ETH, you receive at least" in simulated.message
    # the confirm dialog shows the same simulated changes, right before the signature
    [asked] = kit.asked
    assert "you send 0.01 ETH" in balance_changes(list(asked.guards)).message
    [shown] = [line.value for line in asked.lines if line.label == "simulated"]
    assert shown.startswith("you send 0.01 ETH, you receive at least ")
    [sent] = of_type(events, TxSent)
    gas = await gas_paid(world, CHAIN, [sent.hash])
    assert await kit.native(CHAIN, kit.address) == before_eth - ETH // 100 - gas
    got = await kit.usdc(CHAIN, kit.address) - before_usdc
    assert got == quote.details.currency_out.amount and got >= minimum


async def test_self_executed_usdc_to_eth_approves_then_swaps(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={CHAIN: ETH // 10}, usdc={CHAIN: 50 * USDC_UNIT})
    recipient = new_address()
    quote, request = await usdc_to_eth(kit, recipient=recipient)
    assert steps(quote) == ["approve", "swap"] and quote.payment_details is None

    events = await kit.run(quote, request=request)

    done = finished(events)
    assert done.status == "success", [e.to_json() for e in events]
    assert len(kit.asked) == 2  # the approve, then the swap: each simulated before signing
    assert all(balance_changes(list(a.guards)).ok for a in kit.asked)
    assert await kit.usdc(CHAIN, kit.address) == 30 * USDC_UNIT
    assert await kit.native(CHAIN, recipient) == quote.details.currency_out.amount
    async with kit_gateway(kit) as gateway:  # nothing left approved
        allowance = await gateway.erc20_allowance(
            usdc_address(world, CHAIN), kit.address, quote.steps[1].items[0].as_transaction().to
        )
    assert allowance == 0


async def test_a_zero_reset_before_the_approve_runs(kit: Kit) -> None:
    """The form the public service quotes for tokens like USDT: approve(0) to the router, then
    the approve of the input, then the swap. Each is simulated before it is signed and the run
    ends with nothing left approved."""
    world = kit.world
    await fund(world, kit.address, native={CHAIN: ETH // 10}, usdc={CHAIN: 50 * USDC_UNIT})
    quote, request = await usdc_to_eth(kit)
    assert steps(quote) == ["approve", "swap"]

    def reset_first(wire: dict[str, Any]) -> None:
        reset = copy.deepcopy(wire["steps"][0])
        data = reset["items"][0]["data"]
        data["data"] = data["data"][:74] + "0" * 64  # approve(spender, 0)
        wire["steps"].insert(0, reset)

    events = await kit.run(kit.tampered(quote, reset_first), request=request)

    assert finished(events).status == "success", [e.to_json() for e in events]
    assert len(kit.asked) == 3  # the reset, the approve, the swap: each simulated first
    assert all(balance_changes(list(a.guards)).ok for a in kit.asked)
    assert any("resets the allowance" in r.message for r in checks(events) if r.ok)
    assert await kit.usdc(CHAIN, kit.address) == 30 * USDC_UNIT
    async with kit_gateway(kit) as gateway:
        router = quote.steps[1].items[0].as_transaction().to
        assert await gateway.erc20_allowance(usdc_address(world, CHAIN), kit.address, router) == 0


async def test_force_solver_execution_goes_through_the_depository(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={CHAIN: ETH // 10})
    quote, request = await eth_to_usdc(kit, force_solver_execution=True)
    assert steps(quote) == ["deposit"] and quote.payment_details is not None
    before = await kit.usdc(CHAIN, kit.address)

    events = await kit.run(quote, request=request)

    done = finished(events)
    assert done.status == "success"
    assert not [r for r in checks(events) if r.name == "balance-changes"]  # all decoded
    assert await kit.usdc(CHAIN, kit.address) - before == quote.details.currency_out.amount


async def test_a_forced_swap_paying_the_depository_less_is_refused_by_the_decoders(
    kit: Kit,
) -> None:
    world = kit.world
    await fund(world, kit.address, native={CHAIN: ETH // 10})
    quote, request = await eth_to_usdc(kit, force_solver_execution=True)

    def pay_less(wire: dict[str, Any]) -> None:
        wire["steps"][0]["items"][0]["data"]["value"] = str(ETH // 1000)

    events = await kit.run(kit.tampered(quote, pay_less), request=request)

    failed = events[-1]
    assert isinstance(failed, Failed) and failed.exit_code == 7
    refused = {r.name: r.message for r in checks(events) if not r.ok}
    assert "sends 0.001 ETH but the payment is 0.01 ETH" in refused["tx-payment"]
    assert kit.asked == []


def _redirect_swap(wire: dict[str, Any], to: str) -> None:
    """The router's calldata with another recipient (its fifth word)."""
    data = wire["steps"][-1]["items"][0]["data"]
    body = data["data"]
    start = 10 + 64 * 4
    data["data"] = body[:start] + to[2:].lower().rjust(64, "0") + body[start + 64 :]


async def test_a_router_paying_someone_else_is_refused_by_the_simulation(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={CHAIN: ETH // 10})
    quote, request = await eth_to_usdc(kit)
    thief = new_address()
    tampered = kit.tampered(quote, lambda wire: _redirect_swap(wire, thief))
    before = await kit.native(CHAIN, kit.address)

    events = await kit.run(tampered, request=request)

    failed = events[-1]
    assert isinstance(failed, Failed) and failed.exit_code == 7
    refusal = balance_changes(checks(events))
    assert not refusal.ok
    assert "you would receive 0 USDC, not at least" in refusal.message
    assert f"{thief[:6]}" in refusal.message and "would receive" in refusal.message
    assert kit.asked == [] and await kit.native(CHAIN, kit.address) == before


async def test_an_approval_beyond_the_input_is_refused(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={CHAIN: ETH // 10}, usdc={CHAIN: 50 * USDC_UNIT})
    quote, request = await usdc_to_eth(kit)

    # the swap takes less than the approve allows: an allowance would remain
    def take_less(wire: dict[str, Any]) -> None:
        data = wire["steps"][-1]["items"][0]["data"]
        body = data["data"]
        start = 10 + 64
        data["data"] = body[:start] + hex(USDC_UNIT)[2:].rjust(64, "0") + body[start + 64 :]

    events = await kit.run(kit.tampered(quote, take_less), request=request)

    refusal = balance_changes(checks(events))
    assert not refusal.ok
    assert "you would send 1 USDC, not 20 USDC" in refusal.message
    assert "would leave" in refusal.message and "an allowance of 19 USDC" in refusal.message
    assert kit.asked == []


async def test_a_venue_withdrawal_paying_the_solver_is_refused(kit: Kit) -> None:
    """The world's venue depository is an account apart from its solver: a sendAsset (and the
    paymentDetails with it) turned to the solver is refused before anything is signed."""
    world = kit.world
    await fund(world, kit.address, venue_perps=100 * VENUE_UNIT)
    quote, request = await kit.quote(
        origin_chain_id=1337,
        destination_chain_id=CHAIN,
        origin_currency=PERPS_USDC,
        destination_currency=usdc_address(world, CHAIN),
        amount=str(25 * VENUE_UNIT),
        protocol_version="v2",
    )
    assert quote.payment_details is not None
    assert quote.payment_details.depository == world.venue_depository != world.solver

    def to_solver(wire: dict[str, Any]) -> None:
        wire["protocol"]["v2"]["paymentDetails"]["depository"] = world.solver
        wire["steps"][1]["items"][0]["data"]["action"]["parameters"]["destination"] = world.solver

    before = await kit.withdrawable()
    events = await kit.run(kit.tampered(quote, to_solver), request=request)

    failed = events[-1]
    assert isinstance(failed, Failed) and failed.exit_code == 7
    refused = {r.name: r.message for r in checks(events) if not r.ok}
    assert "/chains lists it as a solver" in refused["send-asset-depository"]
    assert f"but /chains names {world.venue_depository}" in refused["depository"]
    assert kit.asked == [] and await kit.withdrawable() == before


def kit_gateway(kit: Kit) -> Any:
    from crossdeck.wallet.gateway import EvmGateway

    return EvmGateway(kit.world.rpc[CHAIN], CHAIN)


async def test_a_node_without_eth_simulate_is_refused_in_words(py_kit: Kit) -> None:
    """An RPC that does not answer eth_simulateV1 (a proxy in front of the world's node that
    drops the method): the swap is refused, not waved through."""
    import httpx
    from aiohttp import web

    world = py_kit.world
    await fund(world, py_kit.address, native={CHAIN: ETH // 10})
    quote, request = await eth_to_usdc(py_kit)

    async def handle(request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("method") == "eth_simulateV1":
            return web.json_response(
                {
                    "jsonrpc": "2.0",
                    "id": body.get("id"),
                    "error": {"code": -32601, "message": f"the method {MISSING} does not exist"},
                }
            )
        async with httpx.AsyncClient() as client:
            answer = await client.post(world.rpc[CHAIN], json=body)
        return web.json_response(answer.json())

    app = web.Application()
    app.router.add_post("/", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        executor = py_kit.make_executor(rpc={**world.rpc, CHAIN: f"http://127.0.0.1:{port}/"})
        events = [e async for e in executor.run(quote, request=request)]
        await executor.aclose()
    finally:
        await runner.cleanup()
    refusal = balance_changes(checks(events))
    assert not refusal.ok and "does not answer eth_simulateV1" in refusal.message
    assert "Nothing is signed that cannot be checked" in refusal.message
    assert py_kit.asked == []
