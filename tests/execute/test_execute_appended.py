"""A POST answer that carries `steps` appends them: they run after the quoted steps, with the
same guards (over the whole quote again, before the next item) and confirmation, and the journal
keeps them for resume. The event that reports the
POST carries the appended steps, so a view (the TUI's Execute screen) can show them: the
executor appends to its own copy of the quote."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from appending_proxy import AppendingProxy
from execute_support import PERPS_USDC, VENUE_UNIT, Kit, fund, new_address, usdc_address

from crossdeck.api import ServiceClient
from crossdeck.base.exitcodes import ExitCode
from crossdeck.execute import Failed, Posted, StepStarted, VenueSubmitted
from crossdeck.models import Step


@pytest.fixture
async def proxy(world: Any) -> AsyncIterator[AppendingProxy]:
    running = AppendingProxy(world.service_url)
    await running.start()
    yield running
    await running.stop()


async def test_steps_from_a_post_answer_are_appended_and_guarded(
    py_kit: Kit, proxy: AppendingProxy
) -> None:
    """The proxy appends an EIP-191 'acknowledge' message after /authorize: the executor
    appends it to its copy of the quote (and the journal's), and the guards, run again before
    the next item, refuse the message by name before the venue transfer is signed."""
    kit = py_kit
    await kit.service.aclose()
    kit.service = ServiceClient(proxy.url, api_key=kit.world.api_key)
    kit.executor = kit.make_executor()
    await fund(kit.world, kit.address, venue_perps=50 * VENUE_UNIT)
    before = kit.world.ledger.balance(kit.address, PERPS_USDC)
    recipient = new_address()
    quote, request = await kit.quote(
        origin_chain_id=1337,
        destination_chain_id=8453,
        origin_currency=PERPS_USDC,
        destination_currency=usdc_address(kit.world, 8453),
        amount=str(10 * VENUE_UNIT),
        recipient=recipient,
        protocol_version="v2",
    )
    events = await kit.run(quote, request=request)

    posted = [e for e in events if isinstance(e, Posted)]
    assert [(p.endpoint, p.appended_steps) for p in posted] == [("/authorize", ("acknowledge",))]
    [step] = [Step.from_wire(wire) for wire in posted[0].appended]
    assert step.id == "acknowledge"
    assert [i.as_signature().post.endpoint for i in step.items] == ["/acknowledge"]
    assert [s.id for s in quote.steps] == ["authorize", "deposit"]  # the caller's is untouched
    as_json = json.loads(json.dumps(posted[0].to_json()))
    assert as_json["appended_steps"] == ["acknowledge"]
    assert as_json["appended"][0]["items"][0]["data"]["sign"]["signatureKind"] == "eip191"
    journalled = kit.journal.run(quote.request_id).quote
    assert [s["id"] for s in journalled["steps"]] == ["authorize", "deposit", "acknowledge"]

    failed = events[-1]
    assert isinstance(failed, Failed) and failed.exit_code == ExitCode.GUARD_REFUSED
    assert "message-signature" in failed.error and "I asked for request" in failed.error
    # nothing after the authorize was signed: no venue transfer, no message
    assert [e.step_id for e in events if isinstance(e, StepStarted)] == ["authorize", "deposit"]
    assert not [e for e in events if isinstance(e, VenueSubmitted)]
    assert proxy.acknowledged == []
    assert kit.world.ledger.balance(kit.address, PERPS_USDC) == before
