"""The venue's balances as chain-1337 rows: perps (withdrawable, with the account value), spot,
and each HIP-3 DEX's withdrawable, one row per currency /chains lists for chain 1337.

The venue reports human-unit decimal strings; a row's amount is that value in the currency's
smallest unit (its /chains decimals), rounded down where the venue shows more digits.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.chains import ChainCurrency, ChainInfo
from crossdeck.models.urls import url_where
from crossdeck.models.venue import (
    ClearinghouseState,
    SpotClearinghouseState,
    SpotMeta,
    to_units,
)
from crossdeck.models.venue_account import mode_note
from crossdeck.portfolio.model import ChainReading, Holding
from crossdeck.portfolio.rpc_chain import chain_label
from crossdeck.venue.client import VenueClient
from crossdeck.venue.currencies import place_label, venue_place

VIA_VENUE = "venue"


class VenueChainReader:
    family = "venue"

    def __init__(self, venue: VenueClient) -> None:
        self.venue = venue

    def where(self, chain: ChainInfo) -> str:
        return url_where(self.venue.base_url)

    async def read(self, chain: ChainInfo, owner: str) -> ChainReading:
        assert chain.id is not None
        name = chain_label(chain)
        where = self.where(chain)
        places = [(c, venue_place(c.address or "")) for c in chain.currencies]
        perps = [c for c, p in places if p is not None and p[0] == "perps"]
        spot = [c for c, p in places if p is not None and p[0] == "spot"]
        dexes = sorted({p[1] for _, p in places if p is not None and p[0] == "hip3"})
        reads: list[Any] = [
            self._mode(owner),
            self.venue.clearinghouse_state(owner) if perps else _nothing(),
            self._spot(owner) if spot else _nothing(),
            *(self.venue.clearinghouse_state(owner, dex) for dex in dexes),
        ]
        try:
            mode, perps_state, spot_state, *dex_states = await asyncio.gather(*reads)
        except CrossdeckError as exc:
            return ChainReading(chain.id, name, where, "", error=exc.message)
        by_dex: dict[str, ClearinghouseState] = dict(zip(dexes, dex_states, strict=True))
        holdings: list[Holding] = []
        # the mode first, as `venue balance` and the Venue screen say it (in a unified account
        # the perps rows read 0 and the spot USDC is the collateral, what can be withdrawn)
        notes: list[str] = [mode_note(mode)]
        for currency, place in places:
            if place is None or currency.decimals is None or not currency.address:
                continue
            kind, dex = place
            value: Decimal | None = None
            account_value: Decimal | None = None
            if kind == "perps" and perps_state is not None:
                value = perps_state.withdrawable
                summary = perps_state.margin_summary
                account_value = summary.account_value if summary is not None else None
            elif kind == "spot" and spot_state is not None:
                value = spot_total(spot_state, currency)
            elif kind == "hip3" and dex in by_dex:
                value = by_dex[dex].withdrawable
            if value is not None and value < 0:  # owed is not held: said, not shown as a row
                notes.append(
                    f"the venue answered a negative {place_label(kind, dex)} "
                    f"{currency.symbol or currency.address} balance ({value}), left out"
                )
                continue
            amount = to_units(value, currency.decimals) if value is not None else 0
            if amount or account_value:
                holdings.append(
                    Holding(
                        chain_id=chain.id,
                        currency=currency.address,
                        symbol=currency.symbol or "?",
                        decimals=currency.decimals,
                        amount=amount,
                        place=place_label(kind, dex),
                        account_value=account_value,
                    )
                )
        return ChainReading(chain.id, name, where, VIA_VENUE, tuple(holdings), notes=tuple(notes))

    async def _spot(self, owner: str) -> tuple[SpotMeta, SpotClearinghouseState]:
        meta, state = await asyncio.gather(
            self.venue.spot_meta(), self.venue.spot_clearinghouse_state(owner)
        )
        return meta, state

    async def _mode(self, owner: str) -> str | None:
        """The account's mode; None when the venue does not answer it, so the balances still
        show (read as standard, as the public UI kit falls back, and said so)."""
        try:
            return await self.venue.user_abstraction(owner)
        except CrossdeckError:
            return None


async def _nothing() -> None:
    return None


def spot_total(
    spot: tuple[SpotMeta, SpotClearinghouseState], currency: ChainCurrency
) -> Decimal | None:
    """The spot balance of the token whose id is the currency's address."""
    meta, state = spot
    wanted = (currency.address or "").lower()
    for balance in state.balances:
        token = meta.token_by_index(balance.token)
        if token is not None and token.token_id == wanted:
            return balance.total
    return None
