"""`order-calls`: the calls the protocol order will make on the destination chain are exactly
the ones the request asked for (`txs`), in order, each to the same contract with the same value
and calldata; a quote whose order makes a call the user did not ask for is refused.

The order carries each call in `protocol.v2.orderData.output.calls` as one hex string, laid out
as the recorded public answer has it (realdata `quote/docs-calling-integration-guide-*.json`):
the target's word, the offset of the data (0x60), the value's word, then at that offset the data
as an ABI-encoded `bytes` (its offset word 0x20, its length, the bytes). `decode_call` reads that
layout strictly (zero high bytes, offsets as written, no bytes beyond the padding) and gives None
for anything else: a call that cannot be read is never taken as the one asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from crossdeck.execute.guards.base import GuardResult, _fail, _ok
from crossdeck.models import ChainsResponse, Quote, QuoteRequest
from crossdeck.models.text import short

_HEX = re.compile(r"^0x(?:[0-9a-fA-F]{2})*$")
_WORD = 32


@dataclass(frozen=True)
class OrderCall:
    """A call the order makes on the destination chain (to, value, calldata)."""

    to: str  # lower-case
    value: int
    data: str  # 0x + lower-case hex

    def words(self) -> str:
        return f"call {self.to} with {self.value} wei and data {_data_words(self.data)}"


def _data_words(data: str) -> str:
    return data if len(data) <= 2 + 8 * 2 else f"{data[:10]}…({(len(data) - 2) // 2} bytes)"


def decode_call(encoded: object) -> OrderCall | None:
    """One `output.calls` entry, or None when it is not in the layout above."""
    if not isinstance(encoded, str) or not _HEX.fullmatch(encoded):
        return None
    raw = bytes.fromhex(encoded[2:])
    if len(raw) < 5 * _WORD or len(raw) % _WORD:
        return None

    def word(i: int) -> int:
        return int.from_bytes(raw[i * _WORD : (i + 1) * _WORD], "big")

    if raw[:12] != bytes(12) or word(1) != 3 * _WORD or word(3) != _WORD:
        return None
    length = word(4)
    padded = -(-length // _WORD) * _WORD
    if len(raw) != 5 * _WORD + padded:
        return None
    data = raw[5 * _WORD : 5 * _WORD + length]
    if any(raw[5 * _WORD + length :]):
        return None  # padding must be zeros
    return OrderCall(to="0x" + raw[12:_WORD].hex(), value=word(2), data="0x" + data.hex())


# Only the service's routers ('erc20Router', 'v3.erc20Router' in /chains `contracts`) receive an
# order's output and make its calls in the fill, as the public calling quotes pay them. Every
# other helper is refused: Multicall3 and the public 'multicaller' run calls for anyone (whoever
# calls next can make them send what they hold), 'relayReceiver' forwards what it gets to the
# solver, and an approval proxy holds nothing for the recipient.
def _is_router(role: str) -> bool:
    return role.rsplit(".", 1)[-1].lower().endswith("router")


def call_receivers(request: QuoteRequest, chains: ChainsResponse | None) -> dict[str, str]:
    """{address (lower-case): role} of the destination's routers an order with calls may pay
    its output to, when the request asks for calls; {} otherwise. An address /chains also names
    under any other role is not one."""
    if not request.txs or chains is None:
        return {}
    chain = chains.by_id(request.destination_chain_id)
    if chain is None:
        return {}
    return {
        address: f"{roles[0]} (/chains contracts of chain {request.destination_chain_id})"
        for address, roles in chain.contract_roles().items()
        if all(_is_router(role) for role in roles)
    }


def _asked(request: QuoteRequest) -> list[OrderCall]:
    return [
        OrderCall(
            to=call.to.lower(),
            value=int(call.value or 0),
            data=(call.data or "0x").lower() if call.data not in ("", None) else "0x",
        )
        for call in request.txs or []
    ]


def order_calls(quote: Quote) -> list[Any] | None:
    """The order's `output.calls` as given; None when the quote carries no order."""
    v2 = quote.protocol.v2 if quote.protocol else None
    order: Any = v2.order_data if v2 else None
    if not isinstance(order, dict):
        return None
    output = order.get("output")
    calls = output.get("calls") if isinstance(output, dict) else None
    return calls if isinstance(calls, list) else []


def calls_guard(quote: Quote, request: QuoteRequest) -> GuardResult:
    asked = _asked(request)
    given = order_calls(quote)
    if given is None:
        if asked:
            return _fail(
                "order-calls",
                f"you asked for {len(asked)} call(s) but the quote carries no protocol order "
                "that shows which calls it will make",
            )
        return _ok("order-calls", "the quote makes no calls (none asked for)")
    decoded = [decode_call(entry) for entry in given]
    for i, call in enumerate(decoded):
        if call is None:
            shown = short(str(given[i]), 18, 8)
            return _fail("order-calls", f"the order's call {i} cannot be read: {shown}")
    made = [call for call in decoded if call is not None]
    if not asked and made:
        return _fail(
            "order-calls",
            f"the order would make {len(made)} call(s) you did not ask for: "
            + "; ".join(call.words() for call in made[:3]),
        )
    if len(made) != len(asked):
        return _fail(
            "order-calls",
            f"the order makes {len(made)} call(s), you asked for {len(asked)}",
        )
    for i, (mine, theirs) in enumerate(zip(asked, made, strict=True)):
        if mine != theirs:
            return _fail(
                "order-calls",
                f"call {i}: the order would {theirs.words()}, you asked to {mine.words()}",
            )
    if not asked:
        return _ok("order-calls", "the order makes no calls (none asked for)")
    return _ok(
        "order-calls",
        f"the order makes exactly the {len(asked)} call(s) you asked for, in order: "
        + "; ".join(call.words() for call in asked),
    )
