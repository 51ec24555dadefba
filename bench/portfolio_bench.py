"""Time to the whole portfolio: crossdeck's reading against the same balances read one call at a
time, in the same run.

A demo world (its EVM chains, the venue and the service) runs on loopback in a process of its
own (`crossdeck sim serve --speed 0`), each server behind a small proxy in this process that adds
`--latency` ms before every request (a remote RPC is tens of ms away; the loopback is not) and
counts the requests. Two readers of the same wallet take turns, `--runs`
times per latency:

- crossdeck: `crossdeck.portfolio.read_portfolio`, as `crossdeck balances` runs it: /chains, then
  every chain at once, one Multicall3 `aggregate3` per EVM chain (chain id, native balance,
  each token's balanceOf), the venue's reads together, each holding priced as its chain is read;
- anchor: the same reads one call at a time, with the same clients: /chains, then per EVM
  chain eth_chainId, eth_getBalance and each token's balanceOf (through eth_call), the venue's
  clearinghouseState, spotMeta, spotClearinghouseState and each HIP-3 DEX's clearinghouseState,
  then one price after the other.

Both must find the same balances, the venue's included (checked each run). Printed per
latency: the median time of each, their ratio, and the requests each made. (Chains of another
family, such as the world's Solana chain, are not read by either.)

    .venv/bin/python bench/portfolio_bench.py                       # latencies 0 and 20 ms, 7 runs
    .venv/bin/python bench/portfolio_bench.py --latency 0 --latency 50 --runs 5 --backend anvil

Bounded: every read has the clients' own time limits, and the tool exits when done.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from crossdeck.api import ServiceClient
from crossdeck.models import ChainsResponse
from crossdeck.portfolio import chain_family, read_portfolio
from crossdeck.portfolio.evm_reader import EvmChainReader, native_currency, token_currencies
from crossdeck.portfolio.venue_reader import VenueChainReader, spot_total, to_units
from crossdeck.venue.client import VenueClient
from crossdeck.venue.currencies import venue_place
from crossdeck.wallet.gateway import EvmGateway

EVM_CHAINS = (8453, 999)  # the world's EVM chains (its Solana chain has no EVM RPC)
HOP_HEADERS = {"host", "content-length", "transfer-encoding", "connection"}


@dataclass
class Proxy:
    """A reverse proxy to `upstream` on loopback that waits `latency` s before each request."""

    upstream: str
    latency: float = 0.0
    requests: int = 0
    url: str = ""
    _runner: web.AppRunner | None = None
    _session: aiohttp.ClientSession | None = field(default=None, repr=False)

    async def start(self) -> str:
        self._session = aiohttp.ClientSession()
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self.url

    async def _forward(self, request: web.Request) -> web.Response:
        assert self._session is not None
        self.requests += 1
        if self.latency:
            await asyncio.sleep(self.latency)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        async with self._session.request(
            request.method,
            self.upstream + request.path_qs,
            data=await request.read(),
            headers=headers,
        ) as answer:
            body = await answer.read()
            kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_HEADERS}
            return web.Response(status=answer.status, body=body, headers=kept)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()


@dataclass
class Setup:
    service: Proxy
    venue: Proxy
    rpc: dict[int, Proxy]

    @property
    def proxies(self) -> list[Proxy]:
        return [self.service, self.venue, *self.rpc.values()]

    def set_latency(self, seconds: float) -> None:
        for proxy in self.proxies:
            proxy.latency = seconds

    def requests(self) -> int:
        return sum(proxy.requests for proxy in self.proxies)


def chains_via(chains: ChainsResponse, setup: Setup) -> ChainsResponse:
    """/chains with each EVM chain's RPC URL pointing at its proxy (both readers use it)."""
    copy = chains.model_copy(deep=True)
    for chain in copy.chains:
        if chain.id in setup.rpc:
            chain.http_rpc_url = setup.rpc[chain.id].url
    return copy


async def crossdeck_read(setup: Setup, owner: str) -> dict[tuple[int, str], int]:
    async with ServiceClient(setup.service.url) as service, VenueClient(setup.venue.url) as venue:
        chains = chains_via(await service.chains(), setup)
        portfolio = await read_portfolio(
            chains,
            {"evm": owner, "venue": owner},
            service=service,
            readers={"evm": EvmChainReader({}), "venue": VenueChainReader(venue)},
        )
    assert not portfolio.unreachable, portfolio.unreachable
    assert not portfolio.unpriced, portfolio.unpriced
    return {(h.chain_id, h.currency.lower()): h.amount for h in portfolio.holdings}


