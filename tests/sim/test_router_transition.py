"""The world's router 3.2 transition: /chains names router 3.2 at the top level and under
contracts["v3.2"], the older router under contracts.v3 while the transition lasts, and the older
router answers (its code is there) until the transition ends (`--router-transition off`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from crossdeck.sim.chains.router_transition import PREVIOUS_ROUTER


def _contracts(world: Any, chain_id: int) -> dict[str, Any]:
    chains = httpx.get(world.service_url + "/chains", timeout=10).json()["chains"]
    return next(c for c in chains if c["id"] == chain_id)["contracts"]


def _code(world: Any, chain_id: int, address: str) -> str:
    answer = httpx.post(
        world.rpc[chain_id],
        json={"jsonrpc": "2.0", "id": 1, "method": "eth_getCode", "params": [address, "latest"]},
        timeout=10,
    ).json()
    return str(answer["result"])


@pytest.mark.parametrize("chain_id", [8453, 999])
def test_during_the_transition_both_routers_are_named_and_answer(world: Any, chain_id: int) -> None:
    contracts = _contracts(world, chain_id)
    router = world.chains[chain_id].router.lower()
    assert contracts["erc20Router"] == router
    assert contracts["v3.2"] == {"erc20Router": router}
    assert contracts["v3"] == {"erc20Router": PREVIOUS_ROUTER.lower()}
    code = _code(world, chain_id, router)
    assert len(code) > 100 and _code(world, chain_id, PREVIOUS_ROUTER) == code


@pytest.fixture(scope="module")
def ended(start_world: Any) -> Iterator[Any]:
    with start_world("py-evm", router_transition=False) as running:
        yield running


def test_after_the_transition_router_3_2_alone(ended: Any) -> None:
    contracts = _contracts(ended, 8453)
    router = ended.chains[8453].router.lower()
    assert "v3" not in contracts
    assert contracts["v3.2"] == {"erc20Router": router} and contracts["erc20Router"] == router
    assert _code(ended, 8453, PREVIOUS_ROUTER) in ("0x", "0x0")
