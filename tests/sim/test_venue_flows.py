"""Venue flows by hand: a USDC deposit into the venue (approve + depository deposit) and
withdrawals signed as the spec's 4.4 says (NonceMapping, then a sendAsset to the solver)."""

from __future__ import annotations

from decimal import Decimal

from .byhand import PERPS_USDC, Hand, only_item, request_id
from .conftest import Flow

ETH = 10**18
USDC = 10**6


def test_usdc_deposit_into_the_venue(flow: Flow) -> None:
    hand = flow.hand
    user = hand.fresh_account(native=ETH, usdc={8453: 100 * USDC})
    quote = hand.quote(
        {
            "user": user.address,
            "originChainId": 8453,
            "destinationChainId": 1337,
            "originCurrency": hand.usdc[8453],
            "destinationCurrency": PERPS_USDC,
            "amount": str(40 * USDC),
            "tradeType": "EXACT_INPUT",
            "recipient": user.address,
        }
    )
    rid = request_id(quote)
    assert [s["id"] for s in quote["steps"]] == ["approve", "deposit"]
    depository = hand.info["venue_depository"]  # venue fills come from it, not the solver
    held = hand.withdrawable(depository)
    hand.rpc[8453].send(user, only_item(quote, "approve"))
    receipt = hand.rpc[8453].send(user, only_item(quote, "deposit"))
    final = hand.wait_final(rid)

    assert final["status"] == "success"
    assert final["inTxHashes"] == [receipt["transactionHash"]]
    out = quote["details"]["currencyOut"]
    assert out["currency"]["chainId"] == 1337 and out["currency"]["decimals"] == 8
    assert hand.withdrawable(user.address) == Decimal(out["amountFormatted"])
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], user.address) == 60 * USDC
    assert flow.hooks.wait_for(rid, "success") == ["pending", "submitted", "success"]
    [entry] = hand.history(id=rid)
    [out_tx] = entry["data"]["outTxs"]
    assert out_tx["chainId"] == 1337 and out_tx["data"]["to"] == user.address
    assert out_tx["data"]["from"] == depository
    assert hand.withdrawable(depository) == held - Decimal(out["amountFormatted"])


def withdraw(hand: Hand, user, destination_chain: int, amount: int, **extra) -> dict:
    return hand.quote(
        {
            "user": user.address,
            "originChainId": 1337,
            "destinationChainId": destination_chain,
            "originCurrency": PERPS_USDC,
            "destinationCurrency": hand.usdc[destination_chain],
            "amount": str(amount),
            "tradeType": "EXACT_INPUT",
            "protocolVersion": "v2",
            **extra,
        }
    )


def venue_user(hand: Hand, amount: str) -> object:
    """A fresh key with `amount` perps USDC on the venue, sent to it by the demo wallet."""
    user = hand.fresh_account()
    hand.venue_send(hand.wallet, user.address, amount)
    assert hand.withdrawable(user.address) == Decimal(amount)
    return user


def test_venue_withdrawal_to_8453(flow: Flow) -> None:
    hand = flow.hand
    # the demo wallet's send creates the user and pays its activation (69e280c): the user's
    # own first send, the withdrawal, owes no fee (an account a deposit created owes it:
    # tests/venue/test_venue_against_sim.py)
    user = venue_user(hand, "100")
    recipient = hand.new_address()
    quote = withdraw(hand, user, 8453, 25 * 10**8, recipient=recipient)
    rid = request_id(quote)
    assert [s["id"] for s in quote["steps"]] == ["authorize", "deposit"]
    authorize, deposit = only_item(quote, "authorize"), only_item(quote, "deposit")
    payment = quote["protocol"]["v2"]["paymentDetails"]
    # the payment's chain is named as /chains names it (the protocol's name, not the id)
    assert payment["chainId"] == hand.protocol_chain(1337)["chainId"]
    # the venue's depository: an account of its own, named by /chains, not the solver
    assert payment["depository"] == hand.info["venue_depository"]
    assert payment["depository"] == hand.protocol_chain(1337)["depository"]
    assert payment["depository"].lower() != hand.info["solver"].lower()
    assert quote["protocol"]["v2"]["orderData"]["solver"] == hand.info["solver"]
    params = deposit["action"]["parameters"]
    assert params["destination"] == payment["depository"]
    # the public forms: amountFormatted "25.0", the sendAsset amount with six places
    assert quote["details"]["currencyIn"]["amountFormatted"] == "25.0"
    assert params["amount"] == "25.000000"
    assert authorize["sign"]["value"]["nonce"] == deposit["nonce"] == params["nonce"]

    hand.authorize(user, authorize)  # the domain's default chain id 1
    hand.send_asset(user, deposit, chain_id=8453)
    final = hand.wait_final(rid)

    assert final["status"] == "success"
    out = int(quote["details"]["currencyOut"]["amount"])
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], recipient) == out
    # exactly the 25 sent: the account was activated by the send that created it
    assert hand.withdrawable(user.address) == Decimal("75")
    assert flow.hooks.wait_for(rid, "success") == ["pending", "submitted", "success"]
    [entry] = hand.history(id=rid)
    [in_tx] = entry["data"]["inTxs"]
    assert in_tx["chainId"] == 1337 and in_tx["data"]["from"] == user.address
    [out_tx] = entry["data"]["outTxs"]
    assert out_tx["chainId"] == 8453 and out_tx["hash"] == final["txHashes"][0]


def test_venue_withdrawal_to_999_signed_on_the_wallet_chain(flow: Flow) -> None:
    hand = flow.hand
    user = venue_user(hand, "50")
    quote = withdraw(hand, user, 999, 10 * 10**8)
    rid = request_id(quote)
    authorize = only_item(quote, "authorize")
    # 4.4 chain id override: the wallet's active chain in both the domain and the body
    authorize["sign"]["domain"]["chainId"] = 999
    authorize["post"]["body"]["signatureChainId"] = 999
    hand.authorize(user, authorize)
    hand.send_asset(user, only_item(quote, "deposit"), chain_id=999)
    final = hand.wait_final(rid)

    assert final["status"] == "success"
    out = int(quote["details"]["currencyOut"]["amount"])
    assert hand.rpc[999].erc20_balance(hand.usdc[999], user.address) == out
    assert flow.hooks.wait_for(rid, "success") == ["pending", "submitted", "success"]
    [entry] = hand.history(id=rid)
    assert entry["status"] == "success" and entry["data"]["outTxs"][0]["chainId"] == 999
