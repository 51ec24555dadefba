"""Quotes and fills of Solana and Bitcoin routes in the world, from outside: the service's HTTP
API, EVM deposits sent by hand, Solana deposits built from the quote's items with `solders` and
sent through the world's Solana JSON-RPC."""

from __future__ import annotations

import base64
import time
from typing import Any

import httpx
import pytest
from solders.address_lookup_table_account import AddressLookupTableAccount
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction
from tests.sim.byhand import Hand, only_item, request_id

SOLANA = 792703809
BITCOIN = 8253038
SOL = "11111111111111111111111111111111"
USDC_SOL = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
BTC = "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8"
NATIVE = "0x0000000000000000000000000000000000000000"
ETH = 10**18


def rpc(world: Any, method: str, *params: Any) -> Any:
    url = world.info["rpc"][str(SOLANA)]
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    answer = httpx.post(url, json=body, timeout=30).json()
    assert "error" not in answer, answer
    return answer["result"]


def token_amount(world: Any, owner: str) -> int:
    found = rpc(
        world, "getTokenAccountsByOwner", owner, {"mint": USDC_SOL}, {"encoding": "jsonParsed"}
    )
    return sum(
        int(a["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"]) for a in found["value"]
    )


@pytest.fixture(scope="module")
def hand(world: Any) -> Hand:
    return Hand(world.info)


def test_usdc_from_base_lands_in_a_solana_recipients_token_account(world: Any, hand: Hand):
    recipient = str(Keypair().pubkey())
    quote = hand.quote({
        "user": hand.wallet.address, "recipient": recipient, "tradeType": "EXACT_INPUT",
        "originChainId": 8453, "destinationChainId": SOLANA,
        "originCurrency": hand.usdc[8453], "destinationCurrency": USDC_SOL, "amount": "10000000",
    })  # fmt: skip
    assert quote["details"]["recipient"] == recipient  # case kept
    assert quote["protocol"]["v2"]["orderData"]["output"]["payments"][0]["recipient"] == recipient
    for step in quote["steps"]:
        hand.rpc[8453].send(hand.wallet, step["items"][0]["data"])
    final = hand.wait_final(request_id(quote))
    assert final["status"] == "success", final
    out = int(quote["details"]["currencyOut"]["amount"])
    assert token_amount(world, recipient) == out
    [fill] = final["txHashes"]
    assert rpc(world, "getSignatureStatuses", [fill])["value"][0]["err"] is None


