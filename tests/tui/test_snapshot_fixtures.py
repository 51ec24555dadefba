"""The recorded runs the snapshots replay still look like what the world answers today: same
quote members, same steps, same request record members (ids, nonces and times aside)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from tui_support import deposit_by_executor, event_from_json, load_fixture

from crossdeck.models import Quote, RequestsPage


def _paths(value: Any, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        out = {prefix} if prefix else set()
        for key, item in value.items():
            out |= _paths(item, f"{prefix}.{key}" if prefix else key)
        return out
    if isinstance(value, list):
        out = {prefix}
        for item in value:
            out |= _paths(item, prefix + "[]")
        return out
    return {prefix}


@pytest.mark.parametrize("name", ["deposit", "withdrawal", "native"])
def test_recorded_quotes_have_todays_shape(world: Any, name: str) -> None:
    recorded = load_fixture(f"run_{name}.json")
    body = dict(recorded["request"], user=world.wallet_address)
    live = httpx.post(
        world.service_url + "/quote/v2", json=body, headers={"x-api-key": world.api_key}
    ).json()
    assert _paths(live) == _paths(recorded["quote"])
    assert [s["id"] for s in live["steps"]] == [s["id"] for s in recorded["quote"]["steps"]]
    Quote.from_wire(recorded["quote"])  # and our models still read them


def test_recorded_events_replay_into_todays_event_types() -> None:
    for name in ("deposit", "withdrawal", "native"):
        events = [event_from_json(e) for e in load_fixture(f"run_{name}.json")["events"]]
        assert type(events[0]).__name__ == "GuardsChecked"
        assert type(events[-1]).__name__ == "Finished" and events[-1].status == "success"
        assert [e.to_json() for e in events] == load_fixture(f"run_{name}.json")["events"]


def test_recorded_request_page_has_todays_record_members(world: Any, tmp_path: Path) -> None:
    asyncio.run(deposit_by_executor(world, tmp_path))
    recorded = load_fixture("requests_page.json")
    live = httpx.get(
        world.service_url + "/requests/v2",
        params={"limit": 50},
        headers={"x-api-key": world.api_key},
    ).json()

    def route(record: dict[str, Any]) -> tuple[Any, Any]:
        ins, outs = record["data"]["inTxs"], record["data"]["outTxs"]
        return (ins[0]["chainId"] if ins else None, outs[0]["chainId"] if outs else None)

    # a venue deposit then and now: the same members
    recorded_deposit = next(r for r in recorded["requests"] if route(r) == (8453, 1337))
    live_deposit = next(r for r in live["requests"] if route(r) == (8453, 1337))
    assert _paths(recorded_deposit) == _paths(live_deposit)
    RequestsPage.from_wire(recorded)
