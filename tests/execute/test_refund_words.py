"""What a refund paid back: the ERC-20 Transfer events of its receipt, named after the quote's
currency, said in words and as the --json `refund` object."""

from __future__ import annotations

import dataclasses

from crossdeck.execute.refund import RefundPaid, named
from crossdeck.models import Currency
from crossdeck.wallet.gateway import TRANSFER_TOPIC, _transfers

TOKEN = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
SENDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
TO = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def _word(address: str) -> str:
    return "0x" + "0" * 24 + address[2:].lower()


def test_transfer_events_are_read_and_other_logs_skipped() -> None:
    logs = [
        {"address": TOKEN.lower(), "topics": [TRANSFER_TOPIC, _word(SENDER), _word(TO)],
         "data": hex(2_500_000)},
        {"address": TOKEN, "topics": ["0x" + "1" * 64, _word(SENDER), _word(TO)], "data": "0x1"},
        {"address": TOKEN, "topics": [TRANSFER_TOPIC], "data": "0x1"},  # not an ERC-20 transfer
        "garbage",
    ]  # fmt: skip
    assert _transfers(logs) == ((TOKEN, SENDER, TO, 2_500_000),)
    assert _transfers(None) == ()


def test_a_refund_is_named_and_said() -> None:
    paid = RefundPaid(tx_hash="0x" + "ab" * 32, chain_id=8453, currency=TOKEN.lower(),
                      amount=2_500_000, to=TO)  # fmt: skip
    usdc = Currency(chain_id=8453, address=TOKEN, symbol="USDC", decimals=6)
    other_chain = Currency(chain_id=999, address=TOKEN, symbol="XYZ", decimals=18)
    refund = named(paid, [other_chain, usdc])
    assert refund.symbol == "USDC" and refund.decimals == 6
    assert refund.words("Base (8453)") == (
        f"2.5 USDC (2500000) refunded on Base (8453) to {TO}, tx {paid.tx_hash}"
    )
    assert refund.to_json() | {"symbol": None, "decimals": None} == {
        "chainId": 8453, "currency": TOKEN.lower(), "amount": "2500000", "txHash": paid.tx_hash,
        "to": TO, "symbol": None, "decimals": None,
    }  # fmt: skip
    assert RefundPaid.from_json(refund.to_json()) == refund
    large = named(dataclasses.replace(paid, amount=1_234_567_891_234), [usdc])
    assert large.words().startswith("1,234,568 USDC (1234567891234) refunded")  # as wallets
    unknown = RefundPaid(tx_hash=paid.tx_hash)
    assert unknown.words() == f"an amount the chain did not say refunded, tx {paid.tx_hash}"
