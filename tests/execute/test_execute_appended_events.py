"""The event that reports a POST carries the steps its answer appended, so a view (the TUI's
Execute screen) can show them: the executor appends to its own copy of the quote."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from appending_proxy import AppendingProxy
from execute_support import PERPS_USDC, VENUE_UNIT, Kit, finished, fund, new_address, usdc_address

from crossdeck.api import ServiceClient
from crossdeck.execute import Posted
from crossdeck.models import Step


@pytest.fixture
async def proxy(world: Any) -> AsyncIterator[AppendingProxy]:
    running = AppendingProxy(world.service_url)
    await running.start()
    yield running
    await running.stop()


async def test_posted_carries_the_appended_steps(py_kit: Kit, proxy: AppendingProxy) -> None:
    kit = py_kit
    await kit.service.aclose()
    kit.service = ServiceClient(proxy.url, api_key=kit.world.api_key)
    kit.executor = kit.make_executor()
    await fund(kit.world, kit.address, venue_perps=50 * VENUE_UNIT)
    quote, request = await kit.quote(
        origin_chain_id=1337,
        destination_chain_id=8453,
        origin_currency=PERPS_USDC,
        destination_currency=usdc_address(kit.world, 8453),
        amount=str(10 * VENUE_UNIT),
        recipient=new_address(),
        protocol_version="v2",
    )
    events = await kit.run(quote, request=request)

    assert finished(events).status == "success"
    [authorize, acknowledge] = [e for e in events if isinstance(e, Posted)]
    assert acknowledge.appended == ()
    [step] = [Step.from_wire(wire) for wire in authorize.appended]
    assert step.id == "acknowledge" and authorize.appended_steps == ("acknowledge",)
    assert [i.as_signature().post.endpoint for i in step.items] == ["/acknowledge"]
    assert [s.id for s in quote.steps] == ["authorize", "deposit"]  # the caller's is untouched
    as_json = json.loads(json.dumps(authorize.to_json()))
    assert as_json["appended_steps"] == ["acknowledge"]
    assert as_json["appended"][0]["id"] == "acknowledge"
    assert as_json["appended"][0]["items"][0]["data"]["sign"]["signatureKind"] == "eip191"
