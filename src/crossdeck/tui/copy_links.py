"""Copy and explorer links, the same on every screen that shows a request: `c` copies what the
screen has in focus (a request id, hash or address) through Textual's clipboard (OSC 52, so it
reaches the terminal's clipboard over ssh too), `b` opens the explorer page of its transaction
in the system browser, and the palette lists a "Copy …" and an "Open … in the explorer" for
each id, hash and link the screen knows. Links are built from `/chains` (`explorerUrl`,
`explorerPaths`) by `crossdeck.history.ExplorerLinks`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual.app import App, SystemCommand
from textual.binding import Binding

from crossdeck.models.text import short

if TYPE_CHECKING:
    from textual.screen import Screen

    from crossdeck.models import ChainsResponse

# "cb Copy/open" in the footer
COPY_GROUP = Binding.Group("Copy/open", compact=True)


def copy_binding(screen_id: str, what: str) -> Binding:
    return Binding(
        "c",
        "copy",
        "Copy",
        id=f"{screen_id}.copy",
        group=COPY_GROUP,
        tooltip=f"Copy {what} to the clipboard (the palette, ctrl+p, copies the others)",
    )


def explorer_binding(screen_id: str, what: str) -> Binding:
    return Binding(
        "b",
        "explorer",
        "Explorer",
        id=f"{screen_id}.explorer",
        group=COPY_GROUP,
        tooltip=f"Open {what} in the block explorer (system browser); the palette copies links",
    )


@dataclass(frozen=True)
class Copyable:
    """Something a screen can copy: its words ('request id') and its text."""

    what: str
    text: str


@dataclass(frozen=True)
class TxLink:
    """A transaction with its explorer page (url None: /chains names no explorer for it)."""

    what: str
    chain_id: int | None
    hash: str
    url: str | None


def tx_link(chains: ChainsResponse | None, what: str, chain_id: int | None, tx: str) -> TxLink:
    """The explorer link of `tx` on `chain_id`, from /chains."""
    from crossdeck.history import ExplorerLinks

    url = ExplorerLinks(chains).tx_url(chain_id, tx) if chains is not None else None
    return TxLink(what, chain_id, tx, url)


def copy_text(app: App[object], item: Copyable | None, nothing: str) -> None:
    """Put `item` on the clipboard and say so; `nothing` says why there is nothing to copy."""
    if item is None:
        app.notify(nothing, title="Copy", severity="warning")
        return
    app.copy_to_clipboard(item.text)
    app.notify(f"{item.what} copied: {item.text}", title="Copy", timeout=4)


def open_link(app: App[object], link: TxLink | None, nothing: str) -> None:
    """Open `link` in the system browser where one can open; else copy it, and say which."""
    if link is None:
        app.notify(nothing, title="Explorer", severity="warning")
        return
    if link.url is None:
        app.notify(
            f"/chains names no explorer for chain {link.chain_id}; the hash is copied instead",
            title="Explorer",
            severity="warning",
        )
        copy_text(app, Copyable(link.what, link.hash), "")
        return
    from crossdeck.tui.browser import open_in_browser

    if open_in_browser(link.url):
        app.notify(f"opened in your browser: {link.url}", title="Explorer", timeout=4)
        return
    # headless, over SSH, or no browser found: nothing opened, so the link is what the user gets
    app.copy_to_clipboard(link.url)
    app.notify(
        f"no browser can open here; the link is copied: {link.url}",
        title="Explorer",
        timeout=8,
    )


def palette_commands(
    app: App[object], items: Iterable[Copyable], links: Iterable[TxLink]
) -> Iterable[SystemCommand]:
    """A "Copy …" for each item and link, an "Open … in the explorer" for each link."""

    def copier(item: Copyable) -> Callable[[], None]:
        return lambda: copy_text(app, item, "")

    def opener(link: TxLink) -> Callable[[], None]:
        return lambda: open_link(app, link, "")

    for item in items:
        yield SystemCommand(f"Copy {item.what}", short(item.text, 10, 8), copier(item))
    for link in links:
        label = f"{link.what} {short(link.hash, 8, 6)}"
        yield SystemCommand(
            f"Copy {label}", "the transaction hash", copier(Copyable(link.what, link.hash))
        )
        if link.url:
            yield SystemCommand(
                f"Copy explorer link of {label}",
                link.url,
                copier(Copyable(f"explorer link of {link.what}", link.url)),
            )
            yield SystemCommand(f"Open {label} in the explorer", link.url, opener(link))


class CopiesAndLinks:
    """`c`, `b` and the palette's copies for a screen (mixed into it): the screen says what it
    can copy (`copyables`, the first is what `c` copies) and which transactions it can link
    (`tx_links`, `b` opens the latest), and the words for when there is nothing yet."""

    NOTHING_TO_COPY: ClassVar[str] = "there is nothing to copy here yet"
    NO_TRANSACTION: ClassVar[str] = "there is no transaction yet"

    def copyables(self) -> list[Copyable]:
        return []

    def tx_links(self) -> list[TxLink]:
        return []

    @property
    def _app(self) -> App[object]:
        app: App[object] = cast("Screen[Any]", self).app
        return app

    def action_copy(self) -> None:
        items = self.copyables()
        copy_text(self._app, items[0] if items else None, self.NOTHING_TO_COPY)

    def action_explorer(self) -> None:
        links = self.tx_links()
        open_link(self._app, links[-1] if links else None, self.NO_TRANSACTION)

    def copy_commands(self) -> Iterable[SystemCommand]:
        return palette_commands(self._app, self.copyables(), self.tx_links())
