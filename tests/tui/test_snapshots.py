"""SVG snapshots of every screen at 120x36, and of the Quote screen in each shipped theme.

Deterministic by construction: a world of this module's own (fresh balances, the same /chains),
a frozen clock, no focused text input (no blinking cursor), and for what carries random ids or
times (quotes, executor runs, request pages) the runs recorded in `fixtures/` from a real world
(see `fixtures/record_fixtures.py`), replayed through the same code paths the workers use.
Update after an intended change with `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from svg_text import cut_values, svg_lines
from textual.widgets import Input
from tui_support import (
    FROZEN_NOW,
    chains_loaded,
    event_from_json,
    load_fixture,
    make_app,
    screen_text,
    wait_until,
    world_settings,
)

from crossdeck.base.secret import Secret
from crossdeck.config import (
    ServiceSettings,
    Settings,
    TrackingSettings,
    VenueSettings,
    WorldInfo,
)
from crossdeck.history import summarize
from crossdeck.history.feed import FeedWindow
from crossdeck.models import Quote, QuoteRequest, RequestsPage
from crossdeck.track.updates import Source, StatusUpdate
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.execute import ExecuteScreen
from crossdeck.tui.screens.history_listing import RowsLoaded
from crossdeck.tui.services import Secrets

# every screen at the size the README suggests and at the smallest terminal it supports
Size = tuple[int, int]
SIZES = {"120x36": (120, 36), "80x24": (80, 24)}
# slow polling: nothing tracked in a snapshot may change it while it is taken
QUIET = TrackingSettings(poll_interval_seconds=60, poll_interval_cap_seconds=60)
SNAPSHOT_DIR = Path("/tmp/crossdeck-snapshot")


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return SIZES[request.param]


@pytest.fixture(scope="module")
def snap_world(start_world: Any) -> Iterator[Any]:
    with start_world("py-evm") as world:
        yield world


def _app(world: Any, tui_dir: Path, **options: Any) -> Any:
    options.setdefault("settings", world_settings(world, tui_dir, tracking=QUIET))
    return make_app(world, tui_dir, clock=lambda: FROZEN_NOW, **options)


def _run(name: str) -> tuple[QuoteRequest, Quote, list[Any]]:
    data = load_fixture(f"run_{name}.json")
    events = [event_from_json(e) for e in data["events"]]
    return QuoteRequest.from_body(data["request"]), Quote.from_wire(data["quote"]), events


async def _settle(pilot: Any) -> None:
    app = pilot.app
    # what the screens do after their next refresh (the Quote screen scrolls its amount into
    # view on a short pane) is done before the picture, not raced by it
    await pilot.pause(0.1)
    quote = getattr(app, "quote_screen", None)
    if quote is not None and quote.is_mounted:  # the balance beside Amount is read in a worker
        shortcuts = quote.query_one("#amount-shortcuts")
        await wait_until(pilot, lambda: not shortcuts.reading, what="the balance")
    app.set_focus(None)
    # a focused input's cursor blinks every 0.5 s: on a slow machine the picture caught it off
    for field in app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause(0.2)
    app.clear_notifications()
    await pilot.pause()


async def _show_quote(pilot: Any, name: str) -> None:
    await chains_loaded(pilot)
    request, quote, _ = _run(name)
    screen = pilot.app.quote_screen
    from crossdeck.tui.quote_form import QuoteFormValues

    screen.apply_values(
        QuoteFormValues(
            origin_chain_id=request.origin_chain_id,
            origin_currency=request.origin_currency,
            destination_chain_id=request.destination_chain_id,
            destination_currency=request.destination_currency,
            amount="25" if name == "deposit" else "10",
            recipient=request.recipient or "",
        )
    )
    screen.show_quote(request, quote, FROZEN_NOW - timedelta(seconds=7))
    # the funds check reads the world's balances in a worker: the picture waits for its line
    await wait_until(pilot, lambda: screen.funds is not None, what="the funds check")
    await _settle(pilot)


def test_quote_empty(snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size) -> None:
    async def ready(pilot: Any) -> None:
        await chains_loaded(pilot)
        await _settle(pilot)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=size, run_before=ready)


def test_quote_picker_open(snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size) -> None:
    """The destination currency's list (the venue's, the longest labels), filtered by "usdc"."""

    async def ready(pilot: Any) -> None:
        from crossdeck.tui.widgets.picker_list import PickerList

        app = pilot.app
        await chains_loaded(pilot)
        await _settle(pilot)
        app.quote_screen.query_one("#destination-currency").focus()
        await pilot.press("enter", *"usdc")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerList), what="the list")
        app.screen.query_one(Input).cursor_blink = False
        await pilot.pause(0.2)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=size, run_before=ready)


@pytest.mark.parametrize("theme", ["crossdeck-dark", "crossdeck-light", "crossdeck-high-contrast"])
def test_quote_with_a_quote_in_each_theme(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size, theme: str
) -> None:
    settings = world_settings(snap_world, tui_dir, tracking=QUIET, theme=theme)
    app = _app(snap_world, tui_dir, settings=settings)
    assert snap_compare(app, terminal_size=size, run_before=lambda p: _show_quote(p, "deposit"))


def test_quote_of_a_venue_withdrawal(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size
) -> None:
    app = _app(snap_world, tui_dir)
    assert snap_compare(app, terminal_size=size, run_before=lambda p: _show_quote(p, "withdrawal"))


def _replay(name: str, events_filter: Any = None) -> Any:
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        await chains_loaded(pilot)
        request, quote, events = _run(name)
        screen = ExecuteScreen(request, quote, app.quote_screen.chains, autostart=False)
        await app.push_screen(screen)
        for event in events_filter(events) if events_filter else events:
            screen.apply(event)
        await _settle(pilot)

    return run_before


def test_execute_deposit_to_success(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size
) -> None:
    app = _app(snap_world, tui_dir)
    assert snap_compare(app, terminal_size=size, run_before=_replay("deposit"))


def test_execute_withdrawal_to_success(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size
) -> None:
    app = _app(snap_world, tui_dir)
    assert snap_compare(app, terminal_size=size, run_before=_replay("withdrawal"))


def test_execute_refused_by_a_guard(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size
) -> None:
    from crossdeck.execute import events as ev
    from crossdeck.execute.guards import GuardRefused, check_quote, failures

    def refused(events: list[Any]) -> list[Any]:
        import httpx

        from crossdeck.models import ChainsResponse

        quote = Quote.from_wire(load_fixture("run_deposit.json")["quote"])
        chains = ChainsResponse.from_wire(httpx.get(f"{snap_world.service_url}/chains").json())
        results = check_quote(
            quote, wallet=snap_world.wallet_address, rpc_chain_ids={999}, chains=chains
        )
        error = GuardRefused(failures(results))
        return [
            ev.GuardsChecked(tuple(results)),
            ev.Failed(
                str(error), "GuardRefused", int(error.exit_code), quote.request_id, error.failures
            ),
        ]

    app = _app(snap_world, tui_dir)
    assert snap_compare(app, terminal_size=size, run_before=_replay("deposit", refused))


@pytest.mark.parametrize(("run", "index"), [("deposit", 3), ("withdrawal", 3), ("withdrawal", 7)])
def test_confirm_dialog(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size, run: str, index: int
) -> None:
    """The approve transaction, the NonceMapping and the SendAsset, each as confirmed."""

    async def run_before(pilot: Any) -> None:
        app = pilot.app
        await chains_loaded(pilot)
        request, quote, events = _run(run)
        screen = ExecuteScreen(request, quote, app.quote_screen.chains, autostart=False)
        await app.push_screen(screen)
        for event in events[: index + 1]:
            screen.apply(event)
        # as the Execute screen asks: with the move the signature is part of
        await app.push_screen(ConfirmScreen(events[index].what, move=screen._move()))
        await _settle(pilot)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=size, run_before=run_before)


def test_venue(snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size) -> None:
    async def ready(pilot: Any) -> None:
        app = pilot.app
        await wait_until(pilot, lambda: app.screen.data.get("spot") is not None, what="balances")
        await _settle(pilot)

    app = _app(snap_world, tui_dir, start_mode="venue")
    assert snap_compare(app, terminal_size=size, run_before=ready)


def test_history(snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size) -> None:
    async def ready(pilot: Any) -> None:
        app = pilot.app
        await wait_until(
            pilot,
            lambda: app.current_mode == "history" and "No requests match" in screen_text(app),
            what="the world's (empty) first page",
        )
        screen = app.screen
        page = RequestsPage.from_wire(load_fixture("requests_page.json"))
        rows = [summarize(record) for record in page.requests]
        screen.post_message(RowsLoaded(FeedWindow(rows, reset=True, has_more=False)))
        await wait_until(pilot, lambda: len(screen.feed.ids) == len(rows), what="the rows")
        await wait_until(
            pilot,
            lambda: "Child requests: none" in screen.query_one("#history-detail").text,
            what="the child lookup of the first row",
        )
        await _settle(pilot)

    app = _app(snap_world, tui_dir, start_mode="history")
    assert snap_compare(app, terminal_size=size, run_before=ready)


def board_of_recorded_runs(app: Any) -> None:
    """Live status's board holds the recorded runs' status changes (as polls and webhooks at
    fixed times) and what each sent and received: the quote's amounts, put in words by
    `history.came_back` as the service's record of them would be (the recorded requests are
    not in this world, so nothing reads them)."""
    from crossdeck.history.came_back import CameBack, moved_text

    start = FROZEN_NOW.timestamp()
    for offset, name in enumerate(["deposit", "withdrawal", "native"]):
        _, quote, events = _run(name)
        changes = [e for e in events if type(e).__name__ == "StatusChanged"]
        request_id = quote.request_id
        for step, change in enumerate(changes):
            source = Source.WEBHOOK if step % 2 else Source.POLL
            app.live.apply(
                StatusUpdate(
                    request_id=request_id,
                    status=change.status,
                    updated_at_ms=int((start + offset * 60 + step) * 1000),
                    source=source,
                    observed_at=start + offset * 60 + step + 0.4,
                    in_tx_hashes=change.in_tx_hashes,
                    tx_hashes=change.tx_hashes,
                    fail_reason=change.fail_reason,
                    refund_fail_reason=change.refund_fail_reason,
                    origin_chain_id=8453 if name != "withdrawal" else 1337,
                    destination_chain_id={"deposit": 1337, "withdrawal": 8453}.get(name, 999),
                    final=step == len(changes) - 1,
                )
            )
        tracked = app.live.get(request_id)
        details = quote.details
        tracked.came_back_read_at = tracked.status
        tracked.came_back = CameBack(
            sent=moved_text(details.currency_in), received=moved_text(details.currency_out), fees=()
        )
    app.live_changed.publish(None)


def test_live_status(snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size) -> None:
    async def ready(pilot: Any) -> None:
        app = pilot.app
        # the tracker has taken up what the board held at its start (the webhook line comes
        # after that): the recorded requests added now are not in this world, and a tracker
        # polling them would put its 404 in the picture, or not, by timing
        await wait_until(pilot, lambda: app.live.webhook_note, what="the tracker's start")
        board_of_recorded_runs(app)
        await _settle(pilot)

    # no API key: the webhook line says so (a receiver's port would differ per run)
    app = _app(
        snap_world, tui_dir, start_mode="live", secrets=Secrets(None, snap_world.wallet_address)
    )
    assert snap_compare(app, terminal_size=size, run_before=ready)


def settings_app(snap_world: Any, tui_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The Settings screen on fixed ports and paths (its picture shows them), in SNAPSHOT_DIR
    (emptied first; the caller empties it after)."""
    shutil.rmtree(SNAPSHOT_DIR, ignore_errors=True)
    monkeypatch.setenv("CROSSDECK_CONFIG", str(SNAPSHOT_DIR / "config.toml"))
    settings = Settings(
        profile="demo",
        service=ServiceSettings(url="http://127.0.0.1:8701"),
        venue=VenueSettings(url="http://127.0.0.1:8702"),
        rpc={8453: "http://127.0.0.1:8745", 999: "http://127.0.0.1:8799"},
        data_dir=SNAPSHOT_DIR / "data",
        tracking=QUIET,
        world=WorldInfo(
            file=SNAPSHOT_DIR / "world.json",
            wallet_address=snap_world.wallet_address,
            wallet_key=Secret(snap_world.wallet_key),
            api_key=Secret(snap_world.api_key),
        ),
    )
    return make_app(
        snap_world,
        tui_dir,
        settings=settings,
        start_mode="settings",
        clock=lambda: FROZEN_NOW,
        user_themes=SNAPSHOT_DIR / "themes",
    )


