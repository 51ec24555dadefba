"""The Solana item guards as pure functions, on the public deposit example solana.md records
(a 0.01 SOL deposit_native a public code file sends through the service's API): it is decoded
to its amount and order id and passes for its own wallet; each tampering (amount, order id,
depositor, sender, program id, an extra SOL transfer to another key, another signer, a huge
priority fee) is refused by name."""

from __future__ import annotations

import copy
import struct
from typing import Any

import pytest

from crossdeck.execute.guards import check_item, failures
from crossdeck.execute.guards.solana import solana_guards
from crossdeck.execute.guards.solana_addresses import (
    associated_token_account,
    depository_config,
    depository_vault,
    vault_token_account,
)
from crossdeck.models import Quote, QuoteRequest
from crossdeck.models.base58 import b58decode, b58encode
from crossdeck.models.solana import (
    ASSOCIATED_TOKEN_PROGRAM,
    COMPUTE_BUDGET_PROGRAM,
    DEPOSIT_NATIVE,
    DEPOSIT_TOKEN,
    SYSTEM_PROGRAM,
    TOKEN_PROGRAM,
    SolanaInstruction,
    SolanaTransactionData,
    Undecodable,
    decode,
)

WALLET = "27q8k7t3VAdZgeG679xpgmm9WD4g3EgVfNQaVgfGocPL"
OTHER = "7uTT8Xi5RWXzy7h9XL244GRgEycDYDhLjr3ZyNdXi8pZ"
PUBLIC_ITEM: dict[str, Any] = {
    "instructions": [
        {
            "programId": "99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2",
            "keys": [
                {"pubkey": "Dodg2HifwU8rmaVVyMyUZDGTRbqAJTyVYxXPwcbNpBKc", "isSigner": False,
                 "isWritable": False},
                {"pubkey": WALLET, "isSigner": True, "isWritable": True},
                {"pubkey": WALLET, "isSigner": False, "isWritable": False},
                {"pubkey": OTHER, "isSigner": False, "isWritable": True},
                {"pubkey": SYSTEM_PROGRAM, "isSigner": False, "isWritable": False},
            ],
            "data": "0d9e0ddf5fd51c06809698000000000014dde76fee19fe608e718acf1c9d29bdcf3caa142b"
            "82f2df800530cae1572cd7",
        }
    ],
    "addressLookupTableAddresses": ["Hm9fUgcn7qwDaiNTFiGh6pNtVATgnaRcmK6Bbx6EMZfP"],
}  # fmt: skip
ORDER_ID = "0x14dde76fee19fe608e718acf1c9d29bdcf3caa142b82f2df800530cae1572cd7"
REQUEST_ID = "0x" + "ab" * 32


def quote_of(item: dict[str, Any], amount: str = "10000000") -> Quote:
    return Quote.from_wire(
        {
            "steps": [
                {
                    "id": "deposit",
                    "kind": "transaction",
                    "requestId": REQUEST_ID,
                    "items": [{"status": "incomplete", "data": item}],
                }
            ],
            "protocol": {
                "v2": {
                    "orderId": ORDER_ID,
                    "orderData": {"version": "v1"},
                    "paymentDetails": {
                        "chainId": "792703809",
                        "depository": "99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2",
                        "currency": SYSTEM_PROGRAM,
                        "amount": amount,
                    },
                }
            },
        }
    )


def run(item: dict[str, Any], wallet: str = WALLET, **request: Any) -> dict[str, str]:
    quote = quote_of(item)
    data = quote.steps[0].items[0].as_solana()
    built = None
    if request:
        built = QuoteRequest.build(**request)
    results = solana_guards(quote, data, "step 'deposit' item 0", wallet, built)
    return {r.name: r.message for r in failures(results)}


def test_the_public_example_decodes_to_its_amount_and_order_id() -> None:
    data = SolanaTransactionData.from_wire(PUBLIC_ITEM)
    decoded = decode(data.instructions[0])
    assert decoded.name == "deposit_native"
    assert decoded.fields["amount"] == 10_000_000  # 0.01 SOL in lamports
    assert decoded.fields["orderId"] == ORDER_ID
    assert decoded.fields["sender"] == WALLET and decoded.fields["depositor"] == WALLET
    assert "deposit 10000000 lamports of SOL" in decoded.words
    assert data.signers() == [WALLET]


