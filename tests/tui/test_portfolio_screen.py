"""The Portfolio screen (F7): snapshots at 120x36 and 80x24 (and with a chain that does not
answer), opening an asset to its chains, `m` starting a quote from a row, ctrl+r, and a new
reading when a followed request ends."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tui_support import FROZEN_NOW, make_app, screen_text, settled_text, wait_until, world_settings

from crossdeck.config import TrackingSettings
from crossdeck.track.updates import Source, StatusUpdate
from helpers.funding import send_from_demo

SIZES = {"120x36": (120, 36), "80x24": (80, 24)}
QUIET = TrackingSettings(poll_interval_seconds=60, poll_interval_cap_seconds=60)
DEAD_RPC = "http://127.0.0.1:9"


@pytest.fixture(scope="module")
def folio_world(start_world: Any) -> Iterator[Any]:
    """A world of this module's own: the snapshots show its fresh balances."""
    with start_world("py-evm") as world:
        yield world


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return SIZES[request.param]


def _app(world: Any, tui_dir: Path, **changes: Any) -> Any:
    settings = world_settings(world, tui_dir, tracking=QUIET, **changes)
    return make_app(
        world, tui_dir, settings=settings, clock=lambda: FROZEN_NOW, start_mode="portfolio"
    )


async def _read(pilot: Any) -> Any:
    app = pilot.app
    await wait_until(pilot, lambda: app.screen.portfolio is not None, what="the portfolio")
    return app.screen


async def _settle(pilot: Any) -> None:
    await pilot.pause(0.1)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_portfolio(folio_world: Any, tui_dir: Path, snap_compare: Any, size: Any) -> None:
    async def ready(pilot: Any) -> None:
        screen = await _read(pilot)
        screen.expanded = {"USDC", "ETH"}  # one asset on seven rows, one on two
        screen.render_rows()
        await _settle(pilot)

    assert snap_compare(_app(folio_world, tui_dir), terminal_size=size, run_before=ready)


def test_portfolio_with_a_chain_unreachable(
    folio_world: Any, tui_dir: Path, snap_compare: Any
) -> None:
    rpc = {8453: folio_world.rpc[8453], 999: DEAD_RPC}

    async def ready(pilot: Any) -> None:
        await _read(pilot)
        await _settle(pilot)

    app = _app(folio_world, tui_dir, rpc=rpc)
    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


async def test_the_rows_are_the_chains_and_an_unreachable_one_says_where(
    folio_world: Any, tui_dir: Path
) -> None:
    rpc = {8453: folio_world.rpc[8453], 999: DEAD_RPC}
    app = _app(folio_world, tui_dir, rpc=rpc)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _read(pilot)
        text = await settled_text(pilot)
        assert "Total $" in text and "4 of 5 chains read · 1 unreachable" in text
        assert "HyperEVM (999)" in text and f"unreachable at {DEAD_RPC}" in text
        # Base and the venue still render (ETH is on Base and the world's Eclipse: opened)
        screen.expanded = {"ETH"}
        screen.render_rows()
        await _settle(pilot)
        assert "Base (8453)" in (await settled_text(pilot))
        assert "unreachable:999" in screen.rows