def test_settings(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = settings_app(snap_world, tui_dir, monkeypatch)

    async def ready(pilot: Any) -> None:
        await pilot.pause(0.2)
        await _settle(pilot)

    try:
        assert snap_compare(app, terminal_size=size, run_before=ready)
    finally:
        shutil.rmtree(SNAPSHOT_DIR, ignore_errors=True)


def test_help(snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size) -> None:
    async def ready(pilot: Any) -> None:
        await chains_loaded(pilot)
        await pilot.press("f1")
        await pilot.pause(0.2)
        await _settle(pilot)
        pilot.app.screen.query_one("DataTable").focus()
        await pilot.pause()

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=size, run_before=ready)


def test_keyring_unlock_dialog(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size
) -> None:
    from crossdeck.tui.screens.unlock import UnlockScreen

    async def ready(pilot: Any) -> None:
        await chains_loaded(pilot)
        await pilot.app.push_screen(
            UnlockScreen(Path("/home/trader/.local/share/crossdeck/keyring.cfg"))
        )
        await _settle(pilot)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=size, run_before=ready)


def test_quit_during_a_run_dialog(
    snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size
) -> None:
    from crossdeck.tui.screens.run_dialogs import QuitDuringRunScreen

    rid = load_fixture("run_native.json")["quote"]["steps"][0]["requestId"]

    async def ready(pilot: Any) -> None:
        await chains_loaded(pilot)
        await pilot.app.push_screen(QuitDuringRunScreen([rid], [rid]))
        await _settle(pilot)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=size, run_before=ready)


