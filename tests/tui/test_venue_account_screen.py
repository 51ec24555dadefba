"""The Venue screen's account against the world, as a fresh trader of its own: the mode and the
same lines `crossdeck venue balance` prints, the withdrawal's Max (all of the book less the
first-send fee), and the transfer form: Review holds the transfer through the venue-action
guards and shows it in words, Sign moves the books, and a send to another address is shown as
leaving the account."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account
from textual.widgets import Button, Input, Static
from tui_support import make_app, screen_text, wait_until

from crossdeck.base.secret import Secret
from crossdeck.config import load_settings
from crossdeck.sim.venue import (
    HIP3_DEX_NAME,
    PERPS_USDC_ADDRESS,
    SPOT_USDC_TOKEN_ID,
    USDC_DECIMALS,
    hip3_address,
)
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.venue_transfer import TransferForm
from crossdeck.tui.services import Secrets
from crossdeck.venue.account_words import account_lines

UNIT = 10**USDC_DECIMALS


def _trader_app(world: Any, directory: Path, usdc: int, mode: str | None = None) -> Any:
    account = Account.create()
    world.ledger.credit(account.address, PERPS_USDC_ADDRESS, usdc * UNIT)
    if mode:
        world.ledger.set_mode(account.address, mode)
    info = dict(world.info)
    info["wallet"] = {"address": account.address, "private_key": account.key.hex()}
    path = directory / "trader.json"
    path.write_text(json.dumps(info))
    settings = load_settings(None, path)
    secrets = Secrets(Secret(world.api_key), account.address)
    return account, make_app(
        world, directory, settings=settings, secrets=secrets, start_mode="venue"
    )


def _text(app: Any, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def _dialog(pilot: Any) -> ConfirmScreen:
    app = pilot.app
    found: ConfirmScreen = await wait_until(
        pilot,
        lambda: isinstance(app.screen, ConfirmScreen) and app.screen,
        what="the confirm dialog",
        within=60,
    )
    return found


def _dialog_text(dialog: ConfirmScreen) -> str:
    """The whole of what the dialog says will be signed (it scrolls in its box), after the
    line out of the box that says what leaves the account in total, when there is one."""
    said = [dialog.query_one("#confirm-lines", Static).content]
    said[:0] = [t.content for t in dialog.query("#confirm-total").results(Static)]
    return " ".join(" ".join(getattr(t, "plain", str(t)).split()) for t in said)


async def test_a_unified_account_on_the_screen_and_its_max(world: Any, tui_dir: Path) -> None:
    _, app = _trader_app(world, tui_dir, 30, mode="unifiedAccount")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.data.get("account"), what="the account")
        shown = _text(app, "#venue-account")
        for line in account_lines(app.screen.data["account"]):
            assert line.strip() in shown  # the same lines as `venue balance`
        assert "account mode  unified (unifiedAccount)" in shown
        assert "withdrawable  30 USDC from spot" in shown
        # the withdraw form leaves from spot, and Max leaves the first-send fee
        assert app.screen.query_one("#wd-venue-currency").selection == SPOT_USDC_TOKEN_ID
        app.screen.query_one("#wd-max", Button).press()
        await wait_until(
            pilot, lambda: app.screen.query_one("#wd-amount", Input).value == "29.0", what="Max"
        )


async def test_the_transfer_form_reviews_then_signs(world: Any, tui_dir: Path) -> None:
    account, app = _trader_app(world, tui_dir, 25)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.data.get("account"), what="the account")
        screen = app.screen
        screen.query_one("#tr-amount", Input).value = "10"
        sign = screen.query_one("#tr-sign", Button)
        assert sign.disabled  # nothing to sign before a review
        screen.query_one("#tr-go", Button).press()
        await wait_until(pilot, lambda: not sign.disabled, what="the review")
        review = _text(app, "#tr-review")
        assert "move 10 USDC (1000000000) from your perps to spot" in review
        assert "fee: none: a move between your own books" in review and "6 guards passed" in review
        # a change after the review asks for another
        screen.query_one("#tr-amount", Input).value = "11"
        sign.press()
        await wait_until(pilot, lambda: "Review again" in _text(app, "#tr-review"), what="stale")
        assert world.ledger.balance(account.address, SPOT_USDC_TOKEN_ID) == 0
        screen.query_one("#tr-amount", Input).value = "10"
        screen.query_one("#tr-go", Button).press()
        await wait_until(pilot, lambda: not sign.disabled, what="the review again")
        # Sign opens the dialog every signature goes through; declined, nothing moves
        sign.press()
        dialog = await _dialog(pilot)
        words = _dialog_text(dialog)
        assert dialog.request.title == "Sign the venue transfer (usdClassTransfer)"
        assert "fee none: a move between your own books" in words
        assert '"name": "VenueSignTransaction"' in words  # the exact typed data, then
        assert dialog.request.guards and all(g.ok for g in dialog.request.guards)
        await pilot.press("n")
        await wait_until(pilot, lambda: "declined" in _text(app, "#tr-review"), what="declined")
        assert world.ledger.balance(account.address, SPOT_USDC_TOKEN_ID) == 0
        sign.press()
        await _dialog(pilot)
        await pilot.press("y")
        await wait_until(
            pilot, lambda: "venue accepted" in _text(app, "#tr-review"), what="the transfer"
        )
        assert world.ledger.balance(account.address, SPOT_USDC_TOKEN_ID) == 10 * UNIT
        assert world.ledger.balance(account.address, PERPS_USDC_ADDRESS) == 15 * UNIT


async def test_a_send_elsewhere_is_shown_as_leaving_and_a_bad_amount_refused(
    world: Any, tui_dir: Path
) -> None:
    account, app = _trader_app(world, tui_dir, 5)
    other = Account.create().address
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.data.get("account"), what="the account")
        screen = app.screen
        screen.query_one("#tr-to").value = "perps"
        screen.query_one("#tr-amount", Input).value = "2"
        screen.query_one("#tr-address", Input).value = other
        screen.query_one("#tr-go", Button).press()
        await wait_until(pilot, lambda: "LEAVES" in _text(app, "#tr-review"), what="the review")
        review = _text(app, "#tr-review")
        assert f"THIS LEAVES YOUR ACCOUNT: {other} receives it" in review
        # the account's first send, to an address with no venue account yet: both fees
        assert "fee: venue first-send fee 1 USDC + new-account fee 1 USDC" in review
        # what leaves in total, the fees included, in units with the unit
        assert "in total: 4 USDC (400000000) leave your account: 2 USDC sent + the 2 USDC" in review
        screen.query_one("#tr-amount", Input).value = "2.123456789"  # more than 8 decimals
        screen.query_one("#tr-go", Button).press()
        await wait_until(pilot, lambda: "refused" in _text(app, "#tr-review"), what="refusal")
        assert screen.query_one("#tr-sign", Button).disabled
        assert world.ledger.balance(account.address, PERPS_USDC_ADDRESS) == 5 * UNIT


async def test_a_short_book_is_offered_a_move_before_the_withdrawal(
    world: Any, tui_dir: Path
) -> None:
    account, app = _trader_app(world, tui_dir, 12)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.data.get("account"), what="the account")
        screen = app.screen
        screen.query_one("#wd-venue-currency").value = SPOT_USDC_TOKEN_ID
        screen.query_one("#wd-amount", Input).value = "5"
        await pilot.press("ctrl+y")
        await wait_until(
            pilot, lambda: screen.query_one("#tr-amount", Input).value == "6.0", what="the offer"
        )
        assert app.current_mode == "venue"  # not sent to the quote before the move
        assert screen.query_one("#tr-from").selection == "perps"
        assert screen.query_one("#tr-to").selection == "spot"
        assert any("6 USDC short" in n.message for n in app._notifications)
        assert world.ledger.balance(account.address, PERPS_USDC_ADDRESS) == 12 * UNIT


async def test_the_transfer_form_moves_out_of_a_sub_account(world: Any, tui_dir: Path) -> None:
    account, app = _trader_app(world, tui_dir, 4)
    sub = world.ledger.add_sub_account(account.address, "desk")
    world.ledger.credit(sub, PERPS_USDC_ADDRESS, 8 * UNIT)
    foreign = world.ledger.add_sub_account(Account.create().address, "theirs")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.data.get("account"), what="the account")
        screen = app.screen
        sign = screen.query_one("#tr-sign", Button)
        screen.query_one("#tr-amount", Input).value = "3"
        # another's sub account, and a name the venue does not list, are refused at Review
        for wrong in (foreign, "nosuch"):
            screen.query_one("#tr-sub", Input).value = wrong
            screen.query_one("#tr-go", Button).press()
            await wait_until(pilot, lambda: "refused" in _text(app, "#tr-review"), what="refusal")
            assert "is not a sub account of" in _text(app, "#tr-review") and sign.disabled
        screen.query_one("#tr-sub", Input).value = "desk"  # its name, as subAccounts lists it
        screen.query_one("#tr-to").value = HIP3_DEX_NAME
        screen.query_one("#tr-go", Button).press()
        await wait_until(pilot, lambda: not sign.disabled, what="the review")
        review = _text(app, "#tr-review")
        assert f"sub account {sub.lower()}'s perps to HIP-3 {HIP3_DEX_NAME}" in review
        prepared = screen.query_one("#transfer-form").prepared
        assert (prepared.action.wire, prepared.action.parameters["fromSubAccount"]) == (
            "sendAsset",
            sub,
        )  # the action `--from-sub-account` builds
        sign.press()
        await _dialog(pilot)
        await pilot.press("y")
        await wait_until(
            pilot, lambda: "venue accepted" in _text(app, "#tr-review"), what="the transfer"
        )
        assert world.ledger.balance(sub, PERPS_USDC_ADDRESS) == 5 * UNIT
        xyz = hip3_address(SPOT_USDC_TOKEN_ID, HIP3_DEX_NAME)
        assert world.ledger.balance(account.address, xyz) == 3 * UNIT  # the master's DEX book
        assert world.ledger.balance(account.address, PERPS_USDC_ADDRESS) == 4 * UNIT


async def test_the_withdrawal_quote_names_the_first_send_fee(world: Any, tui_dir: Path) -> None:
    _, app = _trader_app(world, tui_dir, 12)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.data.get("account"), what="the account")
        app.screen.query_one("#wd-amount", Input).value = "5"
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: app.current_mode == "quote", what="the quote screen")
        await wait_until(pilot, lambda: app.screen.quote is not None, what="the quote")
        await wait_until(
            pilot,
            lambda: "also pays venue first-send fee 1 USDC" in screen_text(app),
            what="the fee in the quote",
        )
        assert app.screen.request.origin_chain_id == 1337


def _world_book(world: Any, user: str) -> tuple[str, str]:
    """The venue's own perps and spot USDC of `user` as the world's /info answers them, as the
    screen writes a book ('30 USDC')."""
    from decimal import Decimal

    from crossdeck.models.display import decimal_amount_text

    def ask(kind: str) -> Any:
        return httpx.post(world.venue_url + "/info", json={"type": kind, "user": user}).json()

    perps = Decimal(ask("clearinghouseState")["withdrawable"])
    balances = ask("spotClearinghouseState")["balances"]
    spot = sum((Decimal(b["total"]) for b in balances if b["coin"] == "USDC"), Decimal(0))
    return decimal_amount_text(perps, "USDC"), decimal_amount_text(spot, "USDC")


async def test_a_signer_switch_shows_the_new_wallets_book_never_the_last_ones(
    world: Any, tui_dir: Path
) -> None:
    """Issue 35 point 1 on the Venue screen: with wallet A it shows A's venue book (as the
    world's venue answers it); switched in Settings to B, nothing of A's stays under B's name
    and B's book is shown; switched back, A's again."""
    from tui_support import pick, watch_read_only

    a, app = _trader_app(world, tui_dir, 30)
    b = Account.create().address
    world.ledger.credit(b, PERPS_USDC_ADDRESS, 7 * UNIT)
    world.ledger.credit(b, SPOT_USDC_TOKEN_ID, 3 * UNIT)

    def shown() -> str:  # the Venue screen's account pane, whichever screen is in front
        return " ".join(str(venue.query_one("#venue-account", Static).render()).split())

    def shows_book_of(user: str) -> bool:
        perps, spot = _world_book(world, user)
        text = shown()
        return (
            f"venue account {user}" in text
            and f"perps {perps}" in text
            and (f"spot {spot}" in text)
        )

    async with app.run_test(size=(120, 36)) as pilot:
        venue = app.screen  # the app starts on it; it stays mounted behind Settings
        await wait_until(pilot, lambda: shows_book_of(a.address), what="A's venue book")
        assert _world_book(world, a.address) == ("30 USDC", "0 USDC")

        await watch_read_only(pilot, b)
        await wait_until(pilot, lambda: f"{b[:6]}…{b[-4:]}" in app.sub_title, what="B named")
        # from the turn the title bar names B, nothing of A's is on the Venue screen: its pane
        # says it reads B (or shows B's book already), its data and transfer form are not A's
        assert a.address not in shown() and "30 USDC" not in shown()
        assert b in shown()
        assert venue.data.get("user", b) == b
        assert getattr(venue.query_one(TransferForm).account, "user", b) == b
        await pilot.press("f3")
        await wait_until(pilot, lambda: shows_book_of(b), what="B's venue book")
        assert _world_book(world, b) == ("7 USDC", "3 USDC")
        assert a.address not in shown() and venue.data["account"].user == b
        assert f"{b[:6]}…{b[-4:]}" in app.sub_title

        await pilot.press("f6")
        await wait_until(pilot, lambda: "Signer" in screen_text(app), what="Settings again")
        await pick(pilot, "#signer-select", "keyring")
        app.screen.use_signer()  # its button (a toast may cover it)
        await wait_until(pilot, lambda: a.address[:6] in app.sub_title, what="A named again")
        assert b not in shown() and "7 USDC" not in shown() and a.address in shown()
        await pilot.press("f3")
        await wait_until(pilot, lambda: shows_book_of(a.address), what="A's venue book again")
        assert b not in shown()


async def _withdraw(pilot: Any, amount: str) -> list[str]:
    """From the Venue screen: withdraw `amount` USDC to Base through the Quote screen and run
    it, signing both dialogs (the NonceMapping, then the venue's sendAsset); what each said."""
    from tui_support import quote_and_execute

    from crossdeck.execute import events as ev

    app = pilot.app
    app.screen.query_one("#wd-amount", Input).value = amount
    await pilot.press("ctrl+y")
    await wait_until(
        pilot,
        lambda: (
            app.quote_screen.form_values().origin_chain_id == 1337
            and app.quote_screen.form_values().amount == amount
        ),
        what="the prefilled withdrawal",
    )
    execute = await quote_and_execute(pilot)
    said = []
    for _ in range(2):
        dialog = await _dialog(pilot)
        said.append(_dialog_text(dialog))
        await pilot.press("y")
        await wait_until(pilot, lambda d=dialog: app.screen is not d, what="it to close")
    await wait_until(pilot, lambda: execute.outcome is not None, what="the run's end", within=90)
    assert isinstance(execute.outcome, ev.Finished) and execute.outcome.status == "success"
    await pilot.press("escape")  # back to the Quote screen
    return said


async def test_the_confirm_says_the_first_send_fee_once_and_what_leaves_in_total(
    world: Any, tui_dir: Path
) -> None:
    """Issue 36 point 3: the dialog where a withdrawal is signed repeats the venue's first-send
    fee and what leaves the account in total; the world's venue takes exactly that; the next
    withdrawal (the fee paid) says no fee and leaves exactly its amount."""
    account, app = _trader_app(world, tui_dir, 30)
    perps = lambda: world.ledger.balance(account.address, PERPS_USDC_ADDRESS)  # noqa: E731
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.data.get("account"), what="the account")
        note = " ".join(_text(app, "#first-send-warning").split())
        assert "first send pays the venue first-send fee 1 USDC, on top of the amount" in note
        first = (await _withdraw(pilot, "10"))[1]
        assert "Sign the venue transfer" in first or "sendAsset" in first
        assert "fee venue first-send fee 1 USDC, taken by the venue from the same book" in first
        assert (
            "in total 11 USDC (1100000000) leave your account: 10 USDC sent + the 1 USDC "
            "(100000000) fee"
        ) in first
        # and above the scrolling box, on any screen size
        assert first.startswith("In total 11 USDC (1100000000) leave your account")
        assert perps() == 19 * UNIT  # 10 and the 1 USDC fee, as the dialog said

        await pilot.press("f3")
        await wait_until(
            pilot, lambda: "no first-send fee" in _text(app, "#venue-account"), what="fee paid"
        )
        note = " ".join(_text(app, "#first-send-warning").split())
        assert note == "This account's first send is made: no venue first-send fee."
        second = (await _withdraw(pilot, "5"))[1]
        assert "fee none: this account's first send is made" in second
        assert second.startswith("In total 5 USDC (500000000) leaves your account")
        assert "first-send fee 1 USDC" not in second
        assert perps() == 14 * UNIT


