"""Quote -> confirm -> execute -> success against the demo world, from the keyboard: an EVM ->
venue deposit (approve + deposit, two transaction confirmations) and a venue withdrawal (the
NonceMapping and the sendAsset, two signature confirmations); a guard refusal and a declined
signature are shown to the user with nothing sent."""

from __future__ import annotations

import asyncio
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from textual.widgets import DataTable, Input, Static
from tui_support import (
    chains_loaded,
    event_from_json,
    load_fixture,
    make_app,
    notifications,
    open_options,
    pick,
    quote_and_execute,
    screen_text,
    settled_text,
    wait_until,
    world_settings,
)

from crossdeck.execute import events as ev
from crossdeck.models import Quote, QuoteRequest
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.execute import ExecuteScreen
from crossdeck.tui.widgets.picker import Picker

PERPS = "0x" + "0" * 32


def _withdrawable(world: Any) -> Decimal:
    body = {"type": "clearinghouseState", "user": world.wallet_address}
    return Decimal(httpx.post(world.venue_url + "/info", json=body).json()["withdrawable"])


async def _confirm_each(pilot: Any, execute: ExecuteScreen, answers: list[str]) -> list[str]:
    """Answer the confirm dialogs in turn; the screen text of each dialog."""
    seen = []
    for answer in answers:
        dialog = await wait_until(
            pilot,
            lambda: isinstance(pilot.app.screen, ConfirmScreen) and pilot.app.screen,
            what=f"confirm dialog {len(seen) + 1}",
            within=60,
        )
        # what the screen shows, and the whole of what will be signed (it scrolls in the box)
        lines = dialog.query_one("#confirm-lines", Static).content
        seen.append(screen_text(pilot.app) + "\n" + getattr(lines, "plain", str(lines)))
        assert dialog.request.guards and all(g.ok for g in dialog.request.guards)
        await pilot.press(answer)
        await wait_until(pilot, lambda d=dialog: pilot.app.screen is not d, what="it to close")
    return seen


async def test_evm_to_venue_deposit_from_the_venue_form(world: Any, tui_dir: Path) -> None:
    before = _withdrawable(world)
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await pilot.press("f3")
        await wait_until(pilot, lambda: "USDC from perps" in screen_text(app), what="venue")
        venue = app.screen
        assert venue.query_one("#dep-currency", Picker).value != "0x" + "0" * 40  # USDC
        venue.query_one("#dep-amount", Input).value = "25"
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: app.current_mode == "quote", what="the Quote screen")
        form = await wait_until(
            pilot,
            lambda: (
                app.quote_screen.form_values().amount == "25" and app.quote_screen.form_values()
            ),
            what="the prefilled form",
        )
        assert form.destination_chain_id == 1337 and form.destination_currency == PERPS
        # no recipient typed: none is carried over, and the quote pays the current wallet
        assert form.recipient == ""
        execute = await quote_and_execute(pilot)
        assert app.quote_screen.request is not None
        assert app.quote_screen.request.recipient in (None, world.wallet_address)
        dialogs = await _confirm_each(pilot, execute, ["y", "y"])
        # amounts in the token's units beside the integer, the calldata decoded by its ABI
        assert "approve 25 USDC (25000000) to the depository 0x" in dialogs[0]
        assert "the payment token 0x" in dialogs[0] and "(8453)" in dialogs[0]
        assert "deposit 25 USDC (25000000) of the payment token" in dialogs[1]
        assert "into the depository 0x" in dialogs[1] and " ETH (0 wei)" in dialogs[1]
        assert "selector" not in dialogs[0] + dialogs[1]
        await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
        text = await settled_text(pilot)
        # what came back, from the final record: amounts in units and USD, fees in words
        assert "SUCCESS" in text and "failReason" not in text
        assert outcome.came_back is not None and outcome.came_back.sent == "25 USDC, $25.00"
        assert re.search(r"received [0-9][0-9,.]* USDC, \$[0-9,]+\.[0-9]{2}", text), text
        assert any(label.startswith("paid on ") for label, _ in outcome.came_back.links)
        # Base has an explorer; the world's venue lists none (explorerUrl empty), so its fill
        # is given as the bare transaction hash to copy
        links = dict(outcome.came_back.links)
        assert links["paid on Base"].startswith("https://"), links
        assert links["filled on Venue"] in outcome.tx_hashes, links
        sent = [e for e in execute.events if isinstance(e, ev.TxSent)]
        assert len(sent) == 2
        assert any(e.hash in execute._log.plain for e in sent)
        received = Decimal(execute.quote.details.currency_out.amount_formatted)
    assert _withdrawable(world) - before == received


