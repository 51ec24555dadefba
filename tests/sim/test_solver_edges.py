"""Less common paths of the solver, still by hand: the gas top-up, a wrong currency paid into a
deposit address, a venue transfer sent before its nonce was mapped, and a world with the public
brand's names started with `async with World(...)`."""

from __future__ import annotations

import time
from decimal import Decimal

from crossdeck.sim.world import World

from .byhand import NATIVE, PERPS_USDC, Hand, only_item, request_id, step
from .conftest import Flow

ETH = 10**18
USDC = 10**6


def test_gas_topup_is_delivered_with_the_fill(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account(native=ETH, usdc={8453: 30 * USDC})
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
            "topupGas": True,
        }
    )
    rid = request_id(quote)
    topup = int(quote["details"]["currencyGasTopup"]["amount"])
    assert topup > 0
    for each in quote["steps"]:
        hand.rpc[8453].send(user, only_item(quote, each["id"]))
    assert hand.wait_final(rid)["status"] == "success"

    out = int(quote["details"]["currencyOut"]["amount"])
    assert hand.rpc[999].erc20_balance(hand.usdc[999], recipient) == out
    assert hand.rpc[999].balance(recipient) == topup
    [entry] = hand.history(id=rid)
    assert len(entry["data"]["outTxs"]) == 2
    assert flow.hooks.wait_for(rid, "success") == ["pending", "submitted", "success"]


def test_wrong_currency_at_a_deposit_address_is_refunded_in_that_currency(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account(native=ETH, usdc={8453: 10 * USDC})
    refund_to = hand.new_address()
    quote = hand.quote(
        {
            "user": user.address,
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": NATIVE,
            "destinationCurrency": NATIVE,
            "amount": str(ETH // 10),
            "tradeType": "EXACT_INPUT",
            "refundTo": refund_to,
            "useDepositAddress": True,
            "strict": True,
        }
    )
    rid = request_id(quote)
    address = step(quote, "deposit")["depositAddress"]  # the depository stays the contract
    hand.rpc[8453].erc20_transfer(user, hand.usdc[8453], address, 7 * USDC)  # USDC, not ETH
    final = hand.wait_final(rid)

    assert final["status"] == "refund"
    assert final["failReason"] == "INCORRECT_DEPOSIT_CURRENCY"
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], refund_to) == 7 * USDC
    assert flow.hooks.wait_for(rid, "refund") == ["pending", "refund"]
    flow.world.wait_idle()  # the sweep of the deposit address runs after the refund
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], address) == 0


def venue_withdrawal(hand: Hand, user, amount: str) -> dict:
    return hand.quote(
        {
            "user": user.address,
            "originChainId": 1337,
            "destinationChainId": 8453,
            "originCurrency": PERPS_USDC,
            "destinationCurrency": hand.usdc[8453],
            "amount": str(int(Decimal(amount) * 10**8)),
            "tradeType": "EXACT_INPUT",
            "protocolVersion": "v2",
        }
    )


def test_venue_transfer_waits_unmatched_until_its_nonce_is_mapped(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account()
    hand.venue_send(hand.wallet, user.address, "20")
    quote = venue_withdrawal(hand, user, "5")
    rid = request_id(quote)
    deposit = only_item(quote, "deposit")
    hand.send_asset(user, deposit, chain_id=1)  # no /authorize yet

    solver = flow.world.engine
    deadline = time.monotonic() + 30
    while not any(s.nonce == deposit["nonce"] for s in list(solver.unmatched)):
        assert time.monotonic() < deadline, "the solver never saw the sendAsset"
        time.sleep(0.05)
    assert hand.status(rid)["status"] == "waiting"

    hand.authorize(user, only_item(quote, "authorize"))
    assert hand.wait_final(rid)["status"] == "success"
    out = int(quote["details"]["currencyOut"]["amount"])
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], user.address) == out
    assert not any(s.nonce == deposit["nonce"] for s in solver.unmatched)


async def test_public_brand_world_as_an_async_context_manager() -> None:
    async with World(brand="public", speed=0) as world:
        # the test's loop keeps running: synchronous client code cannot deadlock the world
        hand = Hand(world.info)
        assert hand.venue_name() == "Hyperliquid"
        user = hand.fresh_account()
        hand.venue_send(hand.wallet, user.address, "10")
        quote = venue_withdrawal(hand, user, "4")
        authorize, deposit = only_item(quote, "authorize"), only_item(quote, "deposit")
        assert authorize["sign"]["domain"]["name"] == "RelayNonceMapping"
        assert authorize["sign"]["value"]["chainId"] == "hyperliquid"
        assert deposit["eip712PrimaryType"] == "HyperliquidTransaction:SendAsset"
        assert "hyperliquidChain" in deposit["action"]["parameters"]
        hand.authorize(user, authorize)
        hand.send_asset(user, deposit, chain_id=42161)
        rid = request_id(quote)
        assert hand.wait_final(rid)["status"] == "success"
        # 10 - 4: the account was created by a send that carried the 1 USDC fee (the sender
        # paid it, as the venue ledger records), so its own first send owes none
        assert hand.withdrawable(user.address) == Decimal("6")


def test_venue_withdrawal_demo_failure_is_refunded_on_the_venue(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account()
    hand.venue_send(hand.wallet, user.address, "30")
    quote = hand.quote(
        {
            "user": user.address,
            "originChainId": 1337,
            "destinationChainId": 8453,
            "originCurrency": PERPS_USDC,
            "destinationCurrency": hand.usdc[8453],
            "amount": str(12 * 10**8),
            "tradeType": "EXACT_INPUT",
            "protocolVersion": "v2",
            "referrer": "demo:fail:SLIPPAGE",
        }
    )
    rid = request_id(quote)
    hand.authorize(user, only_item(quote, "authorize"))
    hand.send_asset(user, only_item(quote, "deposit"), chain_id=1)
    final = hand.wait_final(rid)

    assert final["status"] == "refund" and final["failReason"] == "SLIPPAGE"
    # all of it back: the send that created the account paid its activation, so the failed
    # withdrawal carried no fee
    assert hand.withdrawable(user.address) == Decimal("30")
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], user.address) == 0
    assert flow.hooks.wait_for(rid, "refund") == ["pending", "failure", "refund"]
    [entry] = hand.history(id=rid)
    [refund_tx] = entry["data"]["outTxs"]
    assert refund_tx["chainId"] == 1337 and refund_tx["data"]["to"] == user.address
