"""The World object itself: its fault proxy, rate limits, `call`, and a startup that fails."""

from __future__ import annotations

import threading

import httpx
import pytest

from crossdeck.sim.world import World, WorldError


def test_faults_proxy_reaches_the_service(world: World) -> None:
    world.faults.inject("503", 1, path="/chains")
    first = httpx.get(f"{world.service_url}/chains")
    assert first.status_code == 503
    assert first.json()["errorCode"] == "SERVICE_UNAVAILABLE"
    assert httpx.get(f"{world.service_url}/chains").status_code == 200


def test_call_runs_inside_the_world_loop(world: World) -> None:
    async def which_thread() -> str:
        return threading.current_thread().name

    assert world.call(which_thread) == "crossdeck-world"


def test_rate_limits_apply_per_caller() -> None:
    with World(speed=0, rate_limits=(2, 100)) as world:
        anonymous = [httpx.get(f"{world.service_url}/chains").status_code for _ in range(3)]
        assert anonymous == [200, 200, 429]
        keyed = httpx.get(f"{world.service_url}/chains", headers={"x-api-key": world.api_key})
        assert keyed.status_code == 200
        assert "api_key" not in repr(world) and world.api_key not in repr(world)


def test_a_world_that_cannot_start_says_why_and_leaves_nothing_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("CROSSDECK_ANVIL", str(tmp_path / "no-anvil-here"))
    before = set(threading.enumerate())
    world = World(backend="anvil")
    with pytest.raises(WorldError, match="no-anvil-here"):
        world.start_blocking()
    assert [t.name for t in set(threading.enumerate()) - before if t.is_alive()] == []
