"""Self-executed same-chain swaps: the form the public service quotes by default for a swap on
one chain (`forceSolverExecution` unset). The user's own transaction goes to the service's
router, which takes the input and pays the recipient; there is no `protocol.v2`, so no
paymentDetails to hold the transaction to, and the router's calldata is the service's own.

What can be checked without the chain is checked here: the route is on one chain (currencyIn
and currencyOut there), each transaction is on it and goes to a contract /chains names (the
destination guard), an approve is of the input token, to a contract /chains names, for exactly
the input, or is the zero reset right before that approve (`zero_reset_approve`). What the
router's calldata does is not decoded: the `balance-changes` guard (`guards.simulation`)
simulates the transactions before signing and holds the outcome to the quote.
"""

from __future__ import annotations

from crossdeck.execute.guards.base import GuardResult, _fail, _ok, _same_address
from crossdeck.execute.guards.calldata import Call, CalldataError, decode_call
from crossdeck.models import NATIVE_ADDRESS, ChainsResponse, Quote, TransactionData
from crossdeck.models.text import short


def is_self_executed(quote: Quote) -> bool:
    """A quote in the self-executed form: no protocol.v2 paymentDetails, and currencyIn and
    currencyOut on one EVM chain."""
    if quote.payment_details is not None:
        return False
    details = quote.details
    cin = details.currency_in.currency_info if details and details.currency_in else None
    cout = details.currency_out.currency_info if details and details.currency_out else None
    if cin is None or cout is None or cin.chain_id is None:
        return False
    return cin.chain_id == cout.chain_id and bool(cin.address) and bool(cout.address)


def input_token(quote: Quote) -> str | None:
    """The ERC-20 the quote takes (None for the native currency or no currencyIn)."""
    details = quote.details
    info = details.currency_in.currency_info if details and details.currency_in else None
    address = info.address if info is not None else None
    if address is None or _same_address(address, NATIVE_ADDRESS):
        return None
    return address


def _approves(quote: Quote) -> list[tuple[int, TransactionData, Call]]:
    """Each approve among the quote's transactions: (its place among them, it, its call)."""
    found = []
    for place, tx in enumerate(quote.transactions()):
        try:
            call = decode_call(tx.data)
        except CalldataError:
            continue
        if call is not None and call.name == "approve":
            found.append((place, tx, call))
    return found


def zero_reset_approve(quote: Quote) -> bool:
    """The quote approves its input in the zero-reset form and no other way: exactly two
    approves, adjacent, of the input token to one spender, the first for 0 and the second for
    exactly the input. Tokens like USDT refuse to change an allowance that is not zero, so the
    public service resets it first (relay-kit's swapWithZeroResetApproval); an approve(0) grants
    nothing, so the pair allows no more than the single approve would."""
    details = quote.details
    amount_in = details.currency_in.amount if details and details.currency_in else None
    token = input_token(quote)
    pair = _approves(quote)
    if token is None or amount_in is None or len(pair) != 2:
        return False
    (first_at, first, reset), (second_at, second, approve) = pair
    return (
        second_at == first_at + 1
        and all(_same_address(tx.to, token) and not tx.value for tx in (first, second))
        and first.chain_id == second.chain_id
        and _same_address(str(reset.args["spender"]), str(approve.args["spender"]))
        and reset.args["amount"] == 0
        and approve.args["amount"] == amount_in
    )


def self_executed_payment(
    quote: Quote,
    tx: TransactionData,
    call: Call | None,
    undecoded: str | None,
    chains: ChainsResponse | None,
    where: str,
) -> GuardResult:
    """`tx-payment` of one transaction of a self-executed swap. `call`: its decoded call;
    `undecoded`: why its calldata could not be decoded (None when it was)."""
    details = quote.details
    amount_in = details.currency_in.amount if details and details.currency_in else None
    info = details.currency_in.currency_info if details and details.currency_in else None
    chain_id = info.chain_id if info is not None else None
    token = input_token(quote)
    value = tx.value or 0
    if tx.chain_id != chain_id:
        return _fail(
            "tx-payment",
            f"a same-chain swap on chain {chain_id}, but this transaction is on chain "
            f"{tx.chain_id}",
            where,
        )
    if undecoded is not None:
        expected = amount_in if token is None else 0
        if value != expected:
            return _fail(
                "tx-payment",
                f"sends {value} native to {short(tx.to)}, but the swap's input is "
                f"{amount_in} {'native' if token is None else 'of a token'}",
                where,
            )
        return _ok(
            "tx-payment",
            f"a self-executed swap through {short(tx.to)}: its calldata is the service's own "
            f"and is not decoded ({undecoded}); it is simulated before signing and held to "
            "the quote (balance-changes)",
            where,
        )
    if call is None or call.name != "approve":
        got = "no calldata" if call is None else call.name
        return _fail(
            "tx-payment",
            f"calls {short(tx.to)} with {got}; a self-executed swap has only an approve of its "
            "input and the router's swap",
            where,
        )
    if token is None or not _same_address(tx.to, token):
        return _fail(
            "tx-payment", f"approves on {tx.to}, which is not the swap's input token {token}", where
        )
    spender = str(call.args["spender"])
    chain = chains.by_id(tx.chain_id) if chains is not None and tx.chain_id else None
    named = chain.contract_addresses() if chain is not None else {}
    if spender.lower() not in named:
        return _fail("tx-payment", f"approves {spender}, which is no contract /chains names", where)
    if value == 0 and call.args["amount"] == 0 and zero_reset_approve(quote):
        return _ok(
            "tx-payment",
            f"resets the allowance of the {named[spender.lower()]} contract {short(spender)} to "
            "0 right before the approve of exactly the swap's input (the form for tokens that "
            "refuse to change an allowance that is not zero); it grants nothing",
            where,
        )
    if value != 0 or call.args["amount"] != amount_in:
        return _fail(
            "tx-payment",
            f"approves {call.args['amount']} (value {value}), but the swap's input is "
            f"{amount_in}: no allowance beyond it",
            where,
        )
    return _ok(
        "tx-payment",
        f"approve exactly the swap's input to the {named[spender.lower()]} contract "
        f"{short(spender)} /chains names",
        where,
    )