def test_the_public_example_passes_every_guard_for_its_wallet() -> None:
    assert run(PUBLIC_ITEM) == {}
    quote = quote_of(PUBLIC_ITEM)
    everything = check_item(quote, 0, 0, wallet=WALLET)
    names = {r.name for r in everything}
    assert {"step-kind", "solana-programs", "solana-deposit", "solana-transfers"} <= names
    assert not [r for r in everything if r.name.startswith("solana") and not r.ok]


def tampered(**change: Any) -> dict[str, Any]:
    item = copy.deepcopy(PUBLIC_ITEM)
    instruction = item["instructions"][0]
    data = bytes.fromhex(instruction["data"])
    if "amount" in change:
        data = data[:8] + struct.pack("<Q", change["amount"]) + data[16:]
    if "order" in change:
        data = data[:16] + change["order"] + data[48:]
    instruction["data"] = data.hex()
    if "depositor" in change:
        instruction["keys"][2]["pubkey"] = change["depositor"]
    if "sender" in change:
        instruction["keys"][1]["pubkey"] = change["sender"]
    if "program" in change:
        instruction["programId"] = change["program"]
    return item


@pytest.mark.parametrize(
    ("change", "guard", "said"),
    [
        ({"amount": 10_000_001}, "solana-deposit", "it deposits 10000001, the payment is 10000000"),
        ({"order": b"\x01" * 32}, "solana-deposit", "its order id is 0x0101"),
        ({"depositor": OTHER}, "solana-deposit", f"its depositor is {OTHER}"),
        ({"sender": OTHER}, "solana-signers", f"signature of {OTHER}"),
        ({"program": OTHER}, "solana-programs", f"program {OTHER}, which crossdeck cannot read"),
    ],
)
def test_each_tampering_of_the_deposit_is_refused_by_name(
    change: dict[str, Any], guard: str, said: str
) -> None:
    refused = run(tampered(**change))
    assert guard in refused, refused
    assert said in refused[guard]


def system_transfer(source: str, destination: str, lamports: int) -> dict[str, Any]:
    return {
        "programId": SYSTEM_PROGRAM,
        "keys": [
            {"pubkey": source, "isSigner": True, "isWritable": True},
            {"pubkey": destination, "isSigner": False, "isWritable": True},
        ],
        "data": (struct.pack("<I", 2) + struct.pack("<Q", lamports)).hex(),
    }


def test_an_extra_sol_transfer_to_another_key_is_refused() -> None:
    item = copy.deepcopy(PUBLIC_ITEM)
    item["instructions"].append(system_transfer(WALLET, OTHER, 1))
    refused = run(item)
    assert "solana-transfers" in refused
    assert f"transfer 1 lamports of SOL from {WALLET} to {OTHER}" in refused["solana-transfers"]


def test_a_second_deposit_or_none_is_refused() -> None:
    item = copy.deepcopy(PUBLIC_ITEM)
    item["instructions"].append(copy.deepcopy(item["instructions"][0]))
    assert "not exactly one" in run(item)["solana-deposit"]


def test_compute_budget_is_read_and_a_huge_priority_fee_refused() -> None:
    item = copy.deepcopy(PUBLIC_ITEM)
    limit = {"programId": COMPUTE_BUDGET_PROGRAM, "keys": [],
             "data": (bytes([2]) + struct.pack("<I", 200_000)).hex()}  # fmt: skip
    modest = {"programId": COMPUTE_BUDGET_PROGRAM, "keys": [],
              "data": (bytes([3]) + struct.pack("<Q", 1_000)).hex()}  # fmt: skip
    item["instructions"][:0] = [limit, modest]
    assert run(item) == {}
    greedy = copy.deepcopy(item)
    greedy["instructions"][1]["data"] = (bytes([3]) + struct.pack("<Q", 10**12)).hex()
    assert "priority fee" in run(greedy)["solana-fee"]


def test_a_fee_payer_named_in_the_request_may_sign() -> None:
    payer = b58encode(bytes(range(1, 33)))
    item = copy.deepcopy(PUBLIC_ITEM)
    item["instructions"][0]["keys"].append({"pubkey": payer, "isSigner": True, "isWritable": True})
    assert "solana-signers" in run(item)
    request = {
        "user": WALLET, "originChainId": 792703809, "destinationChainId": 8453,
        "originCurrency": SYSTEM_PROGRAM, "destinationCurrency": "0x" + "0" * 40,
        "amount": "10000000", "tradeType": "EXACT_INPUT", "depositFeePayer": payer,
        "recipient": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    }  # fmt: skip
    assert "solana-signers" not in run(item, **request)


