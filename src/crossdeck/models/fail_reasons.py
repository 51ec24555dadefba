"""Every `failReason` and `refundFailReason` the service documents, in words: what happened
and what the user can do. The one table the CLI, the run screen, History and Live status read
(through `reason_words`), the raw code always shown beside the words.

The codes are the union of the enums of GET /intents/status/v3 and GET /requests/v3 and the
execution-errors page of the public docs (relayprotocol/relay-docs, 2026-08), plus
`INCORRECT_PAYMENT`, which the demo world records on the refund of an overpayment. A code not
listed here is shown raw, with a note that crossdeck does not know it (the service adds codes
faster than a client ships). `N/A` (and an empty value) means no reason.
"""

from __future__ import annotations

from dataclasses import dataclass

NO_REASON = frozenset({"", "N/A"})

_WAIT = "nothing to do: the service refunds or retries by itself; watch the request"
_REQUOTE = "get a new quote and send again"
_CHECK_DEPOSIT = "check what was sent; `crossdeck recover REQUEST_ID` shows what the service offers"
_SUPPORT = "contact the service's support with the request id"
_REFUNDED = "nothing to do: the refund goes to the refund address"
_MORE_SLIPPAGE = "quote again, or allow more slippage"
_RESIGN = "sign again with a new quote"
_FEWER = "ask for fewer"


@dataclass(frozen=True)
class Reason:
    code: str
    happened: str
    todo: str

    def words(self) -> str:
        return f"{self.happened}; {self.todo} [{self.code}]"


def _table(rows: list[tuple[str, str, str]]) -> dict[str, Reason]:
    """Each (code, what happened, what to do) row as the Reason of its code."""
    return {code: Reason(code, happened, todo) for code, happened, todo in rows}


