"""The signers in the app: chosen at start (the global options' `signer` section), switched in
Settings, named in the title bar, in Settings and in the confirm dialog; the browser wallet
in a real headless Chromium, its page's token never drawn."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

from textual.widgets import Input, Static
from tui_support import (
    chains_loaded,
    make_app,
    notifications,
    pick,
    quote_and_execute,
    screen_text,
    wait_until,
)
from tui_support import world_settings as settings_of

from crossdeck.config import SignerSettings, parse_section
from crossdeck.execute import events as ev
from crossdeck.tui.screens.confirm import ConfirmScreen
from helpers.browser_wallet import InjectedWallet, chromium, open_with_wallet
from helpers.funding import fund, new_address, new_key

ETH = 10**18


def app_with(world: Any, tui_dir: Path, signer: dict[str, Any]) -> Any:
    settings = settings_of(world, tui_dir)
    section = parse_section(SignerSettings, signer, where="signer")
    settings = dataclasses.replace(settings, signer=section)
    return make_app(world, tui_dir, settings=settings, secrets=None)


async def test_read_only_address_quotes_with_execute_off_and_says_why(
    world: Any, tui_dir: Path
) -> None:
    """Issue 35 point 7: a read-only wallet quotes, Execute is off (greyed, ctrl+g does
    nothing) and the Result pane says why and what to do, in the app's words."""
    from crossdeck.tui.screens.execute import ExecuteScreen

    watched = new_address()
    app = app_with(world, tui_dir, {"kind": "read-only", "address": watched})
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.services.wallet_address == watched, what="secrets")
        assert f"read-only {watched[:6]}…{watched[-4:]}" in app.sub_title
        await chains_loaded(pilot)
        app.quote_screen.query_one("#amount", Input).value = "0.01"
        await pilot.pause(0.2)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
        assert app.quote_screen.request.user == watched
        assert app.quote_screen.check_action("execute", ()) is None  # the footer greys it
        await pilot.press("ctrl+g")
        await pilot.pause(0.3)
        assert not any(isinstance(s, ExecuteScreen) for s in app.screen_stack)
        said = str(app.quote_screen.query_one("#quote-status").render())
        assert f"Execute is off: {watched} is read-only" in said
        assert "Settings (F6)" in said and "--account" not in said
        await pilot.press("f6")
        await wait_until(pilot, lambda: "Signer" in screen_text(app), what="Settings")
        assert f"nobody: {watched[:6]}…{watched[-4:]} is read-only" in screen_text(app)


async def test_settings_switches_the_signer(world: Any, tui_dir: Path) -> None:
    watched = new_address()
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await pilot.press("f6")
        await wait_until(pilot, lambda: "the world's demo key" in screen_text(app), what="Settings")
        screen = app.screen
        await pick(pilot, "#signer-select", "read-only")
        field = screen.query_one("#signer-value", Input)
        field.value = "0x1234"
        await pilot.click("#signer-use")
        await wait_until(
            pilot,
            lambda: any("not an EVM address" in m for _, m, _ in notifications(app)),
            what="the refusal",
        )
        assert app.services.wallet_address == world.wallet_address
        app.clear_notifications()  # a toast would cover the button: Enter in the field instead
        field.value = watched
        field.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.services.wallet_address == watched, what="the switch")
        assert "read-only" in app.sub_title
        assert f"nobody: {watched[:6]}…{watched[-4:]}" in screen_text(app)
        await pick(pilot, "#signer-select", "keyring")
        screen.use_signer()
        await wait_until(
            pilot, lambda: app.services.wallet_address == world.wallet_address, what="back"
        )