async def test_a_withdrawal_pays_the_current_wallet_after_a_signer_switch(
    world: Any, tui_dir: Path
) -> None:
    """Issue 35 point 2: a withdrawal opened from the Venue screen with no recipient typed pays
    whichever wallet is current: after switching to a read-only address in Settings, the Quote
    options never say "send to" the previous wallet and the request pays the new one; a
    recipient the user typed stays as typed through the switch."""
    from tui_support import watch_read_only

    a, app = _trader_app(world, tui_dir, 12)
    b = Account.create().address
    typed = Account.create().address

    def options_line() -> str:
        return " ".join(str(app.quote_screen.query_one("#options-line").render()).split())

    async def switch_to(address: str) -> None:
        await watch_read_only(pilot, address)
        await wait_until(pilot, lambda: app.services.wallet_address == address, what="switch")
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.current_mode == "quote", what="the quote screen")

    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.data.get("account"), what="the account")
        app.screen.query_one("#wd-amount", Input).value = "5"
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: app.screen.quote is not None, what="A's quote")
        assert app.screen.request.user == a.address
        assert app.screen.request.recipient in (None, a.address)
        assert "send to" not in options_line()

        await switch_to(b)
        assert "send to" not in options_line() and a.address[:6] not in options_line()
        assert app.quote_screen.form_values().recipient == ""
        await pilot.press("ctrl+r")
        await wait_until(
            pilot,
            lambda: app.quote_screen.quote is not None and app.quote_screen.request.user == b,
            what="B's quote",
        )
        assert app.quote_screen.request.recipient in (None, b)

        # a recipient the user typed is theirs: it stays through a switch
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.current_mode == "venue", what="the venue screen")
        app.screen.query_one("#wd-recipient", Input).value = typed
        await pilot.press("ctrl+y")
        await wait_until(
            pilot, lambda: app.quote_screen.form_values().recipient == typed, what="typed"
        )
        await switch_to(Account.create().address)
        assert app.quote_screen.form_values().recipient == typed
        assert f"send to {typed[:6]}…{typed[-4:]}" in options_line()
