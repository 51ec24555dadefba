"""Every failReason and refundFailReason the public docs list reads in words, the raw code
beside them; an unknown code is shown raw with a note; no reason reads as none."""

from __future__ import annotations

import pytest

from crossdeck.models.fail_reasons import FAIL_REASONS, REFUND_FAIL_REASONS, reason_words

# the enums of GET /intents/status/v3 (docs.relay.link, 2026-08), N/A left out
DOCUMENTED_FAIL = """UNKNOWN SLIPPAGE AMOUNT_TOO_LOW_TO_REFUND DEPOSIT_ADDRESS_MISMATCH
DEPOSIT_CHAIN_MISMATCH INCORRECT_DEPOSIT_CURRENCY DOUBLE_SPEND SOLVER_CAPACITY_EXCEEDED
SOLVER_BALANCE_TOO_LOW DEPOSITED_AMOUNT_TOO_LOW_TO_FILL NEGATIVE_NEW_AMOUNT_AFTER_FEES NO_QUOTES
MISSING_REVERT_DATA REVERSE_SWAP_FAILED GENERATE_SWAP_FAILED TOO_LITTLE_RECEIVED
EXECUTION_REVERTED NEW_CALLDATA_INCLUDES_HIGHER_RENT_FEE TRANSACTION_REVERTED
TRANSACTION_TOO_LARGE ORIGIN_CURRENCY_MISMATCH NO_INTERNAL_SWAP_ROUTES_FOUND
SWAP_USES_TOO_MUCH_GAS INSUFFICIENT_FUNDS_FOR_RENT SPONSOR_BALANCE_TOO_LOW ORDER_EXPIRED
ORDER_IS_CANCELLED TRANSFER_FROM_FAILED TRANSFER_FAILED SIGNATURE_EXPIRED INVALID_SIGNATURE
INSUFFICIENT_NATIVE_TOKENS_SUPPLIED TRANSFER_AMOUNT_EXCEEDS_ALLOWANCE
TRANSFER_AMOUNT_EXCEEDS_BALANCE INVALID_SENDER ACCOUNT_ABSTRACTION_INVALID_NONCE
ACCOUNT_ABSTRACTION_SIGNATURE_ERROR SEAPORT_INEXACT_FRACTION TOKEN_NOT_TRANSFERABLE
ZERO_SELL_AMOUNT MINT_NOT_ACTIVE ERC_1155_TOO_MANY_REQUESTED INCORRECT_PAYMENT INVALID_GAS_PRICE
FLUID_DEX_ERROR ORDER_ALREADY_FILLED SEAPORT_INVALID_FULFILLER INVALID_SIGNER
MINT_QUANTITY_EXCEEDS_MAX_PER_WALLET MINT_QUANTITY_EXCEEDS_MAX_SUPPLY
JUPITER_INVALID_TOKEN_ACCOUNT INVALID_NONCE ACCOUNT_ABSTRACTION_GAS_LIMIT CONTRACT_PAUSED
SWAP_IMPACT_TOO_HIGH INSUFFICIENT_POOL_LIQUIDITY TTL_EXPIRED DEPOSIT_CONFIRMATION_TIMEOUT
ORPHANED_DEPOSIT_REFUND GASLESS_PERMIT_BALANCE_TOO_LOW MANUAL_ADMIN_REFUND
QUOTED_GAS_LIMIT_EXCEEDED DESTINATION_TOKEN_TRANSFER_REJECTED DEPOSIT_REORGED BLOCKED_WALLET
PROTOCOL_DEADLINE_EXPIRED TRANSACTION_NOT_INCLUDED TRANSACTION_SUBMISSION_FAILED""".split()
DOCUMENTED_REFUND = """AMOUNT_TOO_LOW_TO_REFUND NEGATIVE_NEW_AMOUNT_AFTER_FEES
SWAP_CURRENCY_NOT_ON_ORIGIN REFUND_RECIPIENT_IS_VASP MANUAL_REFUND_REQUIRED""".split()


@pytest.mark.parametrize("code", DOCUMENTED_FAIL)
def test_every_documented_fail_reason_reads_in_words(code: str) -> None:
    assert code in FAIL_REASONS
    words = reason_words(code)
    assert words is not None and words.endswith(f"[{code}]")
    happened, todo = words.removesuffix(f" [{code}]").split("; ", 1)
    assert happened != code and " " in happened and " " in todo


@pytest.mark.parametrize("code", DOCUMENTED_REFUND)
def test_every_documented_refund_fail_reason_reads_in_words(code: str) -> None:
    assert code in REFUND_FAIL_REASONS
    words = reason_words(code, refund=True)
    assert words is not None and words.endswith(f"[{code}]")


def test_manual_refund_required_says_what_to_do() -> None:
    words = reason_words("MANUAL_REFUND_REQUIRED", refund=True)
    assert words is not None and "support" in words and "request id" in words


def test_an_unknown_code_is_shown_raw_with_a_note_and_none_is_nothing() -> None:
    assert reason_words("NEW_REASON_2027") == (
        "NEW_REASON_2027 (a failure reason crossdeck does not know: see the service's docs)"
    )
    assert "refund failure reason" in (reason_words("X", refund=True) or "")
    assert reason_words("N/A") is None and reason_words(None) is None and reason_words("") is None