async def test_venue_withdrawal_confirms_both_signatures(world: Any, tui_dir: Path) -> None:
    before = _withdrawable(world)
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await pilot.press("f3")
        await wait_until(pilot, lambda: "USDC from perps" in screen_text(app), what="venue")
        # the first-send fee is named on the withdrawal form itself (no longer a notification)
        assert "first-send fee" in " ".join((await settled_text(pilot)).split())
        app.screen.query_one("#wd-amount", Input).value = "10"
        await pilot.press("ctrl+y")
        await wait_until(
            pilot,
            lambda: app.quote_screen.form_values().origin_chain_id == 1337,
            what="the prefilled withdrawal",
        )
        execute = await quote_and_execute(pilot)
        assert app.quote_screen.request.protocol_version == "v2"
        dialogs = await _confirm_each(pilot, execute, ["y", "y"])
        # typed data and the POST body as JSON, never a Python dict
        assert "EIP-712 NonceMapping" in dialogs[0]
        assert '"name": "ServiceNonceMapping"' in dialogs[0]
        assert "nonce (uint256) = " in dialogs[0]
        assert "POST /authorize with this body:" in dialogs[0]
        assert '"signatureChainId": 1' in dialogs[0] and "'" not in dialogs[0].split("body")[-1]
        # the venue transfer titled as one, its amount as the typed data carries it
        assert "Sign the venue transfer (VenueTransaction:SendAsset)" in dialogs[1]
        assert "send 10.000000 USDC" in dialogs[1] and "from perps" in dialogs[1]
        assert '"name": "VenueSignTransaction"' in dialogs[1]
        assert 'amount (string) = "10.000000"' in dialogs[1]
        assert "destination (string)" in dialogs[1]
        await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
        assert isinstance(execute.outcome, ev.Finished) and execute.outcome.status == "success"
        kinds = [type(e).__name__ for e in execute.events]
        assert kinds.index("Posted") < kinds.index("VenueSubmitted") < kinds.index("Finished")
        assert "posted /authorize" in (await settled_text(pilot)) or "posted" in (
            await settled_text(pilot)
        )
    # 10, plus the venue's ~1 USDC fee when this was the account's first outbound send
    assert Decimal(10) <= before - _withdrawable(world) <= Decimal(11)


async def test_guard_refusal_is_shown_and_nothing_is_signed(world: Any, tui_dir: Path) -> None:
    # a profile whose RPC for chain 8453 serves another chain cannot send the deposit (the
    # settings' RPC wins over /chains'): refused before signing
    settings = world_settings(world, tui_dir, rpc={8453: world.rpc[999], 999: world.rpc[999]})
    app = make_app(world, tui_dir, settings=settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        app.quote_screen.query_one("#amount", Input).value = "0.01"
        execute = await quote_and_execute(pilot)
        await wait_until(pilot, lambda: execute.outcome is not None, what="the refusal")
        outcome = execute.outcome
        assert isinstance(outcome, ev.Failed) and outcome.error_type == "GuardRefused"
        assert [f.name for f in outcome.failures] == ["rpc-chain-id"]
        text = await settled_text(pilot)
        assert "REFUSED" in text and "✗ rpc-chain-id" in text
        assert not any(isinstance(e, ev.Signed | ev.TxSent) for e in execute.events)
        assert ("Refused before signing", "error") in [(t, s) for t, _, s in notifications(app)]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.quote_screen, what="back to the quote")
        assert app.quote_screen.quote is None and "refused before signing" in (
            await settled_text(pilot)
        )


