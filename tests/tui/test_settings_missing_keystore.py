"""Settings refuses a keystore that is not there on the spot (issue 35): the error names the
path, and the signer in use stays the one signing; an existing keystore is then taken."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eth_account import Account
from textual.widgets import Input
from tui_support import chains_loaded, make_app, notifications, pick, screen_text, wait_until

from helpers.funding import new_key


async def test_a_keystore_path_that_does_not_exist_is_refused(world: Any, tui_dir: Path) -> None:
    from eth_keyfile import create_keyfile_json

    missing = tui_dir / "nowhere" / "keystore.json"
    key = new_key()
    data = create_keyfile_json(bytes.fromhex(key[2:]), b"pw", kdf="pbkdf2", iterations=1000)
    there = tui_dir / "keystore.json"
    there.write_text(json.dumps(data))
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await pilot.press("f6")
        await wait_until(pilot, lambda: "the world's demo key" in screen_text(app), what="Settings")
        before = (app.services.settings.signer, app.sub_title)
        await pick(pilot, "#signer-select", "keystore")
        field = app.screen.query_one("#signer-value", Input)
        field.value = str(missing)
        field.focus()
        await pilot.press("enter")
        said = await wait_until(
            pilot,
            lambda: [m for t, m, s in notifications(app) if t == "Signer" and s == "error"],
            what="the refusal",
        )
        assert any(f"no keystore at {missing}" in m for m in said), said
        # nothing switched: the same signer, address and title, and Settings still names it
        assert (app.services.settings.signer, app.sub_title) == before
        assert app.services.wallet_address == world.wallet_address
        assert "the world's demo key" in screen_text(app)

        app.clear_notifications()
        field.value = str(there)
        field.focus()
        await pilot.press("enter")
        address = Account.from_key(key).address
        await wait_until(pilot, lambda: app.services.wallet_address == address, what="switch")
        assert app.services.settings.signer.kind == "keystore"
