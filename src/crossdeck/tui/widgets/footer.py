"""The mode screens' footer: textual's Footer, rebuilt only when the keys it shows change.

textual's Footer rebuilds every key (a widget each, styled, and a virtual node per component
class of each, garbage the next full collection frees) after every binding refresh: each focus
change, each screen resume, each reactive declared with bindings=True. A screen's start makes
several such refreshes before its first frames, and each queued one more rebuild (four on
History, about 20 ms each, the last three after the first page had arrived, ahead of the
frame with its rows: bench/history_bench.py). This one rebuilds at most once per refresh of
the screen, and not at all when the keys it would show are the ones it shows."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    def __init__(self, *, compact: bool = False, show_command_palette: bool = True) -> None:
        super().__init__(compact=compact, show_command_palette=show_command_palette)
        self._rebuild_queued = False
        self._keys_shown: tuple[Any, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return  # as Footer: a refresh comes when the app has the focus again
        if self.is_attached and screen is self.screen and not self._rebuild_queued:
            self._rebuild_queued = True
            self.call_after_refresh(self._rebuild)

    def _keys(self) -> tuple[Any, ...]:
        """What the footer's compose reads: each binding it may show, enabled or not, with its
        tooltip (Binding is a frozen dataclass: a changed key, text or group compares unequal)."""
        palette = self.app.COMMAND_PALETTE_BINDING if self.show_command_palette else None
        return tuple(
            (key, binding, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == palette
        )

    async def _rebuild(self) -> None:
        self._rebuild_queued = False
        if not self.is_attached:
            return
        keys = self._keys()
        if keys == self._keys_shown:
            return
        self._keys_shown = keys
        await self.recompose()
