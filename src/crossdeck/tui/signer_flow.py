"""The app's side of the signers: the keystore's password dialog, the browser wallet's page
announced without its token, and the browser wallet's address learnt at start.

The page's full URL carries its token, so the app never draws it (a screenshot of the app must
not hold it): it opens the page in the system browser itself and shows the URL up to the port;
the palette's "Copy browser wallet link" puts the whole URL on the clipboard.
"""

from __future__ import annotations

from typing import Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.secret import Secret

# the app (`tui.app.CrossdeckApp`), typed loosely: naming it would make an import cycle
CrossdeckApp = Any


class KeystoreLocked(CrossdeckError):
    """The keystore's password dialog was skipped: nothing can be signed."""


def page_origin(url: str) -> str:
    """The page's URL without its token: what the app may show."""
    return url.rsplit("/", 1)[0] + "/…"


def announce(app: CrossdeckApp, url: str) -> None:
    opened = app.services.settings.signer.browser_open
    where = "in your browser" if opened else "(open it from the palette's copied link)"
    app.notify(
        f"Connect your wallet in the crossdeck page {page_origin(url)} {where}. "
        "ctrl+p → “Copy browser wallet link” copies its full address.",
        title="Browser wallet",
        timeout=20,
    )


PASSWORD_TRIES = 3  # as sudo: a mistyped password is asked again, twice


async def ensure_signer_ready(app: CrossdeckApp) -> None:
    """Before a run: a read-only address is refused at once (nothing is journalled); a keystore
    without a password file is unlocked with the app's own dialog (a terminal prompt would
    fight the app for the terminal), asked again while the password does not open it (three
    tries); the password goes to this run only, and the keystore opened with it is the run's
    signer."""
    services = app.services
    chosen = services.settings.signer
    if chosen.kind == "read-only" and chosen.address:
        from crossdeck.wallet.signers import ReadOnlySigner

        raise ReadOnlySigner(chosen.address).refuse("this transfer")
    if chosen.kind != "keystore" or chosen.password_file is not None:
        return
    from crossdeck.compose import signer_words
    from crossdeck.tui.screens.unlock import UnlockScreen
    from crossdeck.wallet.foundry_keystore import KeystorePasswordError

    words = signer_words(services.settings, services.wallet_address)
    body = f"Signing with {words}. Type its password (it stays in memory for this run only)."
    for attempt in range(1, PASSWORD_TRIES + 1):
        password = await app.push_screen_wait(
            UnlockScreen(
                None,
                title="Unlock the keystore",
                body=body,
                placeholder="keystore password",
            )
        )
        if not password:
            raise KeystoreLocked(
                "the keystore's password was not given, so nothing can be signed",
                hint="execute again and type it when asked",
            )
        services.keystore_password = Secret(password)
        try:
            await services.signer()  # opened now: the run signs with this one
            return
        except KeystorePasswordError:
            left = PASSWORD_TRIES - attempt
            if not left:
                raise
            body = (
                f"That password does not open the keystore ({left} "
                f"{'tries' if left > 1 else 'try'} left). Signing with {words}: type its "
                "password again."
            )


async def learn_browser_address(app: CrossdeckApp) -> None:
    """At start with the browser wallet: serve its page until the wallet connects, so quotes
    name its address; the page closes again (each run opens its own)."""
    services = app.services
    if services.signer_kind != "browser" or services.wallet_address:
        return
    try:
        address = await services.learn_signer_address()
    except CrossdeckError as exc:
        app.notify(f"{exc}", title="Browser wallet", severity="error", timeout=20)
        return
    app.notify(f"Connected: {address}", title="Browser wallet", timeout=8)
    app.refresh_sub_title()
    app.secrets_loaded.publish(None)
