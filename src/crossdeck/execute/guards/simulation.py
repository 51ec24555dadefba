"""`balance-changes`: what crossdeck cannot decode it simulates, and holds the outcome to the
quote, before anything is signed.

A transaction whose calldata the decoders (`guards.calldata`) cannot read, such as the swap
router's call of a self-executed same-chain swap or any call to a contract /chains names, is
not refused on sight and not waved through: the quote's remaining transactions on its chain
(with their approve, in order) run in one `eth_simulateV1` with `traceTransfers` (native value
shows as Transfer logs), between reads of every allowance they could touch. The outcome must be
what the quote says:

- the wallet loses exactly the input (currencyIn, or paymentDetails where the quote has it), in
  no other currency and by no other amount (gas aside: the simulation charges none);
- the recipient gains at least currencyOut.minimumAmount, when the output is on this chain;
- no other balance of the wallet moves;
- no allowance of the wallet ends higher than it was, and no operator approval is given.

Anything else is a refusal that says what would have happened. A node without eth_simulateV1
is a refusal too: what cannot be seen is not signed.

What it cannot see: balances that move without a Transfer log (rebasing or non-standard tokens),
approvals in other contracts than the tokens named (Permit2's own allowances, say), and the
chain changing between the simulation and the transaction's inclusion.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.guards.base import GuardResult, _fail, _ok
from crossdeck.execute.guards.calldata import CalldataError, decode_call
from crossdeck.models import NATIVE_ADDRESS, Quote, TransactionData, format_units
from crossdeck.models.addresses import to_checksum_address
from crossdeck.models.text import short

if TYPE_CHECKING:
    from crossdeck.models import CurrencyAmount
    from crossdeck.wallet.gateway import EvmGateway

NAME = "balance-changes"
NATIVE_LOG_ADDRESS = "0x" + "ee" * 20  # the pseudo-token of traced native transfers
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
APPROVAL_TOPIC = "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925"
APPROVAL_FOR_ALL_TOPIC = "0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31"
_ALLOWANCE = "0xdd62ed3e"  # allowance(address,address)
_ERROR_STRING = "0x08c379a0"  # Error(string)
_NATIVE = NATIVE_ADDRESS.lower()
_SUCCESS = ("0x1", "1", "True")  # a call's status as nodes write it


class _Unreadable(ValueError):
    """The node's simulation answer is not what the call it answers must return."""


@dataclass(frozen=True)
class PendingTx:
    """A transaction of the quote not sent yet, where it sits in the steps."""

    step_index: int
    item_index: int
    step_id: str
    tx: TransactionData


def pending_txs(quote: Quote, start: tuple[int, int] = (0, 0)) -> list[PendingTx]:
    """The quote's EVM transactions still to send, from `start` (step, item) on, in order."""
    found = []
    for step_index, step in enumerate(quote.steps):
        for item_index, item in enumerate(step.items):
            if (step_index, item_index) < start or item.kind_of_data != "transaction":
                continue
            if not item.is_incomplete:
                continue
            found.append(PendingTx(step_index, item_index, str(step.id), item.as_transaction()))
    return found


def undecoded(tx: TransactionData) -> bool:
    try:
        decode_call(tx.data)
    except CalldataError:
        return True
    return False


def simulated_chain(quote: Quote, start: tuple[int, int] = (0, 0)) -> int | None:
    """The chain whose pending transactions must be simulated (one with calldata crossdeck
    cannot decode), or None when every pending transaction is decoded."""
    for pending in pending_txs(quote, start):
        if undecoded(pending.tx) and pending.tx.chain_id is not None:
            return pending.tx.chain_id
    return None


@dataclass(frozen=True)
class _Terms:
    """What the quote says the transactions on `chain_id` do."""

    chain_id: int
    wallet: str
    token_in: str | None
    amount_in: int | None
    token_out: str | None  # None: the output is on another chain
    minimum_out: int | None
    recipient: str


def _currency(amount: CurrencyAmount | None) -> tuple[str | None, int | None, str, int | None]:
    """(address lower-cased, chain id, symbol, decimals) of a quote amount object."""
    info = amount.currency_info if amount is not None else None
    if info is None:
        return None, None, "", None
    return (info.address or "").lower() or None, info.chain_id, info.symbol or "", info.decimals