async def test_enter_opens_an_asset_and_m_starts_a_quote_from_a_chain(
    folio_world: Any, tui_dir: Path
) -> None:
    app = _app(folio_world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _read(pilot)
        keys = list(screen.rows)
        assert (
            "asset:USDC" in keys
            and "holding:8453:" + folio_world.chains[8453].usdc.lower() not in keys
        )
        table = screen.query_one("#portfolio-table")
        table.focus()
        table.move_cursor(row=keys.index("asset:USDC"))
        await pilot.press("enter")
        usdc_on_base = "holding:8453:" + folio_world.chains[8453].usdc.lower()
        await wait_until(pilot, lambda: usdc_on_base in screen.rows, what="USDC's chains")
        assert "holding:1337:0x00000000000000000000000000000000" in screen.rows
        table.move_cursor(row=list(screen.rows).index(usdc_on_base))
        await pilot.pause()
        detail = str(screen.query_one("#portfolio-detail").render())
        assert "100000 USDC exactly (100000000000) of" in detail
        await pilot.press("m")
        await wait_until(pilot, lambda: app.current_mode == "quote", what="the Quote screen")
        await wait_until(
            pilot,
            lambda: (
                app.quote_screen is not None
                and app.quote_screen.form_values().origin_currency == folio_world.chains[8453].usdc
            ),
            what="the origin filled in",
        )
        assert app.quote_screen.form_values().origin_chain_id == 8453


async def test_a_followed_request_that_ends_reads_the_portfolio_again(
    folio_world: Any, tui_dir: Path
) -> None:
    app = _app(folio_world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _read(pilot)
        first = screen.portfolio
        # the wallet's ETH on Base moves (as a run's deposit would) ...
        await asyncio.to_thread(
            asyncio.run,
            send_from_demo(folio_world, 8453, {"to": "0x" + "42" * 20, "value": 10**17}),
        )
        rid = "0x" + "ab" * 32
        app.track_request(rid)
        assert screen.portfolio is first
        # ... and the run's request ends: the screen reads again
        app.live.apply(
            StatusUpdate(
                request_id=rid,
                status="success",
                updated_at_ms=1,
                source=Source.POLL,
                observed_at=1.0,
                in_tx_hashes=[],
                tx_hashes=[],
                fail_reason=None,
                refund_fail_reason=None,
                origin_chain_id=8453,
                destination_chain_id=999,
                final=True,
            )
        )
        app.live_changed.publish(rid)
        await wait_until(pilot, lambda: screen.portfolio is not first, what="a new reading")
        eth = lambda p: next(h for h in p.holdings if h.chain_id == 8453 and h.symbol == "ETH")  # noqa: E731
        assert eth(screen.portfolio).amount < eth(first).amount - 10**17 + 1
        # ctrl+r reads again too
        second = screen.portfolio
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.portfolio is not second, what="ctrl+r")


async def test_at_80x24_enter_closes_an_asset_and_m_moves_a_venue_row(
    folio_world: Any, tui_dir: Path
) -> None:
    app = _app(folio_world, tui_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _read(pilot)
        table = screen.query_one("#portfolio-table")
        table.focus()
        table.move_cursor(row=list(screen.rows).index("asset:USDC"))
        # m on an asset held on several chains says which row to pick, and stays
        await pilot.press("m")
        await pilot.pause()
        assert app.current_mode == "portfolio"
        await pilot.press("enter")
        perps = "holding:1337:0x00000000000000000000000000000000"
        await wait_until(pilot, lambda: perps in screen.rows, what="USDC's chains")
        # enter on one of its chains closes the asset again, the cursor back on it
        table.move_cursor(row=list(screen.rows).index(perps))
        await pilot.press("enter")
        await wait_until(pilot, lambda: perps not in screen.rows, what="USDC closed")
        assert screen._cursor_key() == "asset:USDC"
        await pilot.press("enter")
        await wait_until(pilot, lambda: perps in screen.rows, what="USDC opened again")
        table.move_cursor(row=list(screen.rows).index(perps))
        await pilot.pause()
        detail = str(screen.query_one("#portfolio-detail").render())
        assert "Venue (1337) perps" in detail and "account value $" in detail
        await pilot.press("m")
        await wait_until(pilot, lambda: app.current_mode == "quote", what="the Quote screen")
        await wait_until(
            pilot,
            lambda: (
                app.quote_screen is not None
                and app.quote_screen.form_values().origin_chain_id == 1337
            ),
            what="the venue as the origin",
        )
        assert app.quote_screen.form_values().origin_currency == perps.split(":")[2]


async def test_prices_that_do_not_come_leave_the_rows_read_with_no_price(
    folio_world: Any, tui_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service holding every price past the app's network wait: the chains' rows still
    show, each without a price and left out of the total, within that wait (not one error for
    the whole screen)."""
    from crossdeck.tui import waits

    monkeypatch.setattr(waits, "NETWORK_WAIT_SECONDS", 2.0)
    folio_world.faults.inject("slow", 50, path="/currencies/token/price", delay=6.0)
    app = _app(folio_world, tui_dir)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await _read(pilot)
            text = await settled_text(pilot)
            assert "could not be read" not in text
            held = screen.portfolio.holdings
            assert held and all(h.price_usd is None for h in held)
            assert "Total $0.00" in text and f"{len(held)} without a price" in text
            assert "Base (8453)" in text or "▸ USDC" in text
    finally:
        folio_world.faults.clear()


async def test_a_signer_change_drops_the_last_wallets_numbers_and_reads_the_new_ones(
    folio_world: Any, tui_dir: Path
) -> None:
    """Issue 35 point 1: the numbers shown are always the current wallet's, named and dated;
    a read-only address is read alone (no Solana wallet of the profile's added)."""
    from helpers.funding import fund, new_address

    watched = new_address()
    await asyncio.to_thread(asyncio.run, fund(folio_world, watched, native={8453: 3 * 10**18}))
    app = _app(folio_world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _read(pilot)
        demo = app.services.wallet_address
        total = str(screen.query_one("#portfolio-total").render())
        assert total.startswith(f"{demo[:6]}…{demo[-4:]} · Total $") and "read just now" in total
        assert "svm" in screen.owners  # the profile's own Solana wallet, with its EVM one

        await app.services.use_signer({"kind": "read-only", "address": watched})
        app.refresh_sub_title()
        # at once, before anything is read: nothing of the last wallet stays on screen
        assert screen.portfolio is None and not screen.rows
        assert "Reading 0x" in str(screen.query_one("#portfolio-total").render())
        await wait_until(pilot, lambda: screen.portfolio is not None, what="the new reading")
        assert screen.owners == {"evm": watched, "venue": watched}
        assert screen.portfolio.owner == watched
        held = {(h.chain_id, h.symbol): h.amount for h in screen.portfolio.holdings}
        assert held == {(8453, "ETH"): 3 * 10**18}
        total = str(screen.query_one("#portfolio-total").render())
        assert total.startswith(f"{watched[:6]}…{watched[-4:]} · Total $9,000.00")

        # and back: the keyed wallet's own numbers again, never the read-only ones under it
        await app.services.use_signer({"kind": "keyring"})
        app.refresh_sub_title()
        await wait_until(
            pilot,
            lambda: screen.portfolio is not None and screen.portfolio.owner == demo,
            what="the demo wallet's reading",
        )
        assert str(screen.query_one("#portfolio-total").render()).startswith(demo[:6])


async def test_the_account_mode_note_never_pushes_usd_off_at_any_size(
    folio_world: Any, tui_dir: Path
) -> None:
    """The venue's mode is a note row (a standard account here); its sentence is folded on two
    lines of the figures' width in the amount column, cut there and whole in the line under the
    table, so that the USD column stays on screen at 80x24, at 120x36 and across a resize each
    way."""
    app = _app(folio_world, tui_dir)
    note = "standard account (default): perps, spot and each HIP-3 DEX hold their own USDC"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _read(pilot)
        screen.expanded = set()  # every asset folded: the note row is in view at 80x24
        screen.render_rows()
        await _settle(pilot)
        for size in ((80, 24), (120, 36), (80, 24)):
            await pilot.resize_terminal(*size)
            await wait_until(
                pilot, lambda size=size: screen._wide == (size[0] >= 100), what="the new layout"
            )
            await _settle(pilot)
            # the table's rows are laid out on an idle turn after render_rows: a loaded machine
            # can draw the header before them, so the frame read is the first with the note
            lines = await wait_until(
                pilot,
                lambda: "note: Venue (1337)" in (text := screen_text(app)) and text.splitlines(),
                what="the note row on screen",
            )
            header = next(line for line in lines if "asset / chain" in line)
            at = next(n for n, line in enumerate(lines) if "note: Venue (1337)" in line)
            folded = [line.rstrip(" │▇▁") for line in lines[at : at + 2]]
            assert header.index("USD") + len("USD") < size[0] - 2, header
            # folded on two lines in the amount column, cut before the USD column
            said = " ".join(line[header.index("amount") :].strip() for line in folded)
            assert said.startswith("standard account") and said.endswith("…"), folded
            assert all(len(line) < header.index("USD") for line in folded), (folded, header)
            usdc = next(line for line in lines if "▸ USDC" in line)
            assert "$" in usdc and usdc.index("$") >= header.index("USD"), usdc
            table = screen.query_one("#portfolio-table")
            table.move_cursor(row=list(screen.rows).index("note:1337:0"))
            await pilot.pause()
            detail = " ".join(str(screen.query_one("#portfolio-detail").render()).split())
            assert f"Venue (1337): {note}; withdrawals leave from perps" in detail
