"""Pilot test helpers: an app on a world, waiting for conditions, reading the screen."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input

from crossdeck.config import Settings, load_settings
from crossdeck.tui.app import CrossdeckApp
from crossdeck.tui.services import Secrets
from helpers import waiting

FROZEN_NOW = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)


def write_world_file(world: Any, directory: Path) -> Path:
    path = directory / "world.json"
    path.write_text(json.dumps(world.info))
    return path


def world_settings(world: Any, directory: Path, **changes: Any) -> Settings:
    """Settings of the demo profile on `world` (config from CROSSDECK_CONFIG, see conftest)."""
    settings = load_settings(None, write_world_file(world, directory))
    return dataclasses.replace(settings, **changes) if changes else settings


def world_secrets(world: Any) -> Secrets:
    from crossdeck.base.secret import Secret

    return Secrets(Secret(world.api_key), world.wallet_address)


def make_app(world: Any, directory: Path, **options: Any) -> CrossdeckApp:
    settings = options.pop("settings", None) or world_settings(world, directory)
    options.setdefault("secrets", world_secrets(world))
    options.setdefault("ui_state_file", directory / "tui-state.json")
    options.setdefault("user_themes", directory / "themes")
    return CrossdeckApp(settings, **options)


def screen_text(app: App[Any]) -> str:
    """What the terminal shows now, as plain text lines."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips)


async def settled_text(pilot: Pilot[Any], *, within: float = 5.0) -> str:
    """`screen_text` once the frame has stopped changing: two reads a pause apart that agree.
    What a test waited for (an outcome, a reading, a widget's text) is drawn on a later turn
    (a DataTable lays out its new rows on an idle turn), and a loaded machine can show the frame
    before it: a single read right after the wait is not yet the screen the user sees."""
    app = pilot.app
    end = time.monotonic() + within
    seen = screen_text(app)
    while True:
        await pilot.pause()
        now = screen_text(app)
        if now == seen or time.monotonic() > end:
            return now
        seen = now


async def wait_until(
    pilot: Pilot[Any],
    condition: Callable[[], Any],
    *,
    what: str,
    within: float = 20.0,
    step: float = 0.05,
) -> Any:
    """The one `helpers.waiting.wait_until`, run by the app's pilot (oterm-style, instead of
    bare sleeps): a widget not mounted yet counts as not yet, and a timeout shows the screen."""

    def screen() -> str:
        notes = "\n".join(f"{n.title}: {n.message}" for n in pilot.app._notifications)
        return f"--- screen ---\n{screen_text(pilot.app)}\n--- notifications ---\n{notes}"

    return await waiting.wait_until(
        condition,
        what,
        within=within,
        step=step,
        pause=pilot.pause,
        tolerate=(Exception,),
        context=screen,
    )


def notifications(app: App[Any]) -> list[tuple[str, str, str]]:
    return [(n.title, n.message, n.severity) for n in app._notifications]


async def quote_and_execute(pilot: Pilot[Any], amount: str | None = None) -> Any:
    """On the Quote screen: (type `amount`,) quote with ctrl+r, execute with ctrl+g; the
    Execute screen."""
    from crossdeck.tui.screens.execute import ExecuteScreen

    app: Any = pilot.app
    await wait_until(pilot, lambda: app.current_mode == "quote", what="the Quote screen")
    if amount is not None:
        await chains_loaded(pilot)
        app.quote_screen.query_one("#amount", Input).value = amount
    await pilot.pause(0.2)
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
    await pilot.press("ctrl+g")
    return await wait_until(
        pilot,
        lambda: next((s for s in app.screen_stack if isinstance(s, ExecuteScreen)), None),
        what="the Execute screen",
    )


async def chains_loaded(pilot: Pilot[Any]) -> None:
    app = pilot.app
    await wait_until(
        pilot,
        lambda: app.quote_screen is not None and app.quote_screen.chains is not None,  # type: ignore[attr-defined]
        what="the Quote screen to load /chains",
    )


def read_text(path: Path) -> str:
    """A small file's text (sync on purpose: test files are tiny)."""
    return path.read_text()


FIXTURES = Path(__file__).parent / "fixtures"