# a row a line (or hung under its code): the words read as the table they are, which the
# formatter's one-field-a-line would spread over five lines a row
# fmt: off
FAIL_REASONS: dict[str, Reason] = _table([
    ("UNKNOWN", "the service gave no specific reason", _SUPPORT),
    # deposit and validation
    ("DEPOSIT_ADDRESS_MISMATCH", "the deposit went to an address other than the quote's",
     _CHECK_DEPOSIT),
    ("DEPOSIT_CHAIN_MISMATCH", "the deposit was made on another chain than the quote's",
     _CHECK_DEPOSIT),
    ("INCORRECT_DEPOSIT_CURRENCY", "the deposit was in another token than the quote's",
     _CHECK_DEPOSIT),
    ("ORIGIN_CURRENCY_MISMATCH", "the origin token differs from the one quoted", _CHECK_DEPOSIT),
    ("DOUBLE_SPEND", "the same order was paid twice; the second payment is refunded", _REFUNDED),
    ("DEPOSITED_AMOUNT_TOO_LOW_TO_FILL", "less arrived than the quote needs to fill",
     "what arrived is refunded; quote again for the amount you want to send"),
    ("TTL_EXPIRED", "the quote expired before the deposit was seen", _REQUOTE),
    ("DEPOSIT_CONFIRMATION_TIMEOUT", "the deposit was not confirmed in time",
     "check the deposit transaction on the origin chain; " + _WAIT),
    ("DEPOSIT_REORGED", "the deposit was undone by a chain reorganisation",
     "check your balance on the origin chain, then " + _REQUOTE),
    ("ORPHANED_DEPOSIT_REFUND", "a deposit matched no open order and was refunded", _REFUNDED),
    ("BLOCKED_WALLET", "the service refuses a wallet of this transfer", _SUPPORT),
    # solver capacity and balance
    ("SOLVER_CAPACITY_EXCEEDED", "the transfer is larger than the solver can fill now",
     "try a smaller amount or later; the deposit is refunded"),
    ("SOLVER_BALANCE_TOO_LOW", "the solver lacked funds on the destination",
     "try later or a smaller amount; the deposit is refunded"),
    ("SPONSOR_BALANCE_TOO_LOW", "the fee sponsor's balance ran out",
     "quote again without sponsorship, or later"),
    ("INSUFFICIENT_FUNDS_FOR_RENT", "the destination account could not pay Solana rent",
     "send more, or fund the destination account first"),
    ("NEGATIVE_NEW_AMOUNT_AFTER_FEES", "after fees nothing would be left to send",
     "send a larger amount"),
    ("AMOUNT_TOO_LOW_TO_REFUND", "the amount is below what a refund costs",
     "nothing can be refunded; " + _SUPPORT),
    ("GASLESS_PERMIT_BALANCE_TOO_LOW", "the balance did not cover the signed permit",
     "top up the token, then " + _REQUOTE),
    # swap routing and pricing
    ("NO_QUOTES", "no route could fill the request any more", _REQUOTE),
    ("NO_INTERNAL_SWAP_ROUTES_FOUND", "no swap route was found for the fill",
     "try another token pair or amount"),
    ("SWAP_IMPACT_TOO_HIGH", "the swap would move the price too much", "send a smaller amount"),
    ("INSUFFICIENT_POOL_LIQUIDITY", "the pools lacked liquidity for the swap",
     "send a smaller amount or try later"),
    ("SLIPPAGE", "the price moved beyond the slippage allowed", _MORE_SLIPPAGE),
    ("TOO_LITTLE_RECEIVED", "the swap would give less than the minimum", _MORE_SLIPPAGE),
    ("GENERATE_SWAP_FAILED", "the service could not build the swap", _REQUOTE),
    ("REVERSE_SWAP_FAILED", "swapping the deposit back for the refund failed", _SUPPORT),
    # transaction construction and gas
    ("TRANSACTION_TOO_LARGE", "the transaction exceeded the chain's size limit",
     "try a simpler route or a smaller amount"),
    ("SWAP_USES_TOO_MUCH_GAS", "the swap needs more gas than allowed",
     "try another route or amount"),
    ("NEW_CALLDATA_INCLUDES_HIGHER_RENT_FEE", "a rebuilt transaction would cost more rent",
     _REQUOTE),
    ("INVALID_GAS_PRICE", "the gas price was not valid", _REQUOTE),
    ("QUOTED_GAS_LIMIT_EXCEEDED", "the fill needed more gas than quoted", _REQUOTE),
    ("JUPITER_INVALID_TOKEN_ACCOUNT", "a Solana token account of the swap was not valid",
     "check the Solana token accounts, then " + _REQUOTE),
    ("TRANSACTION_SUBMISSION_FAILED", "the fill transaction could not be sent", _WAIT),
    ("TRANSACTION_NOT_INCLUDED", "the fill transaction was never included in a block", _WAIT),
    # on-chain execution and reverts
    ("EXECUTION_REVERTED", "a call of the fill reverted",
     "check the destination call, then " + _REQUOTE),
    ("TRANSACTION_REVERTED", "the fill transaction reverted", _WAIT),
    ("MISSING_REVERT_DATA", "a transaction reverted without saying why", _SUPPORT),
    ("CONTRACT_PAUSED", "a contract of the route is paused", "try later or another route"),
    ("TOKEN_NOT_TRANSFERABLE", "the token refuses this transfer", "use another token"),
    ("TRANSFER_FAILED", "a token transfer failed", _WAIT),
    ("TRANSFER_FROM_FAILED", "pulling the tokens from the wallet failed",
     "check the allowance and balance, then " + _REQUOTE),
    ("TRANSFER_AMOUNT_EXCEEDS_ALLOWANCE", "the allowance was smaller than the amount",
     "approve enough, then " + _REQUOTE),
    ("TRANSFER_AMOUNT_EXCEEDS_BALANCE", "the balance was smaller than the amount",
     "top up, then " + _REQUOTE),
    ("INSUFFICIENT_NATIVE_TOKENS_SUPPLIED", "too little native token came with the call", _REQUOTE),
    ("INCORRECT_PAYMENT", "the amount paid was not the quoted one",
     "nothing to do: the difference is refunded"),
    ("ZERO_SELL_AMOUNT", "the amount to sell was zero", "send a non-zero amount"),
    ("INVALID_SENDER", "the sender is not allowed for this call", "send from the quoted wallet"),
    ("INVALID_SIGNER", "the signature came from another signer", "sign with the quoted wallet"),
    ("DESTINATION_TOKEN_TRANSFER_REJECTED", "the destination token refused the transfer",
     "choose another recipient or token"),
    # orders and signatures
    ("ORDER_EXPIRED", "the order expired before it was filled", _REQUOTE),
    ("ORDER_IS_CANCELLED", "the order was cancelled", _REQUOTE),
    ("ORDER_ALREADY_FILLED", "the order had been filled already",
     "check the destination: it may have arrived"),
    ("SIGNATURE_EXPIRED", "the signature expired", _RESIGN),
    ("INVALID_SIGNATURE", "the signature was not valid", _RESIGN),
    ("INVALID_NONCE", "the nonce was not valid", _REQUOTE),
    ("PROTOCOL_DEADLINE_EXPIRED", "the protocol's deadline passed", _REQUOTE),
    ("SEAPORT_INEXACT_FRACTION", "a marketplace order could not be split as asked", _REQUOTE),
    ("SEAPORT_INVALID_FULFILLER", "the marketplace refused the filler", _REQUOTE),
    # account abstraction
    ("ACCOUNT_ABSTRACTION_INVALID_NONCE", "the smart account's nonce was not valid", _REQUOTE),
    ("ACCOUNT_ABSTRACTION_SIGNATURE_ERROR", "the smart account's signature failed", _RESIGN),
    ("ACCOUNT_ABSTRACTION_GAS_LIMIT", "the smart account ran out of gas", _REQUOTE),
    # mints
    ("MINT_NOT_ACTIVE", "the mint was not open", "try when the mint is open"),
    ("ERC_1155_TOO_MANY_REQUESTED", "more tokens were asked than the mint allows", _FEWER),
    ("MINT_QUANTITY_EXCEEDS_MAX_PER_WALLET", "the mint's per-wallet limit was reached", _FEWER),
    ("MINT_QUANTITY_EXCEEDS_MAX_SUPPLY", "the mint's supply was exhausted", "nothing left to mint"),
    # other
    ("FLUID_DEX_ERROR", "a Fluid DEX call failed", "try another route"),
    ("MANUAL_ADMIN_REFUND", "the service refunded the request by hand",
     "nothing to do: check the refund address"),
])

