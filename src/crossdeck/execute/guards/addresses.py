"""`address-checksum`: no address the quote asks to sign or pay carries a wrong EIP-55 checksum.

A mixed-case address is a claim about itself (EIP-55): when its case does not match its
checksum, a character was altered somewhere between whoever wrote it and this wallet. Every
EVM address in what would be signed or paid (each step's items and deposit address, the
payment details) is held to it; all-lower and all-upper addresses carry no checksum and pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from crossdeck.execute.guards.base import GuardResult, _fail, _ok
from crossdeck.models import Quote
from crossdeck.models.addresses import checksum_problem, is_evm_address

_NAME = "address-checksum"


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _strings(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _strings(inner, f"{path}[{index}]")


def _signed_or_paid(quote: Quote) -> Iterator[tuple[str, str]]:
    # read from the quote's JSON form, made once (the items' and the payment's own would each
    # build a serializer of their own first)
    wire = quote.to_wire()
    for step in wire.get("steps") or ():
        step_id = step.get("id")
        if step.get("depositAddress") is not None:
            yield f"step '{step_id}' depositAddress", step["depositAddress"]
        for index, item in enumerate(step.get("items") or ()):
            yield from _strings(item.get("data"), f"step '{step_id}' item {index} data")
    payment = ((wire.get("protocol") or {}).get("v2") or {}).get("paymentDetails")
    if payment is not None:
        yield from _strings(payment, "paymentDetails")


def address_checksum_guard(quote: Quote) -> GuardResult:
    wrong = []
    checked = 0
    for path, text in _signed_or_paid(quote):
        problem = checksum_problem(text)
        checked += is_evm_address(text)
        if problem is not None:
            wrong.append(f"{path}: {problem}")
    if wrong:
        return _fail(
            _NAME,
            "the quote holds an address that was altered: "
            + "; ".join(wrong)
            + "; ask for a new quote",
        )
    return _ok(_NAME, f"none of the quote's {checked} addresses has a wrong EIP-55 checksum")