def load_fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def event_from_json(data: dict[str, Any]) -> Any:
    """An executor event back from its `to_json()` (the recorded runs replay through this)."""
    import dataclasses

    from crossdeck.execute import events as ev
    from crossdeck.execute.describe import Line
    from crossdeck.execute.guards import GuardResult

    fields = dict(data)
    cls = getattr(ev, fields.pop("event"))

    def convert(name: str, value: Any) -> Any:
        if name in ("results", "failures", "guards"):
            return tuple(GuardResult(**r) for r in value)
        if name == "children":
            return tuple(ev.ChildRequest.from_json(child) for child in value)
        if name == "refund" and value is not None:
            from crossdeck.execute.refund import RefundPaid

            return RefundPaid.from_json(value)
        if name == "came_back" and value is not None:
            from crossdeck.history.came_back import CameBack

            return CameBack.from_json(value)
        if name == "what":
            what = {k: convert(k, v) for k, v in value.items()}
            return ev.SignRequest(**what)
        if name == "lines":  # the describer's lines (plain text in runs recorded before them)
            return tuple(
                Line(**line) if isinstance(line, dict) else Line("", line) for line in value
            )
        if isinstance(value, list):
            return tuple(value)
        return value

    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: convert(k, v) for k, v in fields.items() if k in names})


async def deposit_by_executor(world: Any, journal_dir: Path) -> str:
    """A real native deposit into the venue, run by the executor (no UI); its request id."""
    from crossdeck.api.client import ServiceClient
    from crossdeck.base.secret import Secret
    from crossdeck.execute import events as ev
    from crossdeck.execute.executor import Collaborators, Executor, approve_all
    from crossdeck.execute.gateways import GatewayPool
    from crossdeck.execute.journal import Journal
    from crossdeck.models import QuoteRequest
    from crossdeck.track.tracker import StatusTracker
    from crossdeck.venue.client import VenueClient
    from crossdeck.wallet.signer import Signer
    from crossdeck.wallet.signers import KeySigner

    service = ServiceClient(world.service_url, api_key=world.api_key)
    venue = VenueClient(world.venue_url)
    request = QuoteRequest.from_body(
        {
            "user": world.wallet_address,
            "originChainId": 8453,
            "destinationChainId": 1337,
            "originCurrency": "0x" + "0" * 40,
            "destinationCurrency": "0x" + "0" * 32,
            "amount": str(10**16),
            "tradeType": "EXACT_INPUT",
        }
    )
    quote = await service.quote(request)
    executor = Executor(
        Collaborators(
            service,
            venue,
            KeySigner(Signer(Secret(world.wallet_key))),
            GatewayPool(dict(world.rpc)),
            Journal(journal_dir / "journal.sqlite3"),
            follower := StatusTracker(service),
        ),
        confirm=approve_all,
    )
    try:
        events = [event async for event in executor.run(quote, request=request)]
    finally:
        await executor.aclose()
        await follower.aclose()
        executor.journal.close()
        await service.aclose()
        await venue.aclose()
    assert isinstance(events[-1], ev.Finished) and events[-1].status == "success", events[-1]
    return events[-1].request_id


async def open_options(pilot: Pilot[Any]) -> Any:
    """Open the Quote form's options (ctrl+l) and wait until their fields are filled."""
    options = await pilot.app.quote_screen.open_options()
    await pilot.pause()
    return options


async def pick(pilot: Pilot[Any], selector: str, typed: str) -> None:
    """Choose in a picker as a trader does: focus it, type the name (which opens its list
    filtered), Enter on the best match; returns once the list is closed."""
    from crossdeck.tui.widgets.picker import Picker
    from crossdeck.tui.widgets.picker_list import PickerList

    app = pilot.app
    picker = app.screen.query_one(selector, Picker)
    picker.focus()
    await pilot.pause()
    await pilot.press("enter", *typed)
    await wait_until(
        pilot,
        lambda: (
            isinstance(app.screen, PickerList)
            and app.screen.query_one("#picker-filter", Input).value == typed
        ),
        what=f"the list of {selector} filtered by {typed!r}",
    )
    await pilot.press("enter")
    await wait_until(
        pilot, lambda: not isinstance(app.screen, PickerList), what=f"{selector}'s list to close"
    )


async def watch_read_only(pilot: Pilot[Any], address: str) -> None:
    """In Settings (F6), switch the signer to a read-only `address` as a trader does (the
    picker, the address, Enter); the caller waits for what it expects of the switch."""
    await pilot.press("f6")
    await wait_until(pilot, lambda: "Signer" in screen_text(pilot.app), what="Settings")
    await pick(pilot, "#signer-select", "read-only")
    field = pilot.app.screen.query_one("#signer-value", Input)
    field.value = address
    field.focus()
    await pilot.press("enter")