def _terms(quote: Quote, wallet: str, chain_id: int) -> _Terms:
    details = quote.details
    payment = quote.payment_details
    token_in, _, _, _ = _currency(details.currency_in if details else None)
    amount_in = details.currency_in.amount if details and details.currency_in else None
    if payment is not None and payment.amount is not None:
        token_in, amount_in = (payment.currency or _NATIVE).lower(), payment.amount
    out = details.currency_out if details else None
    token_out, out_chain, _, _ = _currency(out)
    on_chain = out_chain == chain_id
    return _Terms(
        chain_id=chain_id,
        wallet=wallet.lower(),
        token_in=token_in,
        amount_in=amount_in,
        token_out=token_out if on_chain else None,
        minimum_out=(out.minimum_amount if out is not None else None) if on_chain else None,
        recipient=((details.recipient if details else None) or wallet).lower(),
    )


class _Words:
    """Amounts in the quote's own units: '0.01 ETH', '29.81 USDC'."""

    def __init__(self, quote: Quote) -> None:
        self.known: dict[str, tuple[str, int]] = {}
        details = quote.details
        for amount in (
            details.currency_in if details else None,
            details.currency_out if details else None,
        ):
            address, _, symbol, decimals = _currency(amount)
            if address is not None and decimals is not None:
                self.known[address] = (symbol, decimals)

    def __call__(self, amount: int, token: str) -> str:
        known = self.known.get(token)
        if known is None and token == _NATIVE:
            known = ("native", 18)
        if known is None:
            return f"{amount} units of token {_short(token)}"
        symbol, decimals = known
        return f"{Decimal(format_units(amount, decimals)).normalize():f} {symbol}".strip()


def _short(address: str) -> str:
    """An address as the user reads it elsewhere: EIP-55 case, shortened."""
    try:
        return short(to_checksum_address(address))
    except ValueError:
        return short(address)


def _word(address: str) -> int:
    return int(address[2:], 16) if address else 0


def _addr_word(address: str) -> str:
    return address.lower()[2:].rjust(64, "0")


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:].lower()


async def simulation_guard(
    quote: Quote, wallet: str, gateway: EvmGateway | None, start: tuple[int, int] = (0, 0)
) -> list[GuardResult]:
    """The `balance-changes` guard over the pending transactions from `start` on (empty when
    every one of them is decoded). `gateway`: an `EvmGateway` of their chain, or None."""
    chain_id = simulated_chain(quote, start)
    if chain_id is None:
        return []
    if gateway is None:
        return [
            _fail(
                NAME,
                f"a transaction on chain {chain_id} has calldata crossdeck cannot decode, and no "
                f"RPC is configured there to simulate it (set rpc.{chain_id}); nothing is "
                "signed that cannot be checked",
            )
        ]
    txs = [p for p in pending_txs(quote, start) if p.tx.chain_id == chain_id]
    terms = _terms(quote, wallet, chain_id)
    if terms.token_in is None or terms.amount_in is None:
        return [
            _fail(
                NAME,
                "the quote does not say what you send (no currencyIn amount or paymentDetails), "
                "so a simulation has nothing to be held to",
            )
        ]
    words = _Words(quote)
    allowances = _allowance_pairs(txs, terms)
    reads = [
        {"from": wallet, "to": token, "data": _ALLOWANCE + _addr_word(wallet) + _addr_word(spender)}
        for token, spender in allowances
    ]
    calls = [p.tx.call_from(wallet) for p in txs]
    try:
        results = await gateway.simulate([*reads, *calls, *reads])
    except CrossdeckError as exc:
        return [
            _fail(
                NAME,
                f"the transactions on chain {chain_id} carry calldata crossdeck cannot decode, "
                f"and they cannot be simulated: {exc.message}. Nothing is signed that cannot be "
                "checked",
            )
        ]
    if len(results) != 2 * len(reads) + len(calls):
        return [_fail(NAME, f"the node answered {len(results)} results for {len(calls)} calls")]
    before = results[: len(reads)]
    ran = results[len(reads) : len(reads) + len(calls)]
    after = results[len(reads) + len(calls) :]
    for pending, result in zip(txs, ran, strict=True):
        if str(result.get("status")) not in _SUCCESS:
            reason = revert_reason(result)
            return [
                _fail(
                    NAME,
                    f"simulated on chain {chain_id}, step '{pending.step_id}' would fail "
                    f"({reason or 'reverted'}); refusing to sign what would not run as quoted",
                )
            ]
    try:
        flows, approvals = _flows(ran)
        problems = _problems(terms, flows, approvals, words)
        problems += _allowance_problems(allowances, before, after, words)
        problems += _unread_approvals(approvals, allowances, terms.wallet, words)
        summary = _summary(terms, flows, words)
    except (ValueError, TypeError, AttributeError, KeyError) as exc:
        # our own words for what is odd; any other error's text may carry the node's data
        why = str(exc) if isinstance(exc, _Unreadable) else type(exc).__name__
        return [
            _fail(
                NAME,
                f"chain {chain_id}'s node answered eth_simulateV1 with logs or data crossdeck "
                f"cannot read ({why}); nothing is signed that cannot be checked",
            )
        ]
    what = ", ".join(f"'{p.step_id}'" for p in txs)
    if problems:
        return [
            _fail(
                NAME,
                f"simulated on chain {chain_id} (eth_simulateV1, steps {what}): "
                + "; ".join(problems)
                + f". The quote says: {summary['quoted']}",
            )
        ]
    return [
        _ok(
            NAME,
            f"simulated on chain {chain_id} (eth_simulateV1, steps {what}): "
            f"{summary['quoted']} ({summary['seen']} in the simulation); no other balance of "
            "yours moves and no allowance is left",
        )
    ]


