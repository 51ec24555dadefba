"""Typed messages the workers post back to their screens."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from crossdeck.models import ChainsResponse, Quote, QuoteRequest


class ChainsLoaded(Message):
    def __init__(self, chains: ChainsResponse) -> None:
        super().__init__()
        self.chains = chains


class QuoteReady(Message):
    def __init__(self, request: QuoteRequest, quote: Quote, fetched_at: datetime) -> None:
        super().__init__()
        self.request = request
        self.quote = quote
        self.fetched_at = fetched_at


class VenueLoaded(Message):
    """Balances of the venue account (any member may be None when its read failed)."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__()
        self.data = data


class ExecutionEvent(Message):
    """One event of the executor (crossdeck.execute), in the order it happened."""

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event
