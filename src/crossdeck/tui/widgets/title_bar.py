"""The title row atop every screen: the app's icon (a click opens the command palette), then its
title and the profile and signer (`App.sub_title`) centred, ellipsed where the row is short.

One widget drawing the whole row: textual's Header composes an icon, a title and a clock space
for the same line, four widgets to style before every screen's first frame."""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widget import Widget

ICON = "◆"
# the row's parts, as textual's Header lays them out: the icon's cell, then the title centred
# in what the icon and an empty clock's place on the right leave
ICON_WIDTH = 8
RIGHT_WIDTH = 10


class TitleBar(Widget):  # styled in app.tcss
    def on_mount(self) -> None:
        if self.app.ENABLE_COMMAND_PALETTE:
            self.tooltip = "Click the icon to open the command palette"
        for owner in (self.app, self.screen):
            self.watch(owner, "title", self._retitle, init=False)
            self.watch(owner, "sub_title", self._retitle, init=False)

    def _retitle(self) -> None:
        self.refresh()

    def title_content(self) -> Content:
        """The screen's title and sub-title where it sets them, else the app's."""
        screen = self.screen
        title = screen.title if screen.title is not None else self.app.title
        sub_title = screen.sub_title if screen.sub_title is not None else self.app.sub_title
        return self.app.format_title(title, sub_title)

    def render(self) -> Content:
        width = self.size.width
        icon = Content(f" {ICON}").pad_right(ICON_WIDTH - 2)
        room = max(0, width - ICON_WIDTH - RIGHT_WIDTH)
        title = self.title_content().truncate(room, ellipsis=True)
        left = (room - title.cell_length) // 2
        title = title.pad_left(left).pad_right(room - title.cell_length - left)
        return Content.assemble(icon, title, " " * RIGHT_WIDTH).truncate(width)

    async def on_click(self, event: events.Click) -> None:
        if event.x < ICON_WIDTH and self.app.ENABLE_COMMAND_PALETTE:
            event.stop()
            await self.run_action("app.command_palette")