def revert_reason(result: dict[str, Any]) -> str | None:
    """Why a simulated call failed: the revert's Error(string) where its data carries one
    (anvil puts it in returnData, geth and py-evm in the error), else the node's message."""
    error = result.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    data = error.get("data") if isinstance(error, dict) else None
    for raw in (data, result.get("returnData")):
        text = str(raw or "")
        if not text.startswith(_ERROR_STRING):
            continue
        try:
            body = bytes.fromhex(text[len(_ERROR_STRING) :])
            length = int.from_bytes(body[32:64], "big")
            reason = body[64 : 64 + length].decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        return f"execution reverted: {reason}"
    return str(message) if message else None


def _allowance_pairs(txs: list[PendingTx], terms: _Terms) -> list[tuple[str, str]]:
    """(token, spender) of every allowance the transactions could raise: each ERC-20 they touch
    (the input, the output, each approve's token) by each contract they call or approve."""
    tokens = {t for t in (terms.token_in, terms.token_out) if t and t != _NATIVE}
    spenders = set()
    for pending in txs:
        if pending.tx.to:
            spenders.add(pending.tx.to.lower())
        try:
            call = decode_call(pending.tx.data)
        except CalldataError:
            continue
        if call is not None and call.name == "approve" and pending.tx.to:
            tokens.add(pending.tx.to.lower())
            spenders.add(str(call.args["spender"]).lower())
    return sorted((token, spender) for token in tokens for spender in spenders if token != spender)


def _flows(
    results: list[dict[str, Any]],
) -> tuple[dict[tuple[str, str], int], list[tuple[str, str, str, int]]]:
    """Net change per (token, address) from the Transfer logs, and the approvals given
    (token, owner, spender, amount; ApprovalForAll as amount -1)."""
    net: dict[tuple[str, str], int] = defaultdict(int)
    approvals = []
    for result in results:
        for log in result.get("logs") or []:
            if not isinstance(log, dict) or not isinstance(log.get("topics") or [], list):
                raise ValueError("a log is not an object with a list of topics")
            topics = [str(t).lower() for t in log.get("topics") or []]
            address = str(log.get("address", "")).lower()
            data = str(log.get("data") or "0x")
            if len(topics) != 3:
                continue
            if topics[0] == TRANSFER_TOPIC:
                token = _NATIVE if address == NATIVE_LOG_ADDRESS else address
                amount = _word(data[:66])
                net[(token, _topic_address(topics[1]))] -= amount
                net[(token, _topic_address(topics[2]))] += amount
            elif topics[0] == APPROVAL_TOPIC:
                owner, spender = _topic_address(topics[1]), _topic_address(topics[2])
                approvals.append((address, owner, spender, _word(data[:66])))
            elif topics[0] == APPROVAL_FOR_ALL_TOPIC and _word(data[:66]):
                owner, spender = _topic_address(topics[1]), _topic_address(topics[2])
                approvals.append((address, owner, spender, -1))
    return net, approvals


