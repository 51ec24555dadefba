"""The per-chain readers on their own: Multicall3's encoding against eth-abi, and a chain
without Multicall3 read one call at a time to the same amounts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from eth_abi.abi import decode, encode

from crossdeck.api.client import ServiceClient
from crossdeck.models import ChainsResponse
from crossdeck.portfolio import read_portfolio
from crossdeck.portfolio.evm_reader import EvmChainReader
from crossdeck.portfolio.multicall import (
    AGGREGATE3,
    Call3,
    decode_aggregate3,
    encode_aggregate3,
)

from .portfolio_support import chain_balance, chain_usdc


def test_aggregate3_calldata_is_what_eth_abi_encodes() -> None:
    calls = [
        Call3("0x" + "11" * 20, b"\x01\x02\x03", allow_failure=True),
        Call3("0x" + "22" * 20, b""),
        Call3("0x" + "33" * 20, bytes(range(70))),
    ]
    expected = encode(
        ["(address,bool,bytes)[]"], [[(c.target, c.allow_failure, c.call_data) for c in calls]]
    )
    assert encode_aggregate3(calls) == AGGREGATE3 + expected
    assert decode(["(address,bool,bytes)[]"], encode_aggregate3(calls)[4:])[0][2][2] == bytes(
        range(70)
    )


def test_aggregate3_answers_decode_and_bad_ones_are_refused() -> None:
    answer = encode(["(bool,bytes)[]"], [[(True, b"\x00" * 31 + b"\x07"), (False, b"no")]])
    assert decode_aggregate3(answer, 2) == [(True, b"\x00" * 31 + b"\x07"), (False, b"no")]
    with pytest.raises(ValueError, match="no Multicall3"):
        decode_aggregate3(b"", 2)
    with pytest.raises(ValueError, match="3 calls"):
        decode_aggregate3(answer, 3)
    with pytest.raises(ValueError, match="cut short"):
        decode_aggregate3(answer[:-40], 2)


def _chains_without_multicall(world: Any) -> ChainsResponse:
    import httpx

    body = httpx.get(f"{world.service_url}/chains").json()
    for chain in body["chains"]:
        if chain["id"] == 8453:  # an address without code answers aggregate3 with 0x
            chain["contracts"] = {"multicall3": "0x" + "ab" * 20}
    return ChainsResponse.model_validate(body)


def test_a_chain_without_multicall3_is_read_call_by_call(world: Any) -> None:
    chains = _chains_without_multicall(world)
    owner = world.wallet_address

    async def read() -> Any:
        async with ServiceClient(world.service_url) as service:
            return await read_portfolio(
                chains,
                {"evm": owner},
                service=service,
                readers={"evm": EvmChainReader({})},  # the RPC URLs /chains gives
            )

    portfolio = asyncio.run(read())
    via = {c.chain_id: c.via for c in portfolio.chains}
    assert via == {8453: "single calls", 999: "multicall3"}
    amounts = {(h.chain_id, h.symbol): h.amount for h in portfolio.holdings}
    assert amounts[(8453, "ETH")] == chain_balance(world, 8453, owner)
    assert amounts[(8453, "USDC")] == chain_usdc(world, 8453, owner)
    assert amounts[(999, "USDC")] == chain_usdc(world, 999, owner)


def test_a_chain_that_never_answers_is_cut_off_and_the_rest_shown(world: Any) -> None:
    """A node that takes the connection and says nothing: its chain is shown as not
    answering, with its URL, once the time per chain is up; the other chain is read."""

    async def read() -> Any:
        async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read(1 << 16)
            await asyncio.sleep(60)  # never answers

        silent = await asyncio.start_server(hold, "127.0.0.1", 0)
        port = silent.sockets[0].getsockname()[1]
        try:
            async with ServiceClient(world.service_url) as service:
                return await read_portfolio(
                    await service.chains(),
                    {"evm": world.wallet_address},
                    service=service,
                    readers={"evm": EvmChainReader({999: f"http://127.0.0.1:{port}/key"})},
                    chain_seconds=1.0,
                )
        finally:
            silent.close()

    portfolio = asyncio.run(read())
    (slow,) = portfolio.unreachable
    assert slow.chain_id == 999 and slow.error == "no answer within 1 s"
    assert slow.url.startswith("http://127.0.0.1:") and "/key" not in slow.url
    assert {h.chain_id for h in portfolio.holdings} == {8453}
