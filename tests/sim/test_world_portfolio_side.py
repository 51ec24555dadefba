"""What the world gives a portfolio reader: Multicall3 named in /chains where its chains have
it, and the public price endpoint, `GET /currencies/token/price`."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from crossdeck.sim.chains.multicall3 import MULTICALL3_ADDRESS


def _chains(world: Any) -> dict[int, dict[str, Any]]:
    body = httpx.get(f"{world.service_url}/chains").json()
    return {chain["id"]: chain for chain in body["chains"]}


def test_chains_name_multicall3_on_every_evm_chain(world: Any) -> None:
    chains = _chains(world)
    for chain_id in (8453, 999):
        assert chains[chain_id]["contracts"]["multicall3"] == MULTICALL3_ADDRESS.lower()
        rpc = chains[chain_id]["httpRpcUrl"]
        code = httpx.post(
            rpc,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "eth_getCode",
                "params": [MULTICALL3_ADDRESS, "latest"],
            },
        ).json()["result"]
        assert len(code) > 1000
    assert "multicall3" not in chains[1337]["contracts"]


@pytest.mark.parametrize(
    ("chain_id", "pick", "price"),
    [
        (8453, lambda c: c["currency"]["address"], 3000),
        (999, lambda c: c["currency"]["address"], 25),
        (8453, lambda c: c["erc20Currencies"][0]["address"].upper().replace("0X", "0x"), 1),
        (1337, lambda c: c["currency"]["address"], 1),
    ],
)
def test_every_listed_currency_has_a_price(
    world: Any, chain_id: int, pick: Any, price: int
) -> None:
    address = pick(_chains(world)[chain_id])
    answer = httpx.get(
        f"{world.service_url}/currencies/token/price",
        params={"address": address, "chainId": chain_id},
    )
    assert answer.status_code == 200
    assert answer.json() == {"price": price}


@pytest.mark.parametrize(
    "params",
    [
        {"chainId": "8453"},
        {"address": "0x" + "0" * 40, "chainId": "eight"},
        {"address": "0x" + "1" * 40, "chainId": "8453"},
        {"address": "0x" + "0" * 40, "chainId": "1"},
    ],
)
def test_a_price_the_service_cannot_give_is_a_400(world: Any, params: dict[str, str]) -> None:
    answer = httpx.get(f"{world.service_url}/currencies/token/price", params=params)
    assert answer.status_code == 400
    assert answer.json()["message"]
