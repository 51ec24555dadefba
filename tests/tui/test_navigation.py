"""Navigation and habits, from the keyboard against the demo world: F2 after a run shows a fresh
Quote form (so does the Venue screen's withdraw key), `?` opens the help outside text fields and
types inside them, `c` copies the request id to the app's clipboard, explorer links come from
/chains, every key is in the footer (alone or in a group), and a network wait that gets no
answer ends in an error that says what to do."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable, Input, Static
from tui_support import (
    chains_loaded,
    deposit_by_executor,
    event_from_json,
    load_fixture,
    make_app,
    notifications,
    screen_text,
    wait_until,
)

from crossdeck.config import ServiceSettings, Settings, VenueSettings
from crossdeck.execute import events as ev
from crossdeck.models import ChainsResponse, Quote, QuoteRequest
from crossdeck.tui import waits
from crossdeck.tui.app import CrossdeckApp
from crossdeck.tui.copy_links import tx_link
from crossdeck.tui.screens.base import ModeScreen
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.execute import ExecuteScreen
from crossdeck.tui.screens.help import HelpScreen, bindings_of
from crossdeck.tui.screens.quote import QuoteScreen
from crossdeck.tui.services import Secrets
from crossdeck.tui.widgets.footer import KeysFooter
from crossdeck.tui.widgets.picker import Picker

REALDATA = Path("/work/shared/realdata")
TX_HASH = "0x" + "ab" * 32


async def _run_native_deposit(pilot: Any) -> ExecuteScreen:
    """0.01 ETH from Base into the venue (the form's default route), confirmed, to its end."""
    app = pilot.app
    await chains_loaded(pilot)
    app.quote_screen.query_one("#amount", Input).value = "0.01"
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
    await pilot.press("ctrl+g")
    execute = await wait_until(
        pilot,
        lambda: next((s for s in app.screen_stack if isinstance(s, ExecuteScreen)), None),
        what="the Execute screen",
    )
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the dialog")
    await pilot.press("y")
    await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
    assert isinstance(execute.outcome, ev.Finished), execute.outcome
    assert execute.outcome.status == "success"
    return execute


async def test_f2_after_a_run_keeps_the_request_to_quote_again_and_c_copies_the_request_id(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        execute = await _run_native_deposit(pilot)
        request_id = execute.request_id
        assert request_id

        await pilot.press("c")
        assert app.clipboard == request_id

        # the explorer link of each transaction, from /chains (explorerUrl + explorerPaths)
        async with httpx.AsyncClient() as client:
            chains = (await client.get(f"{world.service_url}/chains")).json()["chains"]
        base = next(chain for chain in chains if chain["id"] == 8453)
        sent = [e for e in execute.events if isinstance(e, ev.TxSent)]
        path = base["explorerPaths"]["transaction"].replace("{TX_HASH}", sent[0].hash)
        links = execute.tx_links()
        assert links[0].hash == sent[0].hash
        assert links[0].url == base["explorerUrl"].rstrip("/") + path
        # the palette copies it ("Copy explorer link of transaction 0x…")
        copy_link = next(
            command
            for command in execute.palette_commands()
            if command.title.startswith("Copy explorer link of transaction")
        )
        copy_link.callback()
        assert app.clipboard == links[0].url

        await pilot.press("f3")
        await wait_until(pilot, lambda: app.current_mode == "venue", what="Venue")
        await pilot.press("f2")
        quote = await wait_until(
            pilot, lambda: isinstance(app.screen, QuoteScreen) and app.screen, what="the form"
        )
        # the request stays in the form, so that ctrl+r quotes the same move again
        assert quote.query_one("#amount", Input).value == "0.01"
        assert quote.quote is None
        status = str(quote.query_one("#quote-status", Static).render())
        assert f"Request {request_id} ended: success" in status
        assert "ctrl+r quotes it again" in status
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: quote.quote is not None, what="the same move quoted")
        assert quote.quote.request_id != request_id
        assert not any(isinstance(s, ExecuteScreen) for s in app.screen_stack)


def _replayed_run(app: Any) -> tuple[ExecuteScreen, list[Any]]:
    """The Execute screen of a deposit recorded from a real world, and the run's events (the
    last one: success) to replay on it."""
    data = load_fixture("run_deposit.json")
    screen = ExecuteScreen(
        QuoteRequest.from_body(data["request"]),
        Quote.from_wire(data["quote"]),
        app.quote_screen.chains,
        autostart=False,
    )
    return screen, [event_from_json(e) for e in data["events"]]


async def test_f2_on_an_ended_run_and_the_venue_withdraw_key_open_the_form(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        quote = app.quote_screen
        screen, events = _replayed_run(app)
        await app.push_screen(screen, callback=quote._executed)
        assert not screen.ended  # a run still going stays on top of the form
        await pilot.press("f3", "f2")
        await wait_until(pilot, lambda: app.current_mode == "quote", what="Quote")
        assert app.screen is screen

        for event in events:
            screen.apply(event)
        assert screen.ended
        await pilot.press("f2")  # on the ended run's own screen
        await wait_until(pilot, lambda: app.screen is quote, what="the form")

        second, events = _replayed_run(app)
        await app.push_screen(second, callback=quote._executed)
        for event in events:
            second.apply(event)
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.screen.data.get("spot") is not None, what="venue")
        app.screen.set_focus(None)
        await pilot.press("c")  # outside a text field: the venue account's address
        assert app.clipboard == world.wallet_address
        app.screen.query_one("#wd-amount", Input).value = "7"
        await pilot.press("ctrl+y")
        await wait_until(
            pilot,
            lambda: app.screen is quote and quote.form_values().amount == "7",
            what="the withdrawal in the form",
        )
        assert quote.form_values().origin_chain_id == 1337
        # and quotes it, as ctrl+r would
        await wait_until(
            pilot,
            lambda: quote.request is not None and quote.request.origin_chain_id == 1337,
            what="the withdrawal quoted",
        )


async def test_question_mark_opens_help_outside_text_fields_and_types_inside(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await chains_loaded(pilot)
        amount = app.quote_screen.query_one("#amount", Input)
        amount.focus()
        # "?" cannot be typed in an amount: there it opens the help, as outside text fields
        await pilot.press("1", "?")
        help_screen = await wait_until(
            pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen, what="the help"
        )
        await pilot.press("?")  # closes it again
        await wait_until(pilot, lambda: app.screen is not help_screen, what="help to close")
        assert amount.value == "1"

        (await app.quote_screen.open_options()).query_one("#trade-type", Picker).focus()
        await pilot.press("?")
        help_screen = await wait_until(
            pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen, what="the help"
        )
        table = help_screen.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert any(row[2] == "app.help.question" and row[1] == "?" for row in rows)
        await pilot.press("?")  # closes it again
        await wait_until(pilot, lambda: app.screen is not help_screen, what="help to close")
        # a free-text field still types it
        referrer = app.quote_screen.query_one("#referrer", Input)
        referrer.focus()
        await pilot.press("a", "?")
        assert referrer.value == "a?" and not isinstance(app.screen, HelpScreen)


# shown elsewhere: the screen tabs name F2-F7, the Settings screen's theme row and the palette
# the theme key (every key is in F1's help)
NOT_IN_FOOTER = {"app.goto.quote", "app.goto.venue", "app.goto.history", "app.goto.live",
                 "app.goto.settings", "app.goto.portfolio", "app.theme.next"}  # fmt: skip


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
async def test_every_key_of_every_screen_is_in_its_footer(
    world: Any, tui_dir: Path, size: tuple[int, int]
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=size) as pilot:
        await chains_loaded(pilot)
        for mode in ("quote", "venue", "history", "live", "settings", "portfolio"):
            await pilot.press({"quote": "f2", "venue": "f3", "history": "f4", "live": "f5",
                               "settings": "f6", "portfolio": "f7"}[mode])  # fmt: skip
            await wait_until(pilot, lambda m=mode: app.current_mode == m, what=mode)
            screen = app.screen
            assert isinstance(screen, ModeScreen)
            screen.set_focus(None)
            await pilot.pause(0.1)
            footer = screen.query_one(KeysFooter)
            await wait_until(pilot, lambda f=footer: f.keys_shown(), what="the footer")
            in_footer = {item.action for item in footer.items() if item.key is not None}
            for binding in bindings_of(screen) + bindings_of(app):
                if binding.id in NOT_IN_FOOTER:
                    continue
                assert binding.show, f"{mode}: {binding.id} is hidden from the footer"
                assert binding.action in in_footer, f"{mode}: {binding.id} is not in the footer"
            # and the footer fits: its last key is on screen (one line, nothing pushed off)
            assert footer.width_needed() <= app.size.width, f"{mode}: the footer overflows"


async def test_live_status_and_history_c_copy_the_selected_request_id(
    world: Any, tui_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request_id = await deposit_by_executor(world, tui_dir / "journal")
    app = make_app(world, tui_dir, start_mode="live")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.services.tracker is not None, what="the tracker")
        app.track_request(request_id)
        await wait_until(
            pilot, lambda: app.live.get(request_id) and app.live.get(request_id).final,
            what="its final status",
        )  # fmt: skip
        await pilot.press("c")
        assert app.clipboard == request_id
        links = app.screen.tx_links()
        origin = [link for link in links if link.chain_id == 8453]  # the venue has no explorer
        assert origin and all(link.url and link.hash in link.url for link in origin)

        app.copy_to_clipboard("")
        await pilot.press("f4")
        history = await wait_until(
            pilot,
            lambda: (
                app.current_mode == "history" and request_id in app.screen.feed.ids and app.screen
            ),
            what="the request in History",
        )
        history.query_one(DataTable).move_cursor(row=history.feed.ids.index(request_id))
        await pilot.press("c")
        assert app.clipboard == request_id
        # the palette's copies: the request id and the addresses, each transaction's link
        titles = [command.title for command in history.palette_commands()]
        assert "Copy request id" in titles and "Copy user address" in titles
        assert any(title.startswith("Copy explorer link of origin tx") for title in titles)

        # b where no browser can open (no display, no BROWSER: as in CI, headless, over SSH):
        # nothing claims to have opened, the link is copied and the notification says so
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
            monkeypatch.delenv(name, raising=False)
        from crossdeck.tui.copy_links import open_link

        origin_link = next(link for link in history.tx_links() if link.chain_id == 8453)
        assert origin_link.url
        open_link(app, origin_link, "")
        await pilot.pause()
        assert app.clipboard == origin_link.url
        said = [m for _, m, _ in notifications(app) if "no browser can open here" in m]
        assert said and "the link is copied" in said[0] and "opened" not in said[0]
        # the venue leg: /chains gives the demo venue no explorer, so b copies its hash
        latest = history.tx_links()[-1]
        assert latest.chain_id == 1337 and latest.url is None
        await pilot.press("b")
        await pilot.pause()
        assert app.clipboard == latest.hash
        assert any("names no explorer for chain 1337" in m for _, m, _ in notifications(app))


def test_a_browser_opens_only_where_one_can() -> None:
    from crossdeck.tui.browser import can_open_browser

    assert not can_open_browser({}, "linux")  # headless: no display
    assert can_open_browser({"DISPLAY": ":0"}, "linux")
    assert can_open_browser({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert can_open_browser({"BROWSER": "firefox"}, "linux")
    assert can_open_browser({}, "darwin") and can_open_browser({}, "win32")
    assert not can_open_browser({"SSH_CONNECTION": "1.2.3.4 5 6.7.8.9 22"}, "darwin")


def test_an_explorer_link_from_the_public_chains_answer() -> None:
    """The recorded public /chains answer: explorerUrl without explorerPaths gives /tx/<hash>;
    with explorerPaths.transaction its template is filled."""
    answer = json.loads((REALDATA / "chains/docs-quickstart-2026-07-21-1.json").read_text())
    chains = ChainsResponse.from_wire(answer)
    chain = answer["chains"][0]
    assert chain.get("explorerPaths") is None
    link = tx_link(chains, "origin tx", chain["id"], TX_HASH)
    assert link.url == f"{chain['explorerUrl'].rstrip('/')}/tx/{TX_HASH}"

    chain["explorerPaths"] = {"transaction": "/transactions/{txHash}?view=full"}
    templated = tx_link(ChainsResponse.from_wire(answer), "origin tx", chain["id"], TX_HASH)
    assert templated.url == f"{chain['explorerUrl'].rstrip('/')}/transactions/{TX_HASH}?view=full"
    assert tx_link(chains, "origin tx", 424242, TX_HASH).url is None  # a chain /chains lacks


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # closed again: nothing listens there


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server on 127.0.0.1 that accepts connections and never answers."""
    accepted: list[socket.socket] = []
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    stop = False

    def accept() -> None:
        while not stop:
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    import threading

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop = True
        thread.join(timeout=2)
        listener.close()
        for conn in accepted:
            conn.close()


def _offline_app(url: str, tui_dir: Path) -> Any:
    settings = Settings(
        profile="offline",
        service=ServiceSettings(url=url),
        venue=VenueSettings(url=url),
        rpc={8453: url},
        data_dir=tui_dir / "data",
    )
    wallet = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
    return CrossdeckApp(
        settings,
        secrets=Secrets(None, wallet),
        ui_state_file=tui_dir / "tui-state.json",
        user_themes=tui_dir / "themes",
        start_mode="venue",
    )


WAIT = 2.0


@pytest.mark.parametrize("server", ["closed port", "silent server"])
async def test_an_offline_venue_screen_ends_in_an_error_that_says_what_to_do(
    server: str, tui_dir: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.setattr(waits, "NETWORK_WAIT_SECONDS", WAIT)
    if server == "closed port":
        url = f"http://127.0.0.1:{_free_port()}"
    else:
        url = request.getfixturevalue("silent_server")
    app = _offline_app(url, tui_dir)
    async with app.run_test(size=(80, 24)) as pilot:

        def pane() -> str:  # the account pane itself, not a toast: the error stays there
            return " ".join(str(app.screen.query_one("#venue-account", Static).content).split())

        # a silent server is waited on to the limit; a refused port ends at the limit or, on
        # an idle machine, sooner, when the client's own retries give up: either says so
        await wait_until(
            pilot,
            lambda: "could not be read" in pane(),
            what="the venue's error",
            within=WAIT + 3,
        )
        said = pane()
        assert url in said and "→ check the" in said, said  # which service, and what to do
        assert "try again" in said, said
        if server == "silent server":
            assert "did not answer within 2 s" in said and "ctrl+r to try again" in said, said
        assert "Reading" not in said
        await wait_until(pilot, lambda: url in screen_text(app), what="the drawing")
        # the pickers say nothing was loaded, and ctrl+r asks again
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: pane().startswith("Reading"), what="retry")
