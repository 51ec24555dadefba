"""EVM-origin flows by hand: a native depository deposit, a permit, fee sponsorship, the demo
failure and a reused order id. Each checks balances against the quote, the webhooks (every one
HMAC-verified by the receiver) and the history."""

from __future__ import annotations

from typing import Any

from .byhand import NATIVE, Hand, gas_cost, only_item, request_id, wait_children
from .conftest import HOOK_HEADER, Flow

ETH = 10**18
USDC = 10**6


def native_quote(hand: Hand, user: str, recipient: str, amount: int, **extra: Any) -> dict:
    return hand.quote(
        {
            "user": user,
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": NATIVE,
            "destinationCurrency": NATIVE,
            "amount": str(amount),
            "tradeType": "EXACT_INPUT",
            "recipient": recipient,
            **extra,
        }
    )


def test_native_8453_to_999(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account(native=2 * ETH)
    recipient = hand.new_address()
    quote = native_quote(hand, user.address, recipient, ETH // 2)
    rid = request_id(quote)
    assert [s["id"] for s in quote["steps"]] == ["deposit"]
    deposit = only_item(quote, "deposit")
    assert deposit["to"] == quote["protocol"]["v2"]["paymentDetails"]["depository"]
    assert int(deposit["value"]) == ETH // 2
    assert quote["protocol"]["v2"]["orderId"][2:] in deposit["data"]

    before = hand.rpc[8453].balance(user.address)
    receipt = hand.rpc[8453].send(user, deposit)
    final = hand.wait_final(rid)

    assert final["status"] == "success"
    assert final["inTxHashes"] == [receipt["transactionHash"]]
    out = int(quote["details"]["currencyOut"]["amount"])
    assert hand.rpc[999].balance(recipient) == out
    assert hand.rpc[8453].balance(user.address) == before - ETH // 2 - gas_cost(receipt)

    assert flow.hooks.wait_for(rid, "success") == ["pending", "submitted", "success"]
    for delivery in flow.hooks.deliveries(rid):
        assert delivery.headers.get(HOOK_HEADER[0]) == HOOK_HEADER[1]
        assert delivery.payload["event"] == "request.status.updated"
        assert delivery.payload["data"]["originChainId"] == 8453
        assert delivery.payload["data"]["destinationChainId"] == 999
        assert delivery.payload["data"]["depositAddress"] is None
    success = flow.hooks.deliveries(rid)[-1].payload["data"]
    assert success["txHashes"] == final["txHashes"] and len(success["txHashes"]) == 1
    assert success["inTxHashes"] == [receipt["transactionHash"]]
    assert success["failReason"] == "N/A"

    [entry] = hand.history(id=rid)
    assert entry["status"] == "success"
    assert entry["user"] == user.address and entry["recipient"] == recipient
    [in_tx] = entry["data"]["inTxs"]
    assert in_tx["hash"] == receipt["transactionHash"] and in_tx["chainId"] == 8453
    [out_tx] = entry["data"]["outTxs"]
    assert out_tx["chainId"] == 999 and out_tx["hash"] == final["txHashes"][0]
    assert out_tx["data"]["to"] == recipient and int(out_tx["data"]["value"]) == out


def test_usdc_permit_passes_through_depositing(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account(usdc={8453: 50 * USDC})  # no native: the service pays the gas
    recipient = hand.new_address()
    quote = hand.quote(
        {
            "user": user.address,
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": hand.usdc[8453],
            "destinationCurrency": hand.usdc[999],
            "amount": str(20 * USDC),
            "tradeType": "EXACT_INPUT",
            "recipient": recipient,
            "usePermit": True,
        }
    )
    rid = request_id(quote)
    [step] = quote["steps"]
    assert step["kind"] == "signature"
    hand.execute_permit(user, only_item(quote, "deposit"))
    final = hand.wait_final(rid)

    assert final["status"] == "success"
    out = int(quote["details"]["currencyOut"]["amount"])
    assert hand.rpc[999].erc20_balance(hand.usdc[999], recipient) == out
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], user.address) == 30 * USDC
    assert hand.rpc[8453].balance(user.address) == 0
    statuses = flow.hooks.wait_for(rid, "success")
    assert statuses == ["depositing", "pending", "submitted", "success"]
    [entry] = hand.history(id=rid)
    assert [tx["hash"] for tx in entry["data"]["inTxs"]] == final["inTxHashes"]


def test_fee_sponsorship_records_the_sponsor_payment(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account(native=ETH)
    recipient = hand.new_address()
    quote = native_quote(
        hand, user.address, recipient, ETH // 10,
        subsidizeFees=True, sponsoredFeeComponents=["execution"],
    )  # fmt: skip
    rid = request_id(quote)
    quoted = quote["feeSponsorship"]["quoted"]
    assert int(quoted["sponsoredTotal"]["amount"]) > 0
    hand.rpc[8453].send(user, only_item(quote, "deposit"))
    assert hand.wait_final(rid)["status"] == "success"

    assert hand.rpc[999].balance(recipient) == int(quote["details"]["currencyOut"]["amount"])
    [entry] = hand.history(id=rid)
    assert entry["data"]["subsidizedRequest"] is True
    actual = entry["data"]["feeSponsorship"]["actual"]
    payment = actual["sponsorPayment"]
    assert payment["amount"] == quoted["sponsoredTotal"]["amount"]
    assert payment["chainId"] == 8453
    assert flow.hooks.wait_for(rid, "success") == ["pending", "submitted", "success"]


def test_demo_failure_then_refund(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account(native=ETH)
    recipient, refund_to = hand.new_address(), hand.new_address()
    quote = native_quote(
        hand, user.address, recipient, ETH // 4, refundTo=refund_to, referrer="demo:fail"
    )
    rid = request_id(quote)
    receipt = hand.rpc[8453].send(user, only_item(quote, "deposit"))
    final = hand.wait_final(rid)

    assert final["status"] == "refund"
    assert final["failReason"] == "TRANSFER_FAILED"
    assert hand.rpc[999].balance(recipient) == 0
    assert hand.rpc[8453].balance(refund_to) == ETH // 4
    assert flow.hooks.wait_for(rid, "refund") == ["pending", "failure", "refund"]
    reasons = [d.payload["data"]["failReason"] for d in flow.hooks.deliveries(rid)]
    assert reasons == ["N/A", "TRANSFER_FAILED", "TRANSFER_FAILED"]

    [entry] = hand.history(id=rid)
    assert entry["status"] == "refund"
    assert entry["data"]["failReason"] == "TRANSFER_FAILED"
    assert [tx["hash"] for tx in entry["data"]["inTxs"]] == [receipt["transactionHash"]]
    [refund_tx] = entry["data"]["outTxs"]
    assert refund_tx["chainId"] == 8453 and refund_tx["data"]["to"] == refund_to


def test_reused_order_id_is_a_double_spend(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account(native=2 * ETH)
    recipient, refund_to = hand.new_address(), hand.new_address()
    quote = native_quote(hand, user.address, recipient, ETH // 5, refundTo=refund_to)
    rid = request_id(quote)
    deposit = only_item(quote, "deposit")
    hand.rpc[8453].send(user, deposit)
    assert hand.wait_final(rid)["status"] == "success"
    second = hand.rpc[8453].send(user, deposit)  # the same order id, paid again

    [child] = wait_children(hand, rid, 1)
    assert child["status"] == "refund"
    assert child["data"]["failReason"] == "DOUBLE_SPEND"
    assert [tx["hash"] for tx in child["data"]["inTxs"]] == [second["transactionHash"]]
    assert hand.rpc[8453].balance(refund_to) == ETH // 5
    assert hand.rpc[999].balance(recipient) == int(quote["details"]["currencyOut"]["amount"])
    assert hand.status(rid)["status"] == "success"
    assert flow.hooks.wait_for(child["id"], "refund") == ["pending", "refund"]
    last = flow.hooks.deliveries(child["id"])[-1].payload["data"]
    assert last["failReason"] == "DOUBLE_SPEND"
