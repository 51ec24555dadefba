"""The Quote screen against the demo world: pickers from /chains, exact amounts, the quote in
words, field errors that put the cursor on the field, re-quote, swap."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from textual.widgets import Input
from tui_support import (
    chains_loaded,
    load_fixture,
    make_app,
    notifications,
    open_options,
    pick,
    screen_text,
    wait_until,
)

from crossdeck.execute.describe import quote_sections, text_lines
from crossdeck.models import VENUE_CHAIN_ID
from crossdeck.sim.world import WALLET_NATIVE_WEI
from crossdeck.tui.widgets.picker import Picker


async def _type_amount(pilot: Any, text: str) -> None:
    await pilot.click("#amount")
    field = pilot.app.screen.query_one("#amount", Input)
    field.value = ""
    await pilot.press(*text)


def _result_text(app: Any) -> str:
    """The Result pane as one line of words: the pane wraps a long line where its width ends
    (the form beside it is as wide), so a phrase is looked for across the wrap."""
    rows = [line.split("││", 1)[1] for line in screen_text(app).splitlines() if "││" in line]
    return " ".join(" ".join(row.strip("│ ▁▇") for row in rows).split())


async def _quoted(pilot: Any, amount: str, asked: list[float] | None = None) -> Any:
    """Once the chains are in: type `amount`, ask for a quote, wait for it; the Quote screen.
    `asked` receives the monotonic time the quote was asked for."""
    await chains_loaded(pilot)
    await _type_amount(pilot, amount)
    if asked is not None:
        asked.append(time.monotonic())
    await pilot.press("ctrl+r")
    screen = pilot.app.quote_screen
    await wait_until(pilot, lambda: screen.quote is not None, what="a quote")
    return screen


async def test_pickers_come_from_chains_with_the_venue_currencies(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.screen
        origin = screen.query_one("#origin-chain", Picker)
        chain_ids = [value for _, value in origin.options]
        assert {8453, 999, VENUE_CHAIN_ID} <= set(chain_ids)
        assert screen.query_one("#destination-chain", Picker).value == VENUE_CHAIN_ID
        venue_currencies = [
            (str(label), value)
            for label, value in screen.query_one("#destination-currency", Picker).options
        ]
        forms = {value: label for label, value in venue_currencies}
        assert "perps" in forms["0x" + "0" * 32]
        assert "spot" in forms["0x6d1e7cde53ba9467b783cb7c530ce054"]
        assert any("HIP-3 dex xyz" in label for label in forms.values())


async def test_amount_in_human_units_is_converted_exactly(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _type_amount(pilot, "0.000000000000000001")
        await wait_until(pilot, lambda: "= 1 (18 decimals)" in screen_text(app), what="1 wei")
        await _type_amount(pilot, "1.5")
        await wait_until(
            pilot,
            lambda: "= 1500000000000000000 (18 decimals)" in screen_text(app),
            what="1.5 ETH in wei",
        )
        await _type_amount(pilot, "0.0000000000000000001")
        await wait_until(
            pilot, lambda: "has 19" in screen_text(app), what="a too-precise amount to be named"
        )


async def test_quote_shows_fees_route_steps_and_age_and_requotes(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        asked: list[float] = []
        screen = await _quoted(pilot, "0.25", asked)
        first = screen.quote
        request = screen.request
        assert request is not None and request.amount == str(25 * 10**16)
        assert request.destination_chain_id == VENUE_CHAIN_ID and request.protocol_version is None
        text = _result_text(app)
        since_asked = time.monotonic() - asked[0]
        for expected in (
            "you pay",
            "0.25 ETH (250000000000000000)",
            "on Venue (1337)",
            "relayer total",
            "1 ETH = ",
            "impact",
            "time about",
        ):
            assert expected in text, expected
        # the age counts from the quote's arrival, so it is never more than the time since it
        # was asked (whatever the machine's load), and it is shown in whole seconds
        age = re.search(r"Quoted (\d+)s ago", text)
        assert age is not None, text
        assert int(age.group(1)) <= since_asked, (age.group(0), since_asked)
        # the steps follow the fees, further down the result pane
        screen.query_one("#quote-result").scroll_end(animate=False)
        await wait_until(pilot, lambda: "Steps (1)" in screen_text(app), what="the steps")
        words = "\n".join(text_lines(quote_sections(first, screen.chains)))
        assert "on Base (8453): deposit 0.25 ETH (250000000000000000 wei) into the" in words
        assert "depository 0x" in words
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.quote is not first, what="a fresh quote")
        assert screen.quote.request_id != first.request_id


async def test_a_bad_field_is_named_and_focused(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _type_amount(pilot, "1")
        await open_options(pilot)
        await pilot.click("#recipient")
        await pilot.press(*"0x1234")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: notifications(app), what="a notification")
        title, message, severity = notifications(app)[-1]
        assert title == "Quote failed" and "recipient" in message and severity == "warning"
        assert app.focused is app.screen.query_one("#recipient")
        assert app.quote_screen.quote is None
        # the reason stays in the result pane after the toast is gone (issue 35 point 3)
        app.clear_notifications()
        await pilot.pause()
        said = str(app.screen.query_one("#quote-status").render())
        assert said.startswith("This form cannot be quoted: ") and "recipient" in said
        assert "fix it and press ctrl+r" in said


async def test_service_error_becomes_a_notification_saying_what_to_do(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _type_amount(pilot, "0.000000000000000001")  # 1 wei: below any minimum
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: notifications(app), what="the service's refusal")
        title, message, severity = notifications(app)[-1]
        assert title == "Quote failed" and severity == "error"
        assert "AMOUNT_TOO_LOW" in message or "too low" in message.lower(), message
        assert "→" in message  # the hint: what to do
        assert not app.quote_screen.query_one("#quote-result").loading
        # the reason and its hint stay where the work was, not "see the notification"
        app.clear_notifications()
        await pilot.pause()
        said = str(app.screen.query_one("#quote-status").render())
        assert said.startswith("The quote failed: ") and message in said, said
        assert "notification" not in said
        # until the next action: a new ask replaces it
        await _type_amount(pilot, "0.01")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
        assert "failed" not in str(app.screen.query_one("#quote-status").render())


async def test_swap_sides_and_withdrawal_sets_protocol_v2(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        await pick(pilot, "#destination-currency", "perps")
        assert screen.form_values().destination_currency == "0x" + "0" * 32
        await pilot.press("ctrl+o")
        await wait_until(
            pilot,
            lambda: screen.query_one("#origin-chain", Picker).value == VENUE_CHAIN_ID,
            what="the sides to swap",
        )
        values = screen.form_values()
        assert values.origin_currency == "0x" + "0" * 32 and values.destination_chain_id == 8453
        await _type_amount(pilot, "12.5")
        await wait_until(
            pilot,
            lambda: "= 1250000000 (8 decimals)" in screen_text(app),
            what="12.5 in the venue's 8 decimals",
        )
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.quote is not None, what="a withdrawal quote")
        assert screen.request.protocol_version == "v2"
        assert [s.id for s in screen.quote.steps] == ["authorize", "deposit"]
        words = "\n".join(text_lines(quote_sections(screen.quote, screen.chains)))
        assert "EIP-712 NonceMapping" in words and "venue transfer" in words


async def test_sponsorship_with_components_and_cap(world: Any, tui_dir: Path) -> None:
    from textual.widgets import Checkbox, SelectionList

    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        screen.query_one("#amount", Input).value = "0.1"
        # learn the service's own component name from a first quote
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.quote is not None, what="a first quote")
        await open_options(pilot)
        components = screen.query_one("#components", SelectionList)
        names = [components.get_option_at_index(i).value for i in range(components.option_count)]
        assert names[:3] == ["execution", "swap", "app"] and len(names) == 4
        service_component = names[3]
        await pilot.click("#subsidize")  # the mouse ticks it
        await wait_until(
            pilot, lambda: screen.query_one("#subsidize", Checkbox).value, what="the tick"
        )
        components.deselect("swap")
        components.deselect("app")
        screen.query_one("#cap", Input).value = "0.1"
        first = screen.quote
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.quote is not first, what="a sponsored quote")
        body = screen.request.to_body()
        assert body["sponsoredFeeComponents"] == ["execution", service_component]
        assert body["maxSubsidizationAmount"] == "100000"
        [section] = [s for s in quote_sections(screen.quote) if s.title == "Sponsorship"]
        sponsorship = "\n".join(line.text() for line in section.lines)
        assert f"execution, {service_component}, cap 0.1 USDC (100000)" in sponsorship
        assert "[x] execution" in sponsorship and "[ ] swap" in sponsorship
        assert "sponsor pays" in sponsorship
        # on screen too: scroll the result pane down to its Sponsorship section
        pane = screen.query_one("#quote-result")
        pane.scroll_home(animate=False)
        for _ in range(60):
            await pilot.pause()
            if "sponsor pays $" in _result_text(app):
                break
            pane.scroll_relative(y=4, animate=False)
        assert "sponsor pays $" in _result_text(app), _result_text(app)


def _execute_screen(app: Any) -> Any:
    from crossdeck.tui.screens.execute import ExecuteScreen

    return next((s for s in app.screen_stack if isinstance(s, ExecuteScreen)), None)


async def test_an_edit_after_quoting_makes_the_quote_out_of_date_until_requoted(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _quoted(pilot, "0.25")
        first = screen.quote
        assert not screen.quote_out_of_date
        assert "form changed" not in screen_text(app)
        await _type_amount(pilot, "0.5")
        await wait_until(
            pilot,
            lambda: "form changed — press ctrl+r to re-quote" in screen_text(app),
            what="the quote view to say the form changed",
        )
        assert screen.quote_out_of_date
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: notifications(app), what="execute to be refused")
        title, message, severity = notifications(app)[-1]
        assert title == "Execute" and severity == "warning"
        assert "form changed" in message and "ctrl+r" in message and "re-quote" in message
        await pilot.pause(0.2)
        assert _execute_screen(app) is None
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.quote is not first, what="a fresh quote")
        assert screen.request.amount == str(5 * 10**17)
        assert not screen.quote_out_of_date
        await wait_until(
            pilot, lambda: "form changed" not in screen_text(app), what="the mark to go"
        )
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: _execute_screen(app), what="the Execute screen")


async def test_a_venue_prefill_after_quoting_makes_the_quote_out_of_date(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _quoted(pilot, "0.25")
        values = screen.form_values()
        app.prefill_quote(  # what Venue -> Withdraw does
            values.with_changes(
                origin_chain_id=values.destination_chain_id,
                origin_currency=values.destination_currency,
                destination_chain_id=values.origin_chain_id,
                destination_currency=values.origin_currency,
                amount="10",
            )
        )
        assert screen.quote_out_of_date
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: notifications(app), what="execute to be refused")
        assert "re-quote" in notifications(app)[-1][1]
        await pilot.pause(0.2)
        assert _execute_screen(app) is None


async def test_requote_restarts_a_failed_chains_load(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    # a malformed /chains answer is retried like a 5xx: fail every attempt of the first load
    world.faults.inject("malformed", app.settings.service.max_retries + 1, path="/chains")
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(
                pilot,
                lambda: app.quote_screen is not None and not app.quote_screen._chains_loading(),
                what="the first chains load to end",
            )
            assert app.quote_screen.chains is None
            assert world.faults.pending() == 0
            await wait_until(
                pilot,
                lambda: "The chains did not load: " in screen_text(app),
                what="the failed load to be said",
            )
            said = str(app.screen.query_one("#quote-status").render())
            assert "press ctrl+r to try again" in said and "not JSON" in said, said
            await pilot.press("ctrl+r")
            await chains_loaded(pilot)
            assert any("loading the chains again" in m for _, m, _ in notifications(app))
            await wait_until(
                pilot, lambda: "No quote yet" in screen_text(app), what="the status to reset"
            )
            assert not any("still loading" in message for _, message, _ in notifications(app))
    finally:
        world.faults.clear()


def test_the_quote_view_shows_the_gas_top_up_and_the_balance() -> None:
    from datetime import UTC, datetime

    from rich.console import Console

    from crossdeck.models import Quote
    from crossdeck.tui.widgets.quote_view import render_quote

    wire = load_fixture("run_deposit.json")["quote"]
    details = wire["details"]
    details["userBalance"] = "123450000"  # smallest units of what is paid (USDC, 6 decimals)
    topup = details["currencyGasTopup"]
    topup.update(amount="150000000", amountFormatted="1.5", amountUsd="1.500000")  # 8 places

    def text(quote_wire: dict[str, Any], **options: Any) -> str:
        now = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)
        console = Console(width=100, record=True)
        console.print(render_quote(Quote.from_wire(quote_wire), None, now, now, **options))
        return console.export_text()

    shown = text(wire)
    assert "gas topup" in shown and "1.5 USDC (150000000)" in shown and "$1.50" in shown
    assert "balance 123.45 USDC (123450000)" in shown
    assert "form changed" not in shown
    assert "form changed — press ctrl+r to re-quote" in text(wire, form_changed=True)
    topup.update(amount="0", amountFormatted="0")  # the service's way of saying no top-up
    del details["userBalance"]
    shown = text(wire)
    assert "gas topup" not in shown and "balance" not in shown


async def test_the_quote_says_whether_the_wallet_holds_what_it_takes(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await _quoted(pilot, "0.01")
        await wait_until(pilot, lambda: screen.funds is not None, what="the funds check")
        [verdict] = screen.funds
        assert verdict.ok, verdict.message
        await wait_until(
            pilot, lambda: "funds ✓ the wallet holds" in screen_text(app), what="the ✓ line"
        )
        assert "enough for the payment of 0.01 ETH plus up to" in verdict.message
        # far more than the demo wallet holds: quoted and shown, with the ✗ line (the run
        # refuses it before signing)
        await _type_amount(pilot, str(WALLET_NATIVE_WEI // 10**18 + 50))
        first = screen.quote
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.quote is not first, what="the second quote")
        await wait_until(pilot, lambda: screen.funds is not None, what="the funds check")
        [verdict] = screen.funds
        assert not verdict.ok
        assert "but the wallet holds" in verdict.message
        await wait_until(pilot, lambda: "funds ✗ it needs" in screen_text(app), what="✗ line")
        assert screen.quote is not None  # shown, not refused


async def test_the_pane_holding_the_focus_is_lit_and_only_it(world: Any, tui_dir: Path) -> None:
    from textual.color import Color

    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.screen
        form, result = screen.query_one("#quote-form"), screen.query_one("#quote-result")

        def colour(pane: Any) -> Color:
            return pane.styles.border_top[1]

        lit = Color.parse(app.theme_variables["border"])
        await pilot.pause()
        assert screen.focused is not None and screen.focused.id == "amount"
        assert colour(form) == lit and colour(result) != lit
        result.can_focus = True  # the Result pane scrolls: focusing it moves the light over
        result.focus()
        await pilot.pause()
        assert colour(result) == lit and colour(form) != lit
        await pilot.press("ctrl+t")  # another theme: the lit pane takes its colour
        await pilot.pause()
        assert colour(result) == Color.parse(app.theme_variables["border"])


async def test_options_are_composed_on_demand_and_read_without_colour(
    world: Any, tui_dir: Path
) -> None:
    """The first frame holds only what every quote needs; ctrl+l composes the options, whose
    values survive closing them, whose checkboxes read [x] / [ ], and a demo: referrer is a
    warning on the form itself."""
    app = make_app(world, tui_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        assert not screen.query("#referrer") and not screen.query("#topup-gas")
        assert len(list(screen.walk_children())) < 70
        # with the balance read, the Max note (gas kept, at a gas price of many digits on a
        # busy chain) takes one line: wrapped, it pushed the Options line out of 80x24
        note = await wait_until(
            pilot,
            lambda: (
                screen.query_one("#amount-max-note").display
                and screen.query_one("#amount-max-note")
            ),
            what="the Max note",
        )
        await pilot.pause()
        assert note.size.height == 1
        text = screen_text(app)
        assert "From" in text and "To" in text and "Options (ctrl+l" in text
        await pilot.press("ctrl+l")
        tick = await wait_until(
            pilot,
            lambda: screen.query("#topup-gas") and screen.query_one("#topup-gas"),
            what="the options",
        )
        assert "[ ] add gas on arrival" in screen_text(app)
        tick.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: tick.value, what="the tick")
        assert "[x] add gas on arrival" in screen_text(app)
        screen.query_one("#referrer", Input).value = "demo:fail"
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: not screen.query("#referrer"), what="options closed")
        values = screen.form_values()
        assert values.topup_gas and values.referrer == "demo:fail"
        text = screen_text(app)
        assert "gas on arrival $2" in text and "⚠ referrer demo:fail" in text


async def test_the_funds_check_reads_the_chains_rpc_where_settings_name_none(
    world: Any, tui_dir: Path
) -> None:
    """No RPC for the paying chain (8453) in the settings: the Quote screen's funds check reads
    the wallet through /chains' httpRpcUrl, as the run will, instead of saying it cannot."""
    from tui_support import world_settings

    settings = world_settings(world, tui_dir, rpc={999: world.rpc[999]})
    app = make_app(world, tui_dir, settings=settings)
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await _quoted(pilot, "0.01")
        await wait_until(pilot, lambda: screen.funds is not None, what="the funds check")
        [verdict] = screen.funds
        assert verdict.ok and "the wallet holds" in verdict.message, verdict.message


