"""A real profile (not the demo): secrets from the encrypted keyring, unlocked in the app's own
dialog; and every binding of the app has an id and a tooltip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static
from tui_support import screen_text, wait_until

from crossdeck.config import load_settings
from crossdeck.tui.app import CrossdeckApp, screen_classes
from crossdeck.tui.screens.help import bindings_of
from crossdeck.tui.screens.unlock import UnlockScreen
from crossdeck.wallet import keystore

PASSWORD = "correct horse battery staple"


@pytest.fixture
def keyring_profile(world: Any, tui_dir: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Profile `local` on the world's URLs, its API key and wallet key in an encrypted file."""
    config = tui_dir / "config" / "config.toml"
    rpc = "\n".join(f'{chain_id} = "{url}"' for chain_id, url in world.rpc.items())
    config.write_text(
        config.read_text() + f'\n[profiles.local]\nservice = {{ url = "{world.service_url}" }}\n'
        f'venue = {{ url = "{world.venue_url}" }}\n[profiles.local.rpc]\n{rpc}\n'
    )
    monkeypatch.setenv("CROSSDECK_KEYRING_FILE", str(tui_dir / "keyring.cfg"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "crossdeck.wallet.keystore.EncryptedFileKeyring")
    monkeypatch.setenv("CROSSDECK_KEYRING_PASSWORD", PASSWORD)
    keystore.set_keyring_password(None)
    keystore.store_api_key("local", world.api_key)
    keystore.store_wallet_key("local", world.wallet_key)
    monkeypatch.delenv("CROSSDECK_KEYRING_PASSWORD")
    keystore.set_keyring_password(None)
    yield "local"
    keystore.set_keyring_password(None)


def _app(tui_dir: Path) -> CrossdeckApp:
    return CrossdeckApp(
        load_settings("local"),
        ui_state_file=tui_dir / "state.json",
        user_themes=tui_dir / "themes",
        start_mode="settings",
    )


async def test_the_keyring_is_unlocked_in_a_dialog(
    world: Any, keyring_profile: str, tui_dir: Path
) -> None:
    app = _app(tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, UnlockScreen), what="the dialog")
        # the dialog's text, not the screen's: a long temporary path wraps across lines there
        dialog_text = " ".join(str(static.content) for static in app.screen.query(Static))
        assert str(tui_dir / "keyring.cfg") in dialog_text
        app.screen.query_one(Input).value = PASSWORD
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: "API key           set" in screen_text(app),
            what="the key read from the keyring",
        )
        text = screen_text(app)
        assert "Profile           local" in text and world.wallet_address in text
        assert world.api_key not in text
        assert app.services.wallet_address == world.wallet_address


async def test_a_wrong_password_says_so_and_the_app_goes_on(
    world: Any, keyring_profile: str, tui_dir: Path
) -> None:
    app = _app(tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, UnlockScreen), what="the dialog")
        app.screen.query_one(Input).value = "wrong"
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: "API key           unknown" in screen_text(app), what="the API key state"
        )
        assert "wrong password" in screen_text(app)
        assert "no wallet" in app.sub_title


async def test_skipping_the_dialog_leaves_the_keyring_alone(
    world: Any, keyring_profile: str, tui_dir: Path
) -> None:
    app = _app(tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, UnlockScreen), what="the dialog")
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: "unknown (the keyring is locked)" in screen_text(app),
            what="the locked state",
        )
        assert "Wallet address    none" in screen_text(app)


async def test_a_fresh_machine_is_asked_no_password_and_told_there_is_no_key(
    world: Any, tui_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """First start: the keyring file does not exist, so there is nothing to unlock."""
    config = tui_dir / "config" / "config.toml"
    config.write_text(
        config.read_text() + f'\n[profiles.local]\nservice = {{ url = "{world.service_url}" }}\n'
        f'venue = {{ url = "{world.venue_url}" }}\n'
    )
    keyring_file = tui_dir / "fresh" / "keyring.cfg"
    monkeypatch.setenv("CROSSDECK_KEYRING_FILE", str(keyring_file))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "crossdeck.wallet.keystore.EncryptedFileKeyring")
    monkeypatch.delenv("CROSSDECK_KEYRING_PASSWORD", raising=False)
    keystore.set_keyring_password(None)
    app = _app(tui_dir)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(
                pilot,
                lambda: any("No saved key yet" in str(n.message) for n in app._notifications),
                what="the no-saved-key note",
            )
            assert not any(isinstance(s, UnlockScreen) for s in app.screen_stack)
            note = next(str(n.message) for n in app._notifications if "saved key" in str(n.message))
            assert str(keyring_file) in note and "choose its password" in note
            await wait_until(
                pilot, lambda: "API key           unset" in screen_text(app), what="the key state"
            )
            assert "no wallet" in app.sub_title
        assert not keyring_file.exists()
    finally:
        keystore.set_keyring_password(None)


def test_every_binding_has_an_id_and_a_tooltip_and_ids_are_unique() -> None:
    seen: dict[str, str] = {}
    for cls in [CrossdeckApp, *screen_classes()]:
        for binding in bindings_of(cls):
            assert binding.id, f"{cls.__name__}: {binding.key} has no id"
            assert binding.tooltip, f"{binding.id} has no tooltip"
            assert binding.description, f"{binding.id} has no description"
            assert binding.id not in seen, f"{binding.id} in {cls.__name__} and {seen[binding.id]}"
            seen[binding.id] = cls.__name__
    assert len(seen) >= 20
