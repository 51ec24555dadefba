"""Calls (`txs` in the quote body): transactions the solver executes on the destination chain
after the fill, paid out of the output, as the public service's calling route does.

The body's `txs` is an array of `{to, value?, data?}` (value a digit string of wei, data hex).
The order carries each call in `orderData.output.calls` as one hex string laid out as the
recorded public answer has it (realdata `quote/docs-calling-integration-guide-*.json`): the
target's word, the offset of the data (0x60), the value's word, then at that offset the data as
an ABI-encoded `bytes` (its own offset word 0x20, its length, the bytes padded to 32).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from crossdeck.sim.service.currencies import VENUE_CHAIN_ID
from crossdeck.sim.service.errors import invalid

ADDRESS_RE = re.compile(r"^0x[a-fA-F0-9]{40}$")
HEX_RE = re.compile(r"^0x(?:[a-fA-F0-9]{2})*$")
DIGITS_RE = re.compile(r"^[0-9]{1,78}$", re.ASCII)
MAX_CALLS = 16
MAX_CALL_DATA_BYTES = 32 * 1024


@dataclass(frozen=True)
class Call:
    to: str
    value: int
    data: bytes

    def wire(self) -> dict[str, str]:
        return {"to": self.to, "value": str(self.value), "data": "0x" + self.data.hex()}


def parse_txs(raw: Any, destination_chain_id: int) -> tuple[Call, ...]:
    """The body's `txs`, checked: () when absent."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise invalid("txs must be an array of {to, value, data}", field="txs")
    if not raw:
        return ()
    if destination_chain_id == VENUE_CHAIN_ID:
        raise invalid(
            "txs (calls) run on an EVM destination chain, not the venue (chain 1337)",
            "UNSUPPORTED_ROUTE",
            field="txs",
        )
    if len(raw) > MAX_CALLS:
        raise invalid(f"txs holds at most {MAX_CALLS} calls", field="txs")
    calls = []
    for i, item in enumerate(raw):
        where = f"txs[{i}]"
        if not isinstance(item, dict):
            raise invalid(f"{where} must be an object {{to, value, data}}", field="txs")
        to = item.get("to")
        if not isinstance(to, str) or not ADDRESS_RE.fullmatch(to):
            raise invalid(f"{where}.to must be an address", "INVALID_ADDRESS", field="txs")
        value = item.get("value", "0")
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            value = str(value)
        if not isinstance(value, str) or not DIGITS_RE.fullmatch(value):
            raise invalid(f"{where}.value must be a string of digits (wei)", field="txs")
        data = item.get("data", "0x")
        if data in ("", None):
            data = "0x"
        if not isinstance(data, str) or not HEX_RE.fullmatch(data):
            raise invalid(f"{where}.data must be 0x-prefixed hex of whole bytes", field="txs")
        if len(data) // 2 - 1 > MAX_CALL_DATA_BYTES:
            raise invalid(f"{where}.data is longer than {MAX_CALL_DATA_BYTES} bytes", field="txs")
        calls.append(Call(to=to, value=int(value), data=bytes.fromhex(data[2:])))
    return tuple(calls)


def _word(number: int) -> bytes:
    return number.to_bytes(32, "big")


def encode_call(call: Call) -> str:
    """One `orderData.output.calls` entry (the layout in this module's docstring)."""
    padded = call.data + b"\0" * (-len(call.data) % 32)
    target = bytes(12) + bytes.fromhex(call.to[2:])
    body = target + _word(0x60) + _word(call.value) + _word(0x20) + _word(len(call.data))
    return "0x" + (body + padded).hex()


def calls_value(calls: tuple[Call, ...]) -> int:
    return sum(call.value for call in calls)


def calls_from_record(raw: Any) -> tuple[Call, ...]:
    """The calls a request record keeps (`extra["calls"]`, their wire form)."""
    return tuple(
        Call(to=c["to"], value=int(c["value"]), data=bytes.fromhex(c["data"][2:]))
        for c in raw or []
    )
