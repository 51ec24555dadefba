"""What the mode screens ask of the app that hosts them, as a protocol.

The screens are imported by the app (it builds one per mode), so naming the app class in the
screens would make the two modules import each other; `CrossdeckApp` satisfies this protocol
structurally, and mypy checks that it does wherever the app hands itself to a screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from textual.signal import Signal
    from textual.worker import Worker

    from crossdeck.config import Settings
    from crossdeck.tui.live import LiveBoard
    from crossdeck.tui.quote_form import QuoteFormValues
    from crossdeck.tui.services import Services
    from crossdeck.tui.themes import ThemeCatalog

Clock = Callable[[], datetime]


class CrossdeckHost(Protocol):
    settings: Settings
    services: Services
    clock: Clock
    services_ready: asyncio.Event
    first_screen_settled: asyncio.Event
    live: LiveBoard
    live_changed: Signal[str | None]
    secrets_loaded: Signal[None]
    wallet_changed: Signal[str | None]
    pending_prefill: QuoteFormValues | None
    pending_prefill_quotes: bool
    quote_screen: Any
    config_path: Path
    user_theme_dir: Path
    theme_catalog: ThemeCatalog

    async def ensure_keyring_unlocked(self) -> None: ...
    def track_request(self, request_id: str) -> None: ...
    def forget_unsent(self, request_id: str) -> None: ...
    def untrack_request(self, request_id: str) -> None: ...
    def first_frame(self) -> None: ...
    def show_error(self, error: BaseException, doing: str | None = None) -> None: ...
    def report_worker_state(self, event: Worker.StateChanged) -> None: ...
    def theme_names(self) -> list[str]: ...
    def prefill_quote(self, values: QuoteFormValues, *, quote: bool = True) -> None: ...
    def refresh_sub_title(self) -> None: ...
    def connect_browser_wallet(self) -> Any: ...
    def recent_recipients(self, family: str) -> list[str]: ...
    def remember_recipient(self, family: str, address: str) -> None: ...