def test_eth_from_base_to_a_bitcoin_recipient_is_paid_on_the_ledger(world: Any, hand: Hand):
    recipient = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
    quote = hand.quote({
        "user": hand.wallet.address, "recipient": recipient, "tradeType": "EXACT_INPUT",
        "originChainId": 8453, "destinationChainId": BITCOIN,
        "originCurrency": NATIVE, "destinationCurrency": BTC, "amount": str(ETH // 100),
    })  # fmt: skip
    hand.rpc[8453].send(hand.wallet, only_item(quote, "deposit"))
    final = hand.wait_final(request_id(quote))
    assert final["status"] == "success", final
    [txid] = final["txHashes"]
    assert len(txid) == 64 and all(c in "0123456789abcdef" for c in txid)
    payment = world.bitcoin.payment(txid)
    assert payment.recipient == recipient
    assert payment.satoshis == int(quote["details"]["currencyOut"]["amount"])


@pytest.mark.parametrize(
    ("chain", "currency", "recipient", "code"),
    [
        (SOLANA, USDC_SOL, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "INVALID_RECIPIENT"),
        (SOLANA, USDC_SOL, "GSzRRMq3WCnqTceBNVHpTYnAJVbo9RcHLZa3nW5GZCc0", "INVALID_RECIPIENT"),
        (BITCOIN, BTC, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", "INVALID_RECIPIENT"),
        (BITCOIN, BTC, None, "INVALID_RECIPIENT"),
        (
            SOLANA,
            USDC_SOL.lower(),
            "GSzRRMq3WCnqTceBNVHpTYnAJVbo9RcHLZa3nW5GZCcn",
            "UNSUPPORTED_CURRENCY",
        ),
    ],
)
def test_recipients_are_held_to_their_chains_family(hand: Hand, chain, currency, recipient, code):
    body = {
        "user": hand.wallet.address, "tradeType": "EXACT_INPUT", "originChainId": 8453,
        "destinationChainId": chain, "originCurrency": hand.usdc[8453],
        "destinationCurrency": currency, "amount": "10000000",
    }  # fmt: skip
    if recipient is not None:
        body["recipient"] = recipient
    answer = hand.http.post(
        f"{hand.service}/quote/v2", json=body, headers={"x-api-key": hand.api_key}
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["errorCode"] in (code, "INVALID_OUTPUT_CURRENCY")


def _sign_items(world: Any, item: dict[str, Any], signers: list[Keypair]) -> VersionedTransaction:
    data = item["data"]
    instructions = [
        Instruction(
            Pubkey.from_string(ix["programId"]),
            bytes.fromhex(ix["data"]),
            [
                AccountMeta(Pubkey.from_string(k["pubkey"]), k["isSigner"], k["isWritable"])
                for k in ix["keys"]
            ],
        )
        for ix in data["instructions"]
    ]
    tables = []
    for address in data["addressLookupTableAddresses"]:
        table = rpc(world, "getAccountInfo", address, {"encoding": "jsonParsed"})["value"]
        keys = [Pubkey.from_string(a) for a in table["data"]["parsed"]["info"]["addresses"]]
        tables.append(AddressLookupTableAccount(Pubkey.from_string(address), keys))
    blockhash = Hash.from_string(rpc(world, "getLatestBlockhash")["value"]["blockhash"])
    message = MessageV0.try_compile(signers[0].pubkey(), instructions, tables, blockhash)
    return VersionedTransaction(message, signers)


def _send_and_index(world: Any, hand: Hand, tx: VersionedTransaction) -> str:
    raw = base64.b64encode(bytes(tx)).decode()
    signature = rpc(world, "sendTransaction", raw, {"encoding": "base64"})
    answer = hand.http.post(
        f"{hand.service}/transactions/index", json={"txHash": signature, "chainId": str(SOLANA)}
    )
    assert answer.status_code == 200, answer.text
    return signature


def test_solana_usdc_to_base_with_a_second_fee_payer(world: Any, hand: Hand):
    user = Keypair.from_base58_string(world.info["wallet"]["solana_private_key"])
    assert str(user.pubkey()) == world.info["wallet"]["solana_address"]
    payer = Keypair.from_base58_string(world.info["wallet"]["solana_private_key"])
    payer = Keypair()  # a second signer pays the fees
    # fund the fee payer through the chain itself
    from solders.system_program import TransferParams, transfer

    fund = VersionedTransaction(
        MessageV0.try_compile(
            user.pubkey(),
            [
                transfer(
                    TransferParams(
                        from_pubkey=user.pubkey(), to_pubkey=payer.pubkey(), lamports=10**8
                    )
                )
            ],
            [],
            Hash.from_string(rpc(world, "getLatestBlockhash")["value"]["blockhash"]),
        ),
        [user],
    )
    rpc(world, "sendTransaction", base64.b64encode(bytes(fund)).decode(), {"encoding": "base64"})

    recipient = hand.new_address()
    quote = hand.quote({
        "user": str(user.pubkey()), "recipient": recipient, "tradeType": "EXACT_INPUT",
        "originChainId": SOLANA, "destinationChainId": 8453, "originCurrency": USDC_SOL,
        "destinationCurrency": hand.usdc[8453], "amount": "5000000",
        "depositFeePayer": str(payer.pubkey()), "includeComputeUnitLimit": True,
        "maxRouteLength": 2, "useSharedAccounts": True,
    })  # fmt: skip
    [step] = quote["steps"]
    item = step["items"][0]
    programs = [ix["programId"] for ix in item["data"]["instructions"]]
    assert programs == [
        "ComputeBudget111111111111111111111111111111",
        "99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2",
    ]
    deposit = item["data"]["instructions"][-1]["data"]
    assert deposit.startswith("0b9c60da27a3b413") and not deposit.startswith("0x")
    assert deposit.endswith(quote["protocol"]["v2"]["orderId"][2:])
    refunds = quote["protocol"]["v2"]["orderData"]["inputs"][0]["refunds"]
    assert refunds[0]["recipient"] == str(user.pubkey())  # refunds go back to Solana

    before = token_amount(world, str(user.pubkey()))
    signature = _send_and_index(world, hand, _sign_items(world, item, [payer, user]))
    final = hand.wait_final(request_id(quote))
    assert final["status"] == "success", final
    assert final["inTxHashes"] == [signature]
    assert token_amount(world, str(user.pubkey())) == before - 5_000_000
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], recipient) == int(
        quote["details"]["currencyOut"]["amount"]
    )


def test_solana_sol_to_base_eth(world: Any, hand: Hand):
    user = Keypair.from_base58_string(world.info["wallet"]["solana_private_key"])
    recipient = hand.new_address()
    quote = hand.quote({
        "user": str(user.pubkey()), "recipient": recipient, "tradeType": "EXACT_INPUT",
        "originChainId": SOLANA, "destinationChainId": 8453, "originCurrency": SOL,
        "destinationCurrency": NATIVE, "amount": str(2 * 10**9),
    })  # fmt: skip
    item = quote["steps"][0]["items"][0]
    assert item["data"]["instructions"][0]["data"].startswith("0d9e0ddf5fd51c06")
    signature = _send_and_index(world, hand, _sign_items(world, item, [user]))
    final = hand.wait_final(request_id(quote))
    assert final["status"] == "success", final
    assert final["inTxHashes"] == [signature]
    assert hand.rpc[8453].balance(recipient) == int(quote["details"]["currencyOut"]["amount"])


def test_solana_usdc_to_the_venue_raises_the_withdrawable_balance(world: Any, hand: Hand):
    user = Keypair.from_base58_string(world.info["wallet"]["solana_private_key"])
    venue = hand.new_address()
    chains = {c["id"]: c for c in hand.http.get(f"{hand.service}/chains").json()["chains"]}
    perps = chains[1337]["currency"]["address"]
    quote = hand.quote({
        "user": str(user.pubkey()), "recipient": venue, "tradeType": "EXACT_INPUT",
        "originChainId": SOLANA, "destinationChainId": 1337, "originCurrency": USDC_SOL,
        "destinationCurrency": perps, "amount": "20000000",
    })  # fmt: skip
    _send_and_index(world, hand, _sign_items(world, quote["steps"][0]["items"][0], [user]))
    final = hand.wait_final(request_id(quote))
    assert final["status"] == "success", final
    deadline = time.monotonic() + 10
    while hand.withdrawable(venue) == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert hand.withdrawable(venue) > 0


def test_history_matches_a_solana_recipient_with_its_case_and_evm_users_without(
    world: Any, hand: Hand
):
    recipient = str(Keypair().pubkey())
    assert recipient != recipient.lower()
    quote = hand.quote({
        "user": hand.wallet.address, "recipient": recipient, "tradeType": "EXACT_INPUT",
        "originChainId": 8453, "destinationChainId": SOLANA,
        "originCurrency": hand.usdc[8453], "destinationCurrency": USDC_SOL, "amount": "1000000",
    })  # fmt: skip
    for step in quote["steps"]:
        hand.rpc[8453].send(hand.wallet, step["items"][0]["data"])
    rid = request_id(quote)
    assert hand.wait_final(rid)["status"] == "success"
    headers = {"x-api-key": hand.api_key}

    def found(path: str, **params: str) -> list[str]:
        answer = hand.http.get(f"{hand.service}{path}", params=params, headers=headers)
        assert answer.status_code == 200, answer.text
        return [r["id"] for r in answer.json()["requests"]]

    assert found("/requests/v3", recipient=recipient) == [rid]
    assert found("/requests/v3", recipient=recipient.lower()) == []
    assert found("/requests/v3", recipient=recipient.upper()) == []
    assert rid in found("/requests/v3", term=recipient)
    assert rid not in found("/requests/v3", term=recipient.lower())
    assert rid in found("/requests/v2", user=recipient)
    # v3's filter groups, as the client sends v2's `user` (sender or recipient)
    groups = '[{"user": "%s"}, {"recipient": "%s"}]'
    assert rid in found("/requests/v3", filters=groups % (recipient, recipient))
    assert rid not in found("/requests/v3", filters=groups % ((recipient.lower(),) * 2))
    assert rid not in found("/requests/v2", user=recipient.swapcase())
    # EVM addresses still match whatever their case (EIP-55 or not)
    evm = hand.wallet.address
    assert rid in found("/requests/v2", user=evm.lower(), limit="50")
    assert rid in found("/requests/v2", user="0x" + evm[2:].upper(), limit="50")
    # the Solana fill's signature is found as written, not lower-cased
    [fill] = [r for r in hand.wait_final(rid)["txHashes"]]
    assert rid in found("/requests/v2", hash=fill)
    assert rid not in found("/requests/v2", hash=fill.lower())
