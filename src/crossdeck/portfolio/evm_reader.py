"""The balances of one EVM chain: native and every ERC-20 /chains lists, in one `eth_call`.

The call is Multicall3's `aggregate3` with the chain id (`getChainId`), the native balance
(`getEthBalance`) and each token's `balanceOf`, so the chain is checked and read in a single
round trip. A chain without Multicall3 at the address /chains names (or the canonical one)
answers an empty 0x; it is then read one call at a time (chain id, balance, each balanceOf).
"""

from __future__ import annotations

import asyncio
import re

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.chains import NATIVE_ADDRESS, NATIVE_DECIMALS, ChainCurrency, ChainInfo
from crossdeck.models.urls import url_where
from crossdeck.portfolio.model import ChainReading, Holding
from crossdeck.portfolio.multicall import (
    BALANCE_OF,
    GET_CHAIN_ID,
    GET_ETH_BALANCE,
    MULTICALL3_ADDRESS,
    Call3,
    address_word,
    decode_aggregate3,
    encode_aggregate3,
    uint_result,
)
from crossdeck.portfolio.rpc_chain import RpcChainReader, chain_label
from crossdeck.wallet.errors import WouldRevertError
from crossdeck.wallet.gateway import EvmGateway

_ERC20 = re.compile(r"^0x[0-9a-fA-F]{40}$")
VIA_MULTICALL = "multicall3"
VIA_SINGLE = "single calls"


class _NoMulticall(Exception):
    """The chain has no Multicall3 where we asked (or it answered something else)."""


def multicall_address(chain: ChainInfo) -> str:
    """Multicall3 where /chains names it (`contracts.multicall3`), else its canonical address."""
    named = (chain.contracts or {}).get("multicall3")
    return named if isinstance(named, str) and _ERC20.fullmatch(named) else MULTICALL3_ADDRESS


def native_currency(chain: ChainInfo) -> ChainCurrency | None:
    currency = chain.currency
    if currency is not None and (currency.address or NATIVE_ADDRESS).lower() == NATIVE_ADDRESS:
        return currency
    return None


def token_currencies(chain: ChainInfo) -> list[ChainCurrency]:
    """The ERC-20 currencies /chains lists for the chain (native left out), each once."""
    return [
        c
        for c in chain.currencies
        if c.address and _ERC20.fullmatch(c.address) and c.address.lower() != NATIVE_ADDRESS
    ]


class EvmChainReader(RpcChainReader):
    """Reads EVM chains over their JSON-RPC URLs (`rpc_urls` by chain id, else /chains')."""

    family = "evm"

    def __init__(
        self, rpc_urls: dict[int, str], *, timeout: float = 8.0, use_multicall: bool = True
    ) -> None:
        super().__init__(rpc_urls, timeout=timeout)
        self.use_multicall = use_multicall  # False: one call at a time (the benchmark's anchor)

    async def read(self, chain: ChainInfo, owner: str) -> ChainReading:
        assert chain.id is not None
        name = chain_label(chain)
        url = self.url_for(chain)
        if url is None:
            return self.no_url(chain)
        native = native_currency(chain)
        tokens = token_currencies(chain)
        async with EvmGateway(url, chain.id, timeout=self.timeout, retries=1) as gateway:
            try:
                if self.use_multicall:
                    try:
                        amounts, failed = await self._batched(gateway, chain, owner, native, tokens)
                        via = VIA_MULTICALL
                    except _NoMulticall:
                        amounts, failed = await self._singly(gateway, owner, native, tokens)
                        via = VIA_SINGLE
                else:
                    amounts, failed = await self._singly(gateway, owner, native, tokens)
                    via = VIA_SINGLE
            except CrossdeckError as exc:
                return ChainReading(chain.id, name, url_where(url), "", error=exc.message)
        holdings = []
        notes = [f"{c.symbol or c.address} ({c.address}) did not answer balanceOf" for c in failed]
        for currency, amount in amounts:
            decimals = _decimals(currency)
            if decimals is None:
                notes.append(f"/chains gives {currency.symbol or currency.address} no decimals")
            elif amount:
                holdings.append(
                    Holding(
                        chain_id=chain.id,
                        currency=currency.address or NATIVE_ADDRESS,
                        symbol=currency.symbol or "?",
                        decimals=decimals,
                        amount=amount,
                    )
                )
        return ChainReading(
            chain.id, name, url_where(url), via, tuple(holdings), notes=tuple(notes)
        )

    async def _batched(
        self,
        gateway: EvmGateway,
        chain: ChainInfo,
        owner: str,
        native: ChainCurrency | None,
        tokens: list[ChainCurrency],
    ) -> tuple[list[tuple[ChainCurrency, int]], list[ChainCurrency]]:
        multicall = multicall_address(chain)
        who = address_word(owner)
        calls = [Call3(multicall, GET_CHAIN_ID)]
        if native is not None:
            calls.append(Call3(multicall, GET_ETH_BALANCE + who))
        # a listed token that is not there (or reverts) must not sink the chain's other rows
        calls += [Call3(t.address or "", BALANCE_OF + who, allow_failure=True) for t in tokens]
        try:
            answer = await gateway.call(
                {"to": multicall, "data": encode_aggregate3(calls)}, chain_checked=True
            )
            results = decode_aggregate3(answer, len(calls))
            gateway.confirm_chain(uint_result(results[0][1]))
        except (ValueError, WouldRevertError):
            raise _NoMulticall from None
        amounts: list[tuple[ChainCurrency, int]] = []
        rest = results[1:]
        if native is not None:
            amounts.append((native, uint_result(rest[0][1])))
            rest = rest[1:]
        failed = []
        for token, (ok, data) in zip(tokens, rest, strict=True):
            if ok and len(data) == 32:
                amounts.append((token, uint_result(data)))
            else:
                failed.append(token)
        return amounts, failed

    async def _singly(
        self,
        gateway: EvmGateway,
        owner: str,
        native: ChainCurrency | None,
        tokens: list[ChainCurrency],
    ) -> tuple[list[tuple[ChainCurrency, int]], list[ChainCurrency]]:
        await gateway.chain_id()  # checked once, before any balance is believed
        amounts: list[tuple[ChainCurrency, int]] = []
        if native is not None:
            amounts.append((native, await gateway.balance(owner)))
        answers = await asyncio.gather(
            *(gateway.erc20_balance(t.address or "", owner) for t in tokens),
            return_exceptions=True,
        )
        failed = []
        for token, answer in zip(tokens, answers, strict=True):
            if isinstance(answer, int):
                amounts.append((token, answer))
            elif isinstance(answer, CrossdeckError):
                failed.append(token)
            else:
                raise answer
        return amounts, failed


def _decimals(currency: ChainCurrency) -> int | None:
    if currency.decimals is not None:
        return currency.decimals
    if (currency.address or NATIVE_ADDRESS).lower() == NATIVE_ADDRESS:
        return NATIVE_DECIMALS  # 18 on every EVM chain
    return None