async def test_browser_wallet_in_the_app(world: Any, tui_dir: Path) -> None:
    wallet = InjectedWallet(new_key(), dict(world.rpc))
    await fund(world, wallet.address, native={8453: ETH // 20})
    app = app_with(world, tui_dir, {"kind": "browser", "browser_open": False})
    tokens: list[str] = []

    async with chromium() as browser, app.run_test(size=(120, 36)) as pilot:
        opened: set[str] = set()

        async def open_each_page() -> None:
            """Open every page the app serves, as the user would from the notification."""
            while True:
                url = app.services.browser_url
                if url and url not in opened:
                    opened.add(url)
                    tokens.append(url.rsplit("/", 1)[1])
                    await open_with_wallet(browser, url, wallet)
                await asyncio.sleep(0.05)

        opener = asyncio.create_task(open_each_page())
        try:
            await wait_until(
                pilot, lambda: app.services.wallet_address == wallet.address, what="connected"
            )
            await wait_until(pilot, lambda: "browser wallet 0x" in app.sub_title, what="title")
            said = [m for t, m, _ in notifications(app) if t == "Browser wallet"]
            assert any("http://127.0.0.1:" in m and "/…" in m for m in said)
            # the start-up page served until the wallet connected, and no longer
            await wait_until(pilot, lambda: app.services.browser_url is None, what="closed")
            execute = await quote_and_execute(pilot, "0.01")
            dialog = await wait_until(
                pilot,
                lambda: isinstance(app.screen, ConfirmScreen) and app.screen,
                what="the confirm dialog",
                within=60,
            )
            short = f"{wallet.address[:6]}…{wallet.address[-4:]}"
            await wait_until(
                pilot,
                lambda: f"your browser wallet {short}: confirm there" in screen_text(app),
                what="the dialog to name the signer",
            )
            shot = app.export_screenshot()
            await pilot.press("y")
            await wait_until(pilot, lambda: dialog is not app.screen, what="it to close")
            await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=90)
            assert isinstance(execute.outcome, ev.Finished), execute.outcome
            assert execute.outcome.status == "success"
            [sent] = [e for e in execute.events if isinstance(e, ev.TxSent)]
            assert wallet.sent == [sent.hash]
            assert app.services.browser_url is None  # the run's page stopped with the run
            assert len(tokens) == 2  # one page to connect, one for the run
            shot += app.export_screenshot()
            for token in tokens:
                assert token not in shot and token not in screen_text(app)
                assert all(token not in m for _, m, _ in notifications(app))
        finally:
            opener.cancel()


async def test_a_wrong_keystore_password_is_asked_again(world: Any, tui_dir: Path) -> None:
    """Issue 35 point 7: a mistyped keystore password asks again (three tries in all), and
    the right one runs the transfer; the third wrong one ends it, nothing signed."""
    from eth_keyfile import create_keyfile_json

    from crossdeck.tui.screens.unlock import UnlockScreen

    key = new_key()
    data = create_keyfile_json(bytes.fromhex(key[2:]), b"right one", kdf="pbkdf2", iterations=1000)
    path = tui_dir / "keystore.json"
    path.write_text(json.dumps(data))
    app = app_with(world, tui_dir, {"kind": "keystore", "keystore": str(path)})
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: bool(app.services.wallet_address), what="the address")
        address = app.services.wallet_address
        await fund(world, address, native={8453: ETH})
        execute = await quote_and_execute(pilot, "0.01")

        async def answer(password: str) -> str:
            await wait_until(
                pilot, lambda: isinstance(app.screen, UnlockScreen), what="the password dialog"
            )
            dialog = app.screen
            said = " ".join(str(static.content) for static in dialog.query(Static))
            dialog.query_one(Input).value = password
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.screen is not dialog, what="the dialog to go")
            return said

        first = await answer("wrong")
        assert "does not open" not in first
        second = await answer("still wrong")
        assert "That password does not open the keystore (2 tries left)" in second
        third = await answer("right one")
        assert "(1 try left)" in third
        dialog = await wait_until(
            pilot,
            lambda: isinstance(app.screen, ConfirmScreen) and app.screen,
            what="the confirm dialog",
            within=60,
        )
        await pilot.press("y")
        await wait_until(pilot, lambda: dialog is not app.screen, what="it to close")
        await wait_until(pilot, lambda: execute.outcome is not None, what="the run", within=90)
        assert execute.outcome.status == "success"
        assert not execute.start_failed
