"""The screens' footer: the keys the focused widget and its screen offer, drawn as one line.

textual's Footer is a widget per key, each with two styled component parts, rebuilt after every
binding refresh (each focus change, each screen resume): about 20 widgets to style before a
screen's first frame, and ~20 ms per rebuild on History (bench/history_bench.py). This one is a
single widget that reads the bindings when it draws, so a change of keys costs one repaint. It
shows what textual's compact Footer shows: each key and its description, keys of a binding group
side by side before the group's name, disabled keys dimmed, a click runs the key, the pointer
lights a key and names it in the tooltip."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Any, ClassVar

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget

PALETTE_SEPARATOR = "▏"


@dataclass(frozen=True)
class FooterItem:
    """One run of the line: a key (clickable), or a group's name."""

    text: str
    key: str | None = None
    action: str = ""
    enabled: bool = True
    tooltip: str = ""
    part: str = "keys-footer--key"


class KeysFooter(Widget):
    # styled in app.tcss
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "keys-footer--key",
        "keys-footer--description",
        "keys-footer--hover",
        "keys-footer--separator",
    }

    def __init__(self, *, show_command_palette: bool = False) -> None:
        super().__init__()
        self.show_command_palette = show_command_palette
        self.hovered: FooterItem | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        if screen is self.screen:
            self.refresh()

    def items(self) -> list[FooterItem]:
        """What the line shows, left to right (the palette key last), one binding per action."""
        by_action: dict[str, tuple[Binding, bool, str]] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show:
                by_action.setdefault(binding.action, (binding, enabled, tooltip))
        items: list[FooterItem] = []
        for group, members_iter in groupby(by_action.values(), lambda m: m[0].group):
            members = list(members_iter)
            if group is not None and len(members) > 1:
                for index, (binding, enabled, tooltip) in enumerate(members):
                    # a compact group's keys touch; the others are a space apart
                    lead = "" if group.compact or index == 0 else " "
                    items.append(self._key(binding, enabled, tooltip or binding.description, lead))
                items.append(FooterItem(f" {group.description}", part="keys-footer--description"))
            else:
                for binding, enabled, tooltip in members:
                    items.append(self._key(binding, enabled, tooltip))
                    said = f" {binding.description}" if binding.description else ""
                    items.append(FooterItem(said, part="keys-footer--description"))
        return items

    def _key(self, binding: Binding, enabled: bool, tooltip: str, lead: str = "") -> FooterItem:
        return FooterItem(
            lead + self.app.get_key_display(binding), binding.key, binding.action, enabled, tooltip
        )

    def keys_shown(self) -> list[str]:
        """The keys on the line, left to right."""
        return [item.key for item in self.items() if item.key is not None]

    def width_needed(self) -> int:
        """Columns the keys take (the palette key apart): more than the width cuts the last."""
        spans = self._layout()
        return spans[-1][1] if spans else 0

    def _layout(self) -> list[tuple[int, int, FooterItem]]:
        """(first column, end column, item), with a space after each key's description."""
        spans, column = [], 0
        for item in self.items():
            spans.append((column, column + len(item.text), item))
            column += len(item.text)
            if item.part == "keys-footer--description":
                column += 1
        return spans

    def render(self) -> Content:
        parts: list[Content] = []
        column = 0
        for start, end, item in self._layout():
            if start > column:
                parts.append(Content(" " * (start - column)))
            part = "keys-footer--hover" if item == self.hovered and item.key else item.part
            text = Content.styled(item.text, self.get_visual_style(part))
            parts.append(text if item.enabled else text.stylize("dim"))
            column = end
        line = Content.assemble(*parts)
        palette = self._palette()
        if palette is not None:
            # docked right as textual's Footer docks it: a separator, the key and its
            # description, one column free
            key, _, said = palette.text.partition(" ")
            room = max(self.size.width - len(palette.text) - 2, 0)
            line = Content.assemble(
                line.truncate(room, pad=True),
                Content.styled(PALETTE_SEPARATOR, self.get_visual_style("keys-footer--separator")),
                Content.styled(key, self.get_visual_style("keys-footer--key")),
                Content.styled(f" {said} ", self.get_visual_style("keys-footer--description")),
            )
        return line.truncate(self.size.width)

    def _palette(self) -> FooterItem | None:
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return None
        found = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if found is None:
            return None
        _, binding, enabled, _ = found
        text = f"{self.app.get_key_display(binding)} {binding.description}"
        return FooterItem(
            text, binding.key, binding.action, enabled, binding.tooltip or binding.description
        )

    def item_at(self, x: int) -> FooterItem | None:
        palette = self._palette()
        if palette is not None and x >= self.size.width - len(palette.text) - 1:
            return palette
        return next((item for start, end, item in self._layout() if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self.item_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover(None)

    def _hover(self, item: FooterItem | None) -> None:
        item = item if item is not None and item.key is not None else None
        if item != self.hovered:
            self.hovered = item
            self.tooltip = item.tooltip or None if item is not None else None
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        item = self.item_at(event.x)
        if item is None or item.key is None:
            return
        event.stop()
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()