async def test_declining_a_signature_stops_the_run(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        app.quote_screen.query_one("#amount", Input).value = "0.01"
        execute = await quote_and_execute(pilot)
        await _confirm_each(pilot, execute, ["n"])
        await wait_until(pilot, lambda: execute.outcome is not None, what="the end")
        assert isinstance(execute.outcome, ev.Failed) and execute.outcome.error_type == "Declined"
        assert not any(isinstance(e, ev.TxSent) for e in execute.events)
        text = await settled_text(pilot)  # the user's choice, not a failure
        assert "DECLINED" in text and "nothing was sent" in text and "FAILED" not in text


async def test_a_failed_then_refunded_request_shows_its_fail_reason(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        app.quote_screen.query_one("#amount", Input).value = "0.01"
        # the demo world's trigger: the solver declines, the deposit is refunded
        await open_options(pilot)
        app.quote_screen.query_one("#referrer", Input).value = "demo:fail:SLIPPAGE"
        execute = await quote_and_execute(pilot)
        await _confirm_each(pilot, execute, ["y"])
        await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "refund", outcome
        assert outcome.fail_reason == "SLIPPAGE"
        text = await settled_text(pilot)
        assert "REFUND" in text and "slippage allowed" in text and "[SLIPPAGE]" in text
        # what came back, in words: how much of what, on which chain, to whom, with the tx
        refund = outcome.refund
        assert refund is not None and refund.amount and refund.symbol == "ETH"
        flat = " ".join(text.split())
        wallet = app.services.wallet_address
        assert f"ETH ({refund.amount}) refunded on Base (8453) to {wallet}" in flat
        statuses = [e.status for e in execute.events if isinstance(e, ev.StatusChanged)]
        assert statuses[-1] == "refund"  # (at speed 0 a poll may not catch the failure between)


def _acknowledge_step(request_id: str) -> dict[str, Any]:
    """A step a POST answer may append (as tests/execute/appending_proxy.py does)."""
    return {
        "id": "acknowledge",
        "action": "Acknowledge the withdrawal",
        "kind": "signature",
        "requestId": request_id,
        "items": [
            {
                "status": "incomplete",
                "data": {
                    "sign": {"signatureKind": "eip191", "message": f"I asked for {request_id}"},
                    "post": {"endpoint": "/acknowledge", "method": "POST", "body": {}},
                },
            }
        ],
    }


async def test_steps_a_post_answer_appends_get_rows(world: Any, tui_dir: Path) -> None:
    """The executor appends to its own copy of the quote: the rows come from the Posted event
    (replayed through its JSON, as recorded runs are)."""
    data = load_fixture("run_withdrawal.json")
    request, quote = QuoteRequest.from_body(data["request"]), Quote.from_wire(data["quote"])
    quoted = len(quote.steps)
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = ExecuteScreen(request, quote, app.quote_screen.chains, autostart=False)
        await app.push_screen(screen)
        table = screen.query_one("#exec-items", DataTable)
        rows = table.row_count
        posted = ev.Posted(
            "/authorize", "authorize", 0, ("acknowledge",), (_acknowledge_step(quote.request_id),)
        )
        screen.apply(event_from_json(json.loads(json.dumps(posted.to_json()))))
        await pilot.pause()
        assert table.row_count == rows + 1
        assert len(quote.steps) == quoted  # the screen's quote is not the executor's
        key = f"{quoted}:0"
        assert [str(c) for c in table.get_row(key)[:3]] == [f"{quoted + 1}.1", "acknowledge",
                                                            "signature"]  # fmt: skip
        screen.apply(ev.StepStarted("acknowledge", quoted, 0, "signature"))
        screen.apply(ev.Posted("/acknowledge", "acknowledge", 0))
        await pilot.pause()
        assert str(table.get_cell(key, table.ordered_columns[4].key)).startswith("posted")
        assert "the service added step acknowledge" in str(screen._log)


async def test_the_run_says_which_rpc_comes_from_chains(world: Any, tui_dir: Path) -> None:
    """Settings with no RPC for the paying chain (8453): the run uses /chains' and says so."""
    settings = world_settings(world, tui_dir, rpc={999: world.rpc[999]})
    app = make_app(world, tui_dir, settings=settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        app.quote_screen.query_one("#amount", Input).value = "0.01"
        execute = await quote_and_execute(pilot)
        await _confirm_each(pilot, execute, ["y"])
        await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
        assert isinstance(execute.outcome, ev.Finished), execute.outcome
        log = " ".join(str(execute.query_one("#exec-log-text", Static).render()).split())
        assert f"chain 8453: RPC {world.rpc[8453]} (the service's /chains httpRpcUrl" in log


async def test_a_self_executed_swap_shows_what_the_simulation_saw(
    world: Any, tui_dir: Path
) -> None:
    """ETH -> USDC on Base from the Quote form: the world quotes the router's swap, and the
    confirm dialog shows the simulated balance changes beside the undecoded call."""
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        await pick(pilot, "#destination-chain", "(8453)")
        await pick(pilot, "#destination-currency", "usdc")
        usdc = world.chains[8453].usdc
        assert str(screen.form_values().destination_currency).lower() == usdc.lower()
        await pilot.click("#amount")
        screen.query_one("#amount", Input).value = ""
        await pilot.press(*"0.01")
        execute = await quote_and_execute(pilot)
        assert [s.id for s in execute.quote.steps] == ["swap"]
        [dialog] = await _confirm_each(pilot, execute, ["y"])
        flat = " ".join(dialog.split())
        assert "simulated you send 0.01 ETH, you receive at least" in flat
        await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome


async def test_a_call_from_the_quote_form_runs_on_the_destination(
    world: Any, tui_dir: Path
) -> None:
    """The form's calls field (TO,VALUE,DATA as --call takes it): the quote carries the call,
    the run succeeds, and the destination contract saw the call and its value."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "execute"))
    from test_calls import deploy_target, poke_data, read

    from crossdeck.tui.quote_form import QuoteFormValues

    target = await asyncio.to_thread(deploy_target, world)  # it runs a loop of its own
    value = 10**15  # 0.001 ETH of the 0.01 bridged
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        native = "0x" + "0" * 40
        app.quote_screen.apply_values(
            QuoteFormValues(
                origin_chain_id=8453, origin_currency=native,
                destination_chain_id=999, destination_currency=native,
                amount="0.01", calls=f"{target},{value},{poke_data(9)}",
            )
        )  # fmt: skip
        await pilot.pause()
        execute = await quote_and_execute(pilot)
        assert len(execute.request.txs or []) == 1
        await _confirm_each(pilot, execute, ["y"])
        await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
        assert isinstance(execute.outcome, ev.Finished), execute.outcome
        assert execute.outcome.status == "success"
    assert read(world, target, "calls()") == 1  # (read is plain JSON-RPC over httpx)
    assert read(world, target, "last_value()") == value
    assert read(world, target, "last_note()") == 9
