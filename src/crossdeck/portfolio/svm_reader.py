"""The balances of a Solana chain: SOL and every SPL token /chains lists for it.

Three reads, sent together: `getBalance` for SOL, and `getTokenAccountsByOwner` (jsonParsed)
for each token program (SPL Token and Token-2022), which lists every token account of the owner
with its mint and amount in one answer; a mint held in several accounts is added up. A mint
/chains does not list is left out, as an EVM chain's unlisted tokens are.
"""

from __future__ import annotations

import asyncio
from typing import Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.chains import ChainInfo
from crossdeck.models.solana import SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM
from crossdeck.models.urls import url_where
from crossdeck.portfolio.model import ChainReading, Holding
from crossdeck.portfolio.rpc_chain import RpcChainReader, chain_label
from crossdeck.wallet.errors import RpcError
from crossdeck.wallet.solana import SolanaGateway

SOL_DECIMALS = 9
VIA_SOLANA = "getBalance + getTokenAccountsByOwner"


def token_amounts(answer: Any) -> dict[str, int]:
    """mint -> amount (smallest unit) of a jsonParsed getTokenAccountsByOwner answer."""
    value = answer.get("value") if isinstance(answer, dict) else None
    if not isinstance(value, list):
        raise RpcError("the Solana RPC answered getTokenAccountsByOwner without a value")
    amounts: dict[str, int] = {}
    for entry in value:
        try:
            info = entry["account"]["data"]["parsed"]["info"]
            mint, amount = info["mint"], int(info["tokenAmount"]["amount"])
        except (KeyError, TypeError, ValueError):
            raise RpcError("the Solana RPC's token account is not jsonParsed as asked") from None
        amounts[mint] = amounts.get(mint, 0) + amount
    return amounts


class SvmChainReader(RpcChainReader):
    """Reads Solana chains over their JSON-RPC URLs (`rpc_urls` by chain id, else /chains')."""

    family = "svm"

    async def read(self, chain: ChainInfo, owner: str) -> ChainReading:
        assert chain.id is not None
        name = chain_label(chain)
        url = self.url_for(chain)
        if url is None:
            return self.no_url(chain)
        gateway = SolanaGateway(url, chain_id=chain.id, timeout=self.timeout, retries=1)
        try:
            parsed = {"encoding": "jsonParsed"}
            lamports, *by_program = await asyncio.gather(
                gateway.balance(owner),
                *(
                    gateway.rpc("getTokenAccountsByOwner", owner, {"programId": p}, parsed)
                    for p in (TOKEN_PROGRAM, TOKEN_2022_PROGRAM)
                ),
            )
            held: dict[str, int] = {}
            for answer in by_program:
                for mint, amount in token_amounts(answer).items():
                    held[mint] = held.get(mint, 0) + amount
        except CrossdeckError as exc:
            return ChainReading(chain.id, name, url_where(url), "", error=exc.message)
        finally:
            await gateway.aclose()
        holdings = []
        for currency in chain.currencies:
            address = currency.address or ""
            if address == SYSTEM_PROGRAM:
                amount, decimals = lamports, currency.decimals or SOL_DECIMALS
            elif address in held and currency.decimals is not None:
                amount, decimals = held[address], currency.decimals
            else:
                continue
            if amount:
                holdings.append(
                    Holding(chain.id, address, currency.symbol or "?", decimals, amount)
                )
        return ChainReading(chain.id, name, url_where(url), VIA_SOLANA, tuple(holdings))
