"""Every flow of the issue, executed by the Executor against the demo world on both chain
backends; each ends with the balances the quote promised."""

from __future__ import annotations

import json
from decimal import Decimal

from execute_support import (
    ETH,
    PERPS_USDC,
    USDC,
    VENUE_UNIT,
    Kit,
    finished,
    fund,
    gas_paid,
    new_address,
    of_type,
    quote_native,
    usdc_address,
    webhook_tracker,
)

from crossdeck.execute import (
    AwaitingConfirmation,
    AwaitingSignature,
    Posted,
    StatusChanged,
    TxConfirmed,
    TxSent,
    VenueSubmitted,
)


def assert_no_secret(kit: Kit, events: list) -> None:
    """Every event is JSON, and neither the key nor a signature is in any of them."""
    text = json.dumps([e.to_json() for e in events])
    assert kit.key[2:] not in text.lower()
    for row in kit.journal.items(events[-1].request_id):
        if row.signed and "signature" in row.signed:
            signature = row.signed["signature"]
            shown = signature["r"] if isinstance(signature, dict) else signature
            assert shown[2:] not in text


async def test_native_evm_to_evm(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={8453: 2 * ETH})
    recipient = new_address()
    quote, request = await quote_native(kit, ETH // 2, recipient)
    before = await kit.native(8453, kit.address)
    events = await kit.run(quote, request=request)

    done = finished(events)
    assert done.status == "success" and done.exit_code == 0
    [sent] = of_type(events, TxSent)
    assert done.in_tx_hashes == (sent.hash,)
    assert [e.hash for e in of_type(events, TxConfirmed)] == [sent.hash]
    [asked] = kit.asked
    assert asked.kind == "transaction" and asked.payload["value"] == ETH // 2
    assert any("the depository" in str(line) for line in asked.lines)
    out = quote.details.currency_out.amount
    assert await kit.native(999, recipient) == out
    gas = await gas_paid(world, 8453, [sent.hash])
    assert await kit.native(8453, kit.address) == before - ETH // 2 - gas
    assert await kit.nonce(8453) == 1
    statuses = [e.status for e in of_type(events, StatusChanged)]
    assert statuses[-1] == "success"
    assert kit.journal.run(done.request_id).state == "finished"
    assert_no_secret(kit, events)


async def test_usdc_into_the_venue_approves_then_deposits(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={8453: ETH}, usdc={8453: 100 * USDC})
    quote, request = await kit.quote(
        origin_chain_id=8453,
        destination_chain_id=1337,
        origin_currency=usdc_address(world, 8453),
        destination_currency=PERPS_USDC,
        amount=str(40 * USDC),
        recipient=kit.address,
    )
    assert [s.id for s in quote.steps] == ["approve", "deposit"]
    venue_before = await kit.withdrawable()
    events = await kit.run(quote, request=request)

    assert finished(events).status == "success"
    confirmed = of_type(events, TxConfirmed)
    assert [e.step_id for e in confirmed] == ["approve", "deposit"]
    # the approve was mined before the deposit was even signed
    mined = next(i for i, e in enumerate(events) if isinstance(e, TxConfirmed))
    asked = [i for i, e in enumerate(events) if isinstance(e, AwaitingConfirmation)]
    assert events[asked[1]].what.step_id == "deposit" and mined < asked[1]
    out = quote.details.currency_out
    assert await kit.withdrawable() - venue_before == Decimal(out.amount_formatted)
    assert await kit.usdc(8453, kit.address) == 60 * USDC
    assert await kit.nonce(8453) == 2


async def _venue_withdrawal(kit: Kit, destination_chain: int) -> None:
    world = kit.world
    await fund(world, kit.address, venue_perps=100 * VENUE_UNIT)
    recipient = new_address()
    quote, request = await kit.quote(
        origin_chain_id=1337,
        destination_chain_id=destination_chain,
        origin_currency=PERPS_USDC,
        destination_currency=usdc_address(world, destination_chain),
        amount=str(25 * VENUE_UNIT),
        recipient=recipient,
        protocol_version="v2",
    )
    assert [s.id for s in quote.steps] == ["authorize", "deposit"]
    events = await kit.run(quote, request=request)

    assert finished(events).status == "success"
    asked = [e.what for e in of_type(events, AwaitingSignature)]
    assert [a.kind for a in asked] == ["typed_data", "venue_action"]
    authorize, send = asked
    # 4.4 chain id override: the configured signing chain id, in domain and body together
    assert authorize.payload["domain"]["chainId"] == kit.signing_chain_id
    body = [str(line) for line in authorize.lines if line.kind == "json"]
    assert any(f'"signatureChainId": {kit.signing_chain_id}' in line for line in body)
    assert send.payload["domain"]["name"] == "VenueSignTransaction"
    assert send.payload["message"]["signatureChainId"] == hex(kit.signing_chain_id)
    [posted] = of_type(events, Posted)
    assert posted.endpoint == "/authorize"
    [submitted] = of_type(events, VenueSubmitted)
    assert submitted.nonce == quote.step("deposit").items[0].as_venue_deposit().nonce
    out = quote.details.currency_out.amount
    assert await kit.usdc(destination_chain, recipient) == out
    # 25 sent plus the venue's 1 USDC fee on an account's first outbound send
    assert await kit.withdrawable() == Decimal(74)
    assert_no_secret(kit, events)


async def test_venue_withdrawal_to_evm(kit: Kit) -> None:
    await _venue_withdrawal(kit, 8453)


async def test_venue_withdrawal_to_999_signed_on_another_chain(make_kit, any_world) -> None:
    kit = make_kit(any_world, signing_chain_id=999)
    await _venue_withdrawal(kit, 999)


async def test_deposit_address_strict_exact_under_over_and_open(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={8453: 2 * ETH})
    quoted = ETH // 10

    async def pay(strict: bool, paid: int | None) -> tuple[str, str, int, object]:
        recipient, refund_to = new_address(), new_address()
        quote, request = await quote_native(
            kit,
            quoted,
            recipient,
            refund_to=refund_to,
            use_deposit_address=True,
            strict=strict,
        )
        events = await kit.run(quote, request=request, deposit_amount=paid)
        [asked] = of_type(events, AwaitingConfirmation)
        text = asked.what.describe()
        # the public shape: the step names the deposit address; the depository stays the contract
        address = quote.step("deposit").deposit_address
        assert address and address != quote.payment_details.depository
        assert f"deposit address {address}: {'strict' if strict else 'open'}" in text
        assert f"refunds go to {refund_to}" in text
        assert asked.what.payload["to"] == address and asked.what.payload["data"] == "0x"
        assert asked.what.payload["value"] == (paid or quoted)
        return recipient, refund_to, quote.details.currency_out.amount, finished(events)

    recipient, refund_to, out, done = await pay(True, None)
    assert done.status == "success" and await kit.native(999, recipient) == out
    assert await kit.native(8453, refund_to) == 0

    under = quoted * 3 // 4
    recipient, refund_to, _, done = await pay(True, under)
    assert done.status == "refund" and done.exit_code == 8
    assert done.fail_reason == "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL"
    assert await kit.native(8453, refund_to) == under
    assert await kit.native(999, recipient) == 0

    over = quoted + quoted // 2
    recipient, refund_to, out, done = await pay(True, over)
    assert done.status == "success" and await kit.native(999, recipient) == out
    world.wait_idle()  # the excess goes back in a separate refund leg
    assert await kit.native(8453, refund_to) == quoted // 2

    recipient, refund_to, out, done = await pay(False, over)
    assert done.status == "success"
    assert await kit.native(999, recipient) == out * over // quoted
    assert await kit.native(8453, refund_to) == 0


async def test_permit_passes_through_depositing(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, usdc={8453: 50 * USDC})  # no native: the service pays gas
    recipient = new_address()
    quote, request = await kit.quote(
        origin_chain_id=8453,
        destination_chain_id=999,
        origin_currency=usdc_address(world, 8453),
        destination_currency=usdc_address(world, 999),
        amount=str(20 * USDC),
        recipient=recipient,
        use_permit=True,
    )
    # 'depositing' may last a moment only: webhooks (through the track package's tracker)
    # report every status, where polling alone could miss it
    async with webhook_tracker(world) as tracker:
        kit.executor = kit.make_executor(follower=tracker)
        events = await kit.run(quote, request=request)

    assert finished(events).status == "success"
    changes = of_type(events, StatusChanged)
    by_webhook = [c.status for c in changes if c.source == "webhook"]
    assert by_webhook == ["depositing", "pending", "submitted", "success"]
    [asked] = of_type(events, AwaitingSignature)
    assert asked.what.payload["primaryType"] == "ReceiveWithAuthorization"
    assert any(g.name == "permit-terms" and g.ok for g in asked.what.guards)
    [posted] = of_type(events, Posted)
    # the world answers /quote/v3 by default, whose permits post to /execute/permits/v2
    assert posted.endpoint == "/execute/permits/v2"
    assert await kit.usdc(999, recipient) == quote.details.currency_out.amount
    assert await kit.usdc(8453, kit.address) == 30 * USDC
    assert await kit.native(8453, kit.address) == 0


async def test_fee_sponsorship(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={8453: ETH})
    recipient = new_address()
    quote, request = await quote_native(
        kit,
        ETH // 10,
        recipient,
        subsidize_fees=True,
        sponsored_fee_components=["execution"],
    )
    sponsored = quote.fee_sponsorship.quoted.sponsored_total.amount
    assert sponsored > 0
    events = await kit.run(quote, request=request)

    assert finished(events).status == "success"
    assert await kit.native(999, recipient) == quote.details.currency_out.amount
    [record] = [r async for r in kit.service.iter_requests(_by_id(quote.request_id))]
    assert record.data.subsidized_request is True


def _by_id(request_id: str):
    from crossdeck.models import RequestsQuery

    return RequestsQuery(id=request_id)


async def test_failure_then_refund(kit: Kit) -> None:
    world = kit.world
    await fund(world, kit.address, native={8453: ETH})
    recipient, refund_to = new_address(), new_address()
    quote, request = await quote_native(
        kit, ETH // 4, recipient, refund_to=refund_to, referrer="demo:fail"
    )
    events = await kit.run(quote, request=request)

    done = finished(events)
    assert done.status == "refund" and done.exit_code == 8
    assert done.fail_reason == "TRANSFER_FAILED"
    assert await kit.native(8453, refund_to) == ETH // 4
    assert await kit.native(999, recipient) == 0