async def test_the_trade_type_is_picked_from_the_keyboard_and_read_in_the_amount_line(
    world: Any, tui_dir: Path
) -> None:
    """The options' pickers are the same Picker: "what arrives" makes the amount the venue
    USDC's (8 decimals), and the closed options line says so."""
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        await _type_amount(pilot, "12.5")
        await wait_until(
            pilot, lambda: "(18 decimals)" in screen_text(app), what="the amount in ETH's units"
        )
        await open_options(pilot)
        await pick(pilot, "#trade-type", "what arrives")
        assert screen.form_values().trade_type == "EXACT_OUTPUT"
        await wait_until(
            pilot,
            lambda: "= 1250000000 (8 decimals)" in screen_text(app),
            what="the amount in the venue USDC's units",
        )
        await pilot.press("ctrl+l")  # closed, the options keep it
        await wait_until(pilot, lambda: not screen.query("#trade-type"), what="options closed")
        assert screen.form_values().trade_type == "EXACT_OUTPUT"
        await wait_until(
            pilot, lambda: "amount is what" in screen_text(app), what="the options line"
        )


def test_the_quote_counts_its_remaining_validity_down() -> None:
    """Issue 35 point 10: the quote says how long it can still be executed, and when it can
    no longer, that ctrl+r refreshes it."""
    from datetime import UTC, datetime, timedelta

    from rich.console import Console
    from tui_support import load_fixture

    from crossdeck.models import Quote
    from crossdeck.tui.widgets.quote_view import EXECUTABLE_FOR_SECONDS, render_quote

    quote = Quote.from_wire(load_fixture("run_deposit.json")["quote"])
    now = datetime(2026, 1, 1, tzinfo=UTC)

    def said(age: int) -> str:
        console = Console(width=200, record=True, color_system=None)
        console.print(render_quote(quote, None, now - timedelta(seconds=age), now))
        return console.export_text()

    assert "Quoted 7s ago · executable for 1m 53s more (ctrl+r refreshes)" in said(7)
    assert "executable for 5s more" in said(EXECUTABLE_FOR_SECONDS - 5)
    assert "too old to execute: ctrl+r refreshes it" in said(EXECUTABLE_FOR_SECONDS + 1)