async def one_by_one(setup: Setup, owner: str) -> dict[tuple[int, str], int]:
    found: dict[tuple[int, str], int] = {}
    async with ServiceClient(setup.service.url) as service, VenueClient(setup.venue.url) as venue:
        chains = chains_via(await service.chains(), setup)
        for chain in chains.chains:
            if chain.id not in setup.rpc or chain_family(chain) != "evm":
                continue
            async with EvmGateway(setup.rpc[chain.id].url, chain.id) as gateway:
                await gateway.chain_id()
                if native_currency(chain) is not None:
                    found[(chain.id, "0x" + "0" * 40)] = await gateway.balance(owner)
                for token in token_currencies(chain):
                    address = token.address or ""
                    found[(chain.id, address.lower())] = await gateway.erc20_balance(address, owner)
        venue_chain = chains.venue
        currencies = venue_chain.currencies if venue_chain else []
        places = [(c, venue_place(c.address or "")) for c in currencies]
        dexes = sorted({p[1] for _, p in places if p is not None and p[0] == "hip3"})
        perps = await venue.clearinghouse_state(owner)
        meta = await venue.spot_meta()
        spot = await venue.spot_clearinghouse_state(owner)
        by_dex = {dex: await venue.clearinghouse_state(owner, dex) for dex in dexes}
        for currency, place in places:
            if place is None or currency.decimals is None:
                continue
            kind, dex = place
            value = {
                "perps": lambda: perps.withdrawable,
                "spot": lambda c=currency: spot_total((meta, spot), c),
                "hip3": lambda d=dex: by_dex[d].withdrawable,
            }[kind]()
            if value is not None:
                found[(1337, (currency.address or "").lower())] = to_units(value, currency.decimals)
        for chain_id, address in [key for key, amount in found.items() if amount]:
            await service.token_price(chain_id, address)
    return {key: amount for key, amount in found.items() if amount}


async def timed(
    setup: Setup, read: Callable[[Setup, str], Awaitable[dict[tuple[int, str], int]]], owner: str
) -> tuple[float, int, dict[tuple[int, str], int]]:
    before = setup.requests()
    start = time.perf_counter()
    found = await read(setup, owner)
    return time.perf_counter() - start, setup.requests() - before, found


async def bench(world: dict[str, Any], latencies: list[float], runs: int) -> list[dict[str, Any]]:
    setup = Setup(
        service=Proxy(world["service_url"]),
        venue=Proxy(world["venue_url"]),
        rpc={int(cid): Proxy(url) for cid, url in world["rpc"].items() if int(cid) in EVM_CHAINS},
    )
    for proxy in setup.proxies:
        await proxy.start()
    owner = world["wallet"]["address"]
    results = []
    try:
        for latency in latencies:
            setup.set_latency(latency / 1000)
            await timed(setup, crossdeck_read, owner)  # warm both (connections, imports)
            await timed(setup, one_by_one, owner)
            ours: list[float] = []
            anchor: list[float] = []
            counts = (0, 0)
            for _ in range(runs):  # interleaved: a slow moment falls on both
                t_ours, n_ours, held = await timed(setup, crossdeck_read, owner)
                t_anchor, n_anchor, same = await timed(setup, one_by_one, owner)
                assert held == same, (held, same)  # the same balances, venue included
                ours.append(t_ours)
                anchor.append(t_anchor)
                counts = (n_ours, n_anchor)
            results.append(
                {
                    "latency_ms": latency,
                    "crossdeck_s": statistics.median(ours),
                    "anchor_s": statistics.median(anchor),
                    "requests": counts,
                    "chains": len(setup.rpc) + 1,
                }
            )
    finally:
        for proxy in setup.proxies:
            await proxy.stop()
    return results


@contextlib.contextmanager
def served_world(backend: str) -> Iterator[dict[str, Any]]:
    """`crossdeck sim serve` in a process of its own (its CPU is not this process's), stopped
    with SIGTERM at the end."""
    with tempfile.TemporaryDirectory(prefix="crossdeck-portfolio-bench-") as tmp:
        info_file = Path(tmp) / "world.json"
        crossdeck = str(Path(sys.executable).with_name("crossdeck"))  # the venv's entry point
        command = [crossdeck, "sim", "serve", "--speed", "0"]
        command += ["--chain-backend", backend, "--world-file", str(info_file)]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while not info_file.exists():
                if process.poll() is not None or time.monotonic() > deadline:
                    error = process.stderr.read().decode() if process.stderr else ""
                    raise SystemExit(f"the world did not start: {error[-2000:]}")
                time.sleep(0.1)
            time.sleep(0.2)  # the file is written whole before it is renamed into place
            yield json.loads(info_file.read_text())
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, action="append", help="ms per request")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--backend", default="py-evm", choices=["py-evm", "anvil"])
    args = parser.parse_args(argv)
    latencies = args.latency or [0.0, 20.0]
    with served_world(args.backend) as world:
        results = asyncio.run(bench(world, latencies, args.runs))
    print(f"portfolio of the demo wallet, {args.backend}, medians of {args.runs} runs")
    for row in results:
        ours, anchor = row["crossdeck_s"], row["anchor_s"]
        n_ours, n_anchor = row["requests"]
        print(
            f"latency {row['latency_ms']:g} ms, {row['chains']} chains: crossdeck "
            f"{ours * 1000:.1f} ms ({n_ours} requests), one call at a time "
            f"{anchor * 1000:.1f} ms ({n_anchor} requests), ratio {ours / anchor:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