REFUND_FAIL_REASONS: dict[str, Reason] = _table([
    ("AMOUNT_TOO_LOW_TO_REFUND", "the refund would cost more than the amount",
     "nothing can be sent back automatically; " + _SUPPORT),
    ("NEGATIVE_NEW_AMOUNT_AFTER_FEES", "after fees nothing is left to refund", _SUPPORT),
    ("SWAP_CURRENCY_NOT_ON_ORIGIN", "the token cannot be refunded on the origin chain", _SUPPORT),
    ("REFUND_RECIPIENT_IS_VASP",
     "the refund address belongs to an exchange, which the service will not pay",
     "contact the service's support with the request id and an address you control"),
    ("MANUAL_REFUND_REQUIRED", "the refund needs a person at the service",
     "contact the service's support with the request id; the funds are held for you"),
    ("UNKNOWN", "the refund failed for no stated reason", _SUPPORT),
])
# fmt: on


def is_reason(code: object) -> bool:
    """A reason code that says something (not absent, empty or `N/A`)."""
    return isinstance(code, str) and code not in NO_REASON


def explain(code: str, *, refund: bool = False) -> Reason | None:
    """The documented meaning of `code` (a refundFailReason with `refund`), None if unknown."""
    table = REFUND_FAIL_REASONS if refund else FAIL_REASONS
    return table.get(code.strip().upper())


def reason_words(code: object, *, refund: bool = False) -> str | None:
    """The words shown for a reason code, the raw code beside them: `what happened; what to
    do [CODE]`; an unknown code raw, with a note; None for no reason."""
    if not is_reason(code):
        return None
    assert isinstance(code, str)
    known = explain(code, refund=refund)
    if known is not None:
        return known.words()
    kind = "refund failure reason" if refund else "failure reason"
    return f"{code} (a {kind} crossdeck does not know: see the service's docs)"
