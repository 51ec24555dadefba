"""By-hand fixtures: a verifying webhook receiver and a `Hand` on each world backend."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from .byhand import Hand
from .webhook_receiver import WebhookReceiver

HOOK_HEADER = ("X-Demo-Auth", "Bearer demo-webhook-token")


@dataclass
class Flow:
    """What a by-hand test works with: the world (only to wire webhooks), a `Hand` that knows
    nothing but the world's JSON, and the webhook receiver."""

    world: Any
    hand: Hand
    hooks: WebhookReceiver


@pytest.fixture(scope="session")
def hooks() -> Iterator[WebhookReceiver]:
    from crossdeck.sim.world import DEMO_API_KEY

    receiver = WebhookReceiver(secrets={"demo": DEMO_API_KEY})
    receiver.start()
    yield receiver
    receiver.stop()


@pytest.fixture(scope="package")
def world_anvil(start_world: Any) -> Iterator[Any]:
    """One anvil world for this whole folder (instead of one per module), stopped when the
    folder is done so no anvil outlives it."""
    with start_world("anvil") as world:
        yield world


@pytest.fixture(scope="module")
def flow_session(any_world: Any, hooks: WebhookReceiver) -> Flow:
    return Flow(any_world, Hand(any_world.info), hooks)


@pytest.fixture
def flow(flow_session: Flow) -> Iterator[Flow]:
    # set per test: other tests share the session world and may point the key elsewhere
    world, hooks = flow_session.world, flow_session.hooks
    world.set_webhook(world.api_key, hooks.url("demo"), dict([HOOK_HEADER]))
    rejected_before = len(flow_session.hooks.rejected)
    yield flow_session
    # every delivery during the test verified (the receiver answers 401 to any that does not)
    assert flow_session.hooks.rejected[rejected_before:] == []