def test_resume_offer_dialog(snap_world: Any, tui_dir: Path, snap_compare: Any, size: Size) -> None:
    from crossdeck.execute.journal import RunRecord
    from crossdeck.tui.screens.run_dialogs import ResumeOfferScreen

    runs = []
    for name in ("native", "deposit"):
        data = load_fixture(f"run_{name}.json")
        rid = data["quote"]["steps"][0]["requestId"]
        runs.append(
            RunRecord(rid, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", data["quote"],
                      data["request"], {}, "tracking", None, None, 0.0, 0.0, sent=True)
        )  # fmt: skip

    async def ready(pilot: Any) -> None:
        await chains_loaded(pilot)
        await pilot.app.push_screen(ResumeOfferScreen(runs))
        await _settle(pilot)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=size, run_before=ready)


SNAPSHOTS = Path(__file__).parent / "__snapshots__" / Path(__file__).stem


def test_every_amount_balance_and_hash_in_the_snapshots_is_whole() -> None:
    """Read back as text, no snapshot cuts a number or a hash with an ellipsis ("500…",
    "0x8f3a…"); the short forms that keep both ends ("0xf39F…2266") are whole by design."""
    pictures = sorted(SNAPSHOTS.glob("*.svg"))
    assert {size for size in SIZES if any(f"[{size}" in p.name for p in pictures)} == set(SIZES)
    cut = {p.name: found for p in pictures if (found := cut_values(svg_lines(p)))}
    assert not cut, "\n".join(f"{name}:\n  " + "\n  ".join(v) for name, v in cut.items())


def test_the_cut_check_finds_a_cut_balance_and_a_cut_hash() -> None:
    lines = ["│ Perps withdrawable  500…   ││ 0xf39F…2266 │", "│ in tx 0xfd36cb…", "0x… id"]
    assert [found.split(": ")[1].split(" in ")[0] for found in cut_values(lines)] == [
        "'500…'",
        "'0xfd36cb…'",
    ]