def test_the_token_form_is_held_to_the_payment_mint() -> None:
    mint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
    keys = [depository_config(), WALLET, WALLET, depository_vault(), mint,
            associated_token_account(WALLET, mint, TOKEN_PROGRAM),
            vault_token_account(mint, TOKEN_PROGRAM), TOKEN_PROGRAM, ASSOCIATED_TOKEN_PROGRAM,
            SYSTEM_PROGRAM]  # fmt: skip
    instruction = {
        "programId": "99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2",
        "keys": [{"pubkey": k, "isSigner": i == 1, "isWritable": i in (1, 5, 6)}
                 for i, k in enumerate(keys)],
        "data": (DEPOSIT_TOKEN + struct.pack("<Q", 5_000_000)
                 + bytes.fromhex(ORDER_ID[2:])).hex(),
    }  # fmt: skip
    quote = quote_of({"instructions": [instruction]}, amount="5000000")
    wire = quote.to_wire()
    wire["protocol"]["v2"]["paymentDetails"]["currency"] = mint
    quote = Quote.from_wire(wire)
    data = quote.steps[0].items[0].as_solana()
    results = solana_guards(quote, data, "here", WALLET, None)
    assert failures(results) == []
    wire["protocol"]["v2"]["paymentDetails"]["currency"] = SYSTEM_PROGRAM
    results = solana_guards(Quote.from_wire(wire), data, "here", WALLET, None)
    assert "the payment is SOL" in failures(results)[0].message


def test_what_cannot_be_read_is_named() -> None:
    for data, said in (
        ("zz", "not hex"),
        ((DEPOSIT_NATIVE + b"\0" * 8).hex(), "48 bytes"),
        ("63000000", "instruction 99 is not one crossdeck reads"),
    ):
        program = (
            SYSTEM_PROGRAM
            if said.startswith("instruction")
            else ("99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2")
        )
        with pytest.raises(Undecodable, match=said):
            decode(SolanaInstruction(program_id=program, keys=[], data=data))
    assert b58decode(SYSTEM_PROGRAM) == bytes(32)


def test_the_signers_check_names_the_fee_payer_only_when_one_signs() -> None:
    quote = quote_of(PUBLIC_ITEM)
    data = quote.steps[0].items[0].as_solana()
    [alone] = [r for r in solana_guards(quote, data, "here", WALLET, None)
               if r.name == "solana-signers"]  # fmt: skip
    assert alone.ok and alone.message == f"signed by this wallet {WALLET} only"
    payer = b58encode(bytes(range(1, 33)))
    quote = quote_of(PUBLIC_ITEM)  # the payer is the message's, not an instruction's
    request = QuoteRequest.build(
        user=WALLET, originChainId=792703809, destinationChainId=8453,
        originCurrency=SYSTEM_PROGRAM, destinationCurrency="0x" + "0" * 40, amount="10000000",
        tradeType="EXACT_INPUT", depositFeePayer=payer,
        recipient="0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    )  # fmt: skip
    results = solana_guards(quote, quote.steps[0].items[0].as_solana(), "here", WALLET, request)
    [both] = [r for r in results if r.name == "solana-signers"]
    assert both.ok and payer in both.message and "(it pays the fee)" in both.message


def test_each_instruction_is_described_with_its_raw_data_beside() -> None:
    from crossdeck.execute.describe import Currencies, solana_lines

    quote = quote_of(PUBLIC_ITEM)
    data = quote.steps[0].items[0].as_solana()
    lines = [line.text() for line in solana_lines(data, Currencies(quote, None))]
    raw = PUBLIC_ITEM["instructions"][0]["data"]
    assert any("deposit 10000000 lamports of SOL" in line for line in lines)
    assert any(line.startswith("data") and f"48 bytes: {raw}" in line for line in lines), lines
    hostile = copy.deepcopy(PUBLIC_ITEM)
    hostile["instructions"][0]["data"] = "\x1b[2Jzz"
    quote = quote_of(hostile)
    described = solana_lines(quote.steps[0].items[0].as_solana(), Currencies(quote, None))
    lines = [line.text() for line in described]
    assert "\x1b" not in "".join(lines)
    assert any("not hex (6 characters)" in line for line in lines)