def _problems(
    terms: _Terms,
    net: dict[tuple[str, str], int],
    approvals: list[tuple[str, str, str, int]],
    words: _Words,
) -> list[str]:
    problems = []
    wallet = terms.wallet
    if terms.token_in is not None and terms.amount_in is not None:
        sent = -net.get((terms.token_in, wallet), 0)
        if sent != terms.amount_in:
            problems.append(
                f"you would send {words(sent, terms.token_in)}, not "
                f"{words(terms.amount_in, terms.token_in)}"
            )
    for (token, holder), change in sorted(net.items()):
        if holder != wallet or change == 0 or token == terms.token_in:
            continue
        if token == terms.token_out and holder == terms.recipient and change > 0:
            continue
        verb = "gain" if change > 0 else "lose"
        problems.append(
            f"you would {verb} {words(abs(change), token)}, which the quote does not say"
        )
    if terms.token_out is not None and terms.minimum_out is not None:
        got = net.get((terms.token_out, terms.recipient), 0)
        if got < terms.minimum_out:
            who = "you" if terms.recipient == wallet else _short(terms.recipient)
            others = [
                f"{_short(holder)} would receive {words(change, token)}"
                for (token, holder), change in sorted(net.items())
                if token == terms.token_out and change > 0 and holder != terms.recipient
            ]
            problems.append(
                f"{who} would receive {words(max(got, 0), terms.token_out)}, not at least "
                f"{words(terms.minimum_out, terms.token_out)}"
                + (f" ({'; '.join(others)})" if others else "")
            )
    for token, owner, spender, amount in approvals:
        if owner != wallet:
            continue
        if amount < 0:
            problems.append(f"it would let {_short(spender)} move all your {_short(token)} tokens")
    return problems


def _allowance_problems(
    pairs: list[tuple[str, str]],
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    words: _Words,
) -> list[str]:
    problems = []
    for (token, spender), was, now in zip(pairs, before, after, strict=True):
        old, new = _allowance(was, token, spender), _allowance(now, token, spender)
        if new > old:
            problems.append(
                f"it would leave {_short(spender)} an allowance of {words(new, token)} "
                f"(it was {words(old, token)})"
            )
    return problems


def _unread_approvals(
    approvals: list[tuple[str, str, str, int]],
    pairs: list[tuple[str, str]],
    wallet: str,
    words: _Words,
) -> list[str]:
    """Approvals of the wallet's that the allowance reads do not cover (a token or spender the
    quote does not name): their end value is not read, so any grant is a refusal."""
    read = set(pairs)
    return [
        f"it would let {_short(spender)} spend {words(amount, token)} of yours, which the quote "
        "does not say"
        for token, owner, spender, amount in approvals
        if owner == wallet and amount > 0 and (token, spender) not in read
    ]


def _allowance(result: dict[str, Any], token: str, spender: str) -> int:
    """An allowance read's answer. A read that failed or returned no uint256 is not taken as
    zero: an allowance left behind would then pass unseen."""
    data = str(result.get("returnData") or "0x")
    if str(result.get("status")) not in _SUCCESS or len(data) != 66:
        raise _Unreadable(
            f"the allowance of {_short(spender)} on token {_short(token)} could not be read"
        )
    return _word(data)


def _summary(terms: _Terms, net: dict[tuple[str, str], int], words: _Words) -> dict[str, str]:
    parts, seen = [], []
    if terms.token_in is not None and terms.amount_in is not None:
        parts.append(f"you send {words(terms.amount_in, terms.token_in)}")
        seen.append(
            f"you send {words(-net.get((terms.token_in, terms.wallet), 0), terms.token_in)}"
        )
    if terms.token_out is not None and terms.minimum_out is not None:
        who = (
            "you receive"
            if terms.recipient == terms.wallet
            else f"{_short(terms.recipient)} receives"
        )
        parts.append(f"{who} at least {words(terms.minimum_out, terms.token_out)}")
        got = net.get((terms.token_out, terms.recipient), 0)
        seen.append(f"{who} {words(got, terms.token_out)}")
    return {"quoted": ", ".join(parts) or "nothing", "seen": ", ".join(seen) or "nothing moves"}
