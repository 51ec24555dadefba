"""Deposit addresses by hand: a plain transfer to the address the quote names, open or strict,
paid exactly, short or long."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .byhand import NATIVE, Hand, only_item, request_id, step, wait_children
from .conftest import Flow

ETH = 10**18
QUOTED = ETH // 10


def address_quote(hand: Hand, user, recipient: str, refund_to: str, *, strict: bool) -> dict:
    return hand.quote(
        {
            "user": user.address,
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": NATIVE,
            "destinationCurrency": NATIVE,
            "amount": str(QUOTED),
            "tradeType": "EXACT_INPUT",
            "recipient": recipient,
            "refundTo": refund_to,
            "useDepositAddress": True,
            "strict": strict,
        }
    )


@dataclass
class Paid:
    rid: str
    quoted_out: int
    user: str
    recipient: str
    refund_to: str
    address: str
    tx_hash: str


def pay(flow: Flow, *, strict: bool, paid: int) -> Paid:
    """Quote, then send `paid` wei to the deposit address by a plain transfer."""
    hand = flow.hand
    user = hand.fresh_account(native=ETH)
    recipient, refund_to = hand.new_address(), hand.new_address()
    quote = address_quote(hand, user, recipient, refund_to, strict=strict)
    deposit = only_item(quote, "deposit")
    # as the public service writes it: the address to pay is the step's, the depository stays
    # the contract /chains names
    address = step(quote, "deposit")["depositAddress"]
    payment = quote["protocol"]["v2"]["paymentDetails"]
    assert payment["depository"] == hand.protocol_chain(8453)["depository"] != address
    assert deposit["to"] == address and deposit["data"] == "0x"
    assert int(deposit["value"]) == QUOTED
    receipt = hand.rpc[8453].transfer(user, address, paid)
    return Paid(
        rid=request_id(quote),
        quoted_out=int(quote["details"]["currencyOut"]["amount"]),
        user=user.address,
        recipient=recipient,
        refund_to=refund_to,
        address=address,
        tx_hash=receipt["transactionHash"],
    )


def check_deposit_address_hooks(flow: Flow, p: Paid, kind: str) -> None:
    deliveries = flow.hooks.deliveries(p.rid)
    assert deliveries
    for delivery in deliveries:
        expected: dict[str, Any] = {
            "address": p.address,
            "depositAddressType": kind,
            "depositor": p.user,
            "depositTxHash": p.tx_hash,
        }
        assert delivery.payload["data"]["depositAddress"] == expected


def test_strict_exact_payment_is_filled(flow: Flow) -> None:
    p = pay(flow, strict=True, paid=QUOTED)
    hand = flow.hand
    assert hand.wait_final(p.rid)["status"] == "success"
    assert hand.rpc[999].balance(p.recipient) == p.quoted_out
    assert hand.rpc[8453].balance(p.refund_to) == 0
    assert flow.hooks.wait_for(p.rid, "success") == ["pending", "submitted", "success"]
    check_deposit_address_hooks(flow, p, "strict")
    [entry] = hand.history(depositAddress=p.address)
    assert entry["id"] == p.rid and entry["status"] == "success"
    assert entry["depositAddress"]["depositTxHash"] == p.tx_hash


def test_strict_underpayment_is_refunded(flow: Flow) -> None:
    paid = QUOTED * 3 // 4
    p = pay(flow, strict=True, paid=paid)
    hand = flow.hand
    final = hand.wait_final(p.rid)
    assert final["status"] == "refund"
    assert final["failReason"] == "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL"
    assert hand.rpc[8453].balance(p.refund_to) == paid
    assert hand.rpc[999].balance(p.recipient) == 0
    assert flow.hooks.wait_for(p.rid, "refund") == ["pending", "refund"]
    check_deposit_address_hooks(flow, p, "strict")
    [entry] = hand.history(id=p.rid)
    assert entry["data"]["failReason"] == "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL"
    assert entry["data"]["outTxs"][0]["data"]["to"] == p.refund_to


def test_strict_overpayment_fills_the_quote_and_refunds_the_excess(flow: Flow) -> None:
    excess = QUOTED // 2
    p = pay(flow, strict=True, paid=QUOTED + excess)
    hand = flow.hand
    assert hand.wait_final(p.rid)["status"] == "success"
    [child] = wait_children(hand, p.rid, 1)

    assert hand.rpc[999].balance(p.recipient) == p.quoted_out
    assert hand.rpc[8453].balance(p.refund_to) == excess
    assert child["status"] == "refund"
    assert child["data"]["failReason"] == "INCORRECT_PAYMENT"
    assert [tx["hash"] for tx in child["data"]["inTxs"]] == [p.tx_hash]
    [refund_tx] = child["data"]["outTxs"]
    assert refund_tx["data"]["to"] == p.refund_to and int(refund_tx["data"]["value"]) == excess
    # the leg names its own amount, in the parent's currency, so a listing can show it
    [parent] = hand.history(id=p.rid)
    leg_in = child["data"]["metadata"]["currencyIn"]
    assert leg_in["currency"] == parent["data"]["metadata"]["currencyIn"]["currency"]
    assert leg_in["amount"] == str(excess) and child["data"]["currency"] == "eth"
    assert flow.hooks.wait_for(p.rid, "success") == ["pending", "submitted", "success"]
    assert flow.hooks.wait_for(child["id"], "refund") == ["pending", "refund"]
    listed = hand.history(depositAddress=p.address, includeChildRequests="true")
    assert {r["id"] for r in listed} == {p.rid, child["id"]}


def test_open_address_fills_what_arrives_at_the_quoted_rate(flow: Flow) -> None:
    paid = QUOTED * 3 // 2
    p = pay(flow, strict=False, paid=paid)
    hand = flow.hand
    assert hand.wait_final(p.rid)["status"] == "success"
    assert hand.rpc[999].balance(p.recipient) == p.quoted_out * paid // QUOTED
    assert hand.rpc[8453].balance(p.refund_to) == 0
    assert flow.hooks.wait_for(p.rid, "success") == ["pending", "submitted", "success"]
    check_deposit_address_hooks(flow, p, "open")
    [entry] = hand.history(id=p.rid)
    assert entry["data"]["price"] == str(paid)
    assert entry["depositAddress"]["depositor"] == p.user
