"""The app's signer and keyring: the title bar's profile and signer, the secrets read after the
first frame, the keyring's password asked in the app (never by the keyring's own terminal
prompt), and the browser wallet's connection. A base of `CrossdeckApp` (tui/app.py).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.signal import Signal

from crossdeck.tui.services import Secrets

if TYPE_CHECKING:
    from crossdeck.config import Settings
    from crossdeck.tui.services import Services


class SignerSetup(App[None]):
    """The signer's start-up and unlocking, for the app (set by `CrossdeckApp.__init__`)."""

    settings: Settings
    services: Services
    services_ready: asyncio.Event
    secrets_loaded: Signal[None]
    wallet_changed: Signal[str | None]

    def _sub_title(self) -> str:
        return self.sub_title_text()

    def refresh_sub_title(self) -> None:
        """The title bar's profile and signer, again (the signer changed or connected); the
        screens showing a wallet's numbers are told."""
        self.sub_title = self.sub_title_text()
        self.wallet_changed.publish(self.services.wallet_address)

    def sub_title_text(self) -> str:
        wallet = self.services.wallet_address
        shown = f"{wallet[:6]}…{wallet[-4:]}" if wallet else "no wallet"
        kind = self.services.signer_kind
        if kind == "browser":
            shown = f"browser wallet {shown}" if wallet else "browser wallet (connecting)"
        elif kind in ("keystore", "read-only"):
            shown = f"{kind} {shown}"
        return f"profile {self.settings.profile} · {shown}"

    def _announce_signer(self, url: str) -> None:
        from crossdeck.tui.signer_flow import announce

        announce(self, url)

    @work(group="signer", exclusive=True, exit_on_error=False, name="Browser wallet")
    async def connect_browser_wallet(self) -> None:
        from crossdeck.tui.signer_flow import learn_browser_address

        await learn_browser_address(self)

    @work(group="startup", exclusive=True, exit_on_error=False, name="Reading the keyring")
    async def load_secrets(self) -> None:
        try:
            if self.services.secrets is None and self.settings.world is None:
                if not await self._unlock_keyring_if_needed():
                    # skipped: never touch the keyring (its own prompt would take the terminal)
                    self.services.secrets = Secrets(None, None, "the keyring is locked")
                await self._say_if_no_keyring_yet()
            await self.services.load_secrets()
        finally:
            # screens wait for this before their first request; without secrets they still work
            self.services_ready.set()
        self.sub_title = self._sub_title()
        self.secrets_loaded.publish(None)
        if self.services.signer_kind == "browser" and not self.services.wallet_address:
            self.connect_browser_wallet()

    async def ensure_keyring_unlocked(self) -> None:
        """Before signing: a keyring that was skipped at start-up is asked for again here (never
        by the keyring's own terminal prompt, which would fight the app for the terminal); a
        keystore without a password file is asked for its password."""
        from crossdeck.tui.signer_flow import ensure_signer_ready

        await ensure_signer_ready(self)
        if self.settings.world is not None or self.services.signer_kind != "keyring":
            return
        if not await self._unlock_keyring_if_needed():
            from crossdeck.wallet.errors import KeyringLockedError

            raise KeyringLockedError(
                "the keyring is locked, so nothing can be signed",
                hint="execute again and type the keyring password when asked",
            )

    async def _say_if_no_keyring_yet(self) -> None:
        """On a fresh machine there is no keyring to unlock (nothing is asked): say so plainly."""
        from crossdeck.wallet import keystore
        from crossdeck.wallet.errors import KeyringError

        try:
            missing = await asyncio.to_thread(keystore.not_created_yet)
        except KeyringError:
            return  # reading the secrets says what is wrong with the keyring
        if missing is not None:
            self.notify(missing[0].upper() + missing[1:], title="Keyring", timeout=15)

    async def _unlock_keyring_if_needed(self) -> bool:
        """Ask for the encrypted keyring's password when it needs one; False when skipped."""
        from crossdeck.wallet import keystore

        if not await asyncio.to_thread(keystore.needs_password):
            return True
        from crossdeck.base.secret import Secret
        from crossdeck.tui.screens.unlock import UnlockScreen

        password = await self.push_screen_wait(UnlockScreen(keystore.keyring_file_path()))
        if not password:
            return False
        keystore.set_keyring_password(Secret(password))
        return True
