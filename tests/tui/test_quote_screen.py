"""The Quote screen against the demo world: pickers from /chains, exact amounts, the quote in
words, field errors that put the cursor on the field, re-quote, swap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input, Select
from tui_support import chains_loaded, make_app, notifications, screen_text, wait_until

from crossdeck.models import VENUE_CHAIN_ID


async def _type_amount(pilot: Any, text: str) -> None:
    await pilot.click("#amount")
    field = pilot.app.screen.query_one("#amount", Input)
    field.value = ""
    await pilot.press(*text)


async def test_pickers_come_from_chains_with_the_venue_currencies(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.screen
        origin = screen.query_one("#origin-chain", Select)
        chain_ids = [value for _, value in origin._options if value is not Select.BLANK]
        assert {8453, 999, VENUE_CHAIN_ID} <= set(chain_ids)
        assert screen.query_one("#destination-chain", Select).value == VENUE_CHAIN_ID
        venue_currencies = [
            (str(label), value)
            for label, value in screen.query_one("#destination-currency", Select)._options
            if value is not Select.BLANK
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
        await chains_loaded(pilot)
        await _type_amount(pilot, "0.25")
        await pilot.press("ctrl+r")
        screen = app.quote_screen
        await wait_until(pilot, lambda: screen.quote is not None, what="a quote")
        first = screen.quote
        request = screen.request
        assert request is not None and request.amount == str(25 * 10**16)
        assert request.destination_chain_id == VENUE_CHAIN_ID and request.protocol_version is None
        text = screen_text(app)
        for expected in (
            "Pay",
            "0.25 ETH",
            "on Venue (1337)",
            "Relayer total",
            "rate 1 ETH",
            "total impact",
            "time estimate",
            "quoted 0s ago",
            "Steps (1)",
        ):
            assert expected in text, expected
        words = "\n".join(
            __import__("crossdeck.tui.describe", fromlist=["x"]).step_lines(
                first.steps, screen.chains
            )
        )
        assert "transaction on Base (8453)" in words and "(the depository)" in words
        assert "value 0.25 ETH" in words
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.quote is not first, what="a fresh quote")
        assert screen.quote.request_id != first.request_id


async def test_a_bad_field_is_named_and_focused(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _type_amount(pilot, "1")
        await pilot.click("#recipient")
        await pilot.press(*"0x1234")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: notifications(app), what="a notification")
        title, message, severity = notifications(app)[-1]
        assert title == "Quote failed" and "recipient" in message and severity == "warning"
        assert app.focused is app.screen.query_one("#recipient")
        assert app.quote_screen.quote is None


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


async def test_swap_sides_and_withdrawal_sets_protocol_v2(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        screen.query_one("#destination-currency", Select).value = "0x" + "0" * 32
        await pilot.press("ctrl+o")
        await wait_until(
            pilot,
            lambda: screen.query_one("#origin-chain", Select).value == VENUE_CHAIN_ID,
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
        assert "sign eip712 NonceMapping" in screen_text(app) or "NonceMapping" in "\n".join(
            __import__("crossdeck.tui.describe", fromlist=["x"]).step_lines(
                screen.quote.steps, screen.chains
            )
        )


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
        sponsorship = "\n".join(
            __import__("crossdeck.tui.describe", fromlist=["x"]).sponsorship_lines(screen.quote)
        )
        assert f"sponsored components: execution, {service_component}, cap 0.1 USDC" in sponsorship
        assert "[x] execution" in sponsorship and "[ ] swap" in sponsorship
        assert "sponsor pays" in sponsorship
        assert "Sponsorship" in screen_text(app)
