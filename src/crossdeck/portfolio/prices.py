"""USD prices from the service (`GET /currencies/token/price`), one request per held currency,
all at once. A price the service does not give stays missing and says why."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from decimal import Decimal

from crossdeck.api.client import ServiceClient
from crossdeck.base.errors import CrossdeckError
from crossdeck.portfolio.model import Holding


async def priced(service: ServiceClient, holdings: Sequence[Holding]) -> list[Holding]:
    answers = await asyncio.gather(
        *(service.token_price(h.chain_id, h.currency) for h in holdings), return_exceptions=True
    )
    out = []
    for holding, answer in zip(holdings, answers, strict=True):
        if isinstance(answer, Decimal):
            out.append(holding.priced(answer))
        elif isinstance(answer, CrossdeckError):
            out.append(holding.priced(None, f"the service gave no price: {answer.message}"))
        else:
            raise answer
    return out
