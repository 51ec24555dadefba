"""Multicall3's `aggregate3`, encoded and decoded by hand: a balance read needs this one call
and three selectors, not an ABI library (eth-abi costs its import on every start).

    aggregate3((address target, bool allowFailure, bytes callData)[]) -> (bool success, bytes)[]

Multicall3 lives at one address on hundreds of chains (the same presigned deployment
everywhere); the service's /chains names it as `contracts.multicall3` where it knows it.
"""

from __future__ import annotations

from dataclasses import dataclass

MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11"

AGGREGATE3 = bytes.fromhex("82ad56cb")  # aggregate3((address,bool,bytes)[])
GET_CHAIN_ID = bytes.fromhex("3408e470")  # getChainId()
GET_ETH_BALANCE = bytes.fromhex("4d2301cc")  # getEthBalance(address)
BALANCE_OF = bytes.fromhex("70a08231")  # balanceOf(address)

_WORD = 32


@dataclass(frozen=True)
class Call3:
    target: str
    call_data: bytes
    allow_failure: bool = False


def address_word(address: str) -> bytes:
    raw = bytes.fromhex(address.removeprefix("0x").removeprefix("0X"))
    if len(raw) != 20:
        raise ValueError(f"{address!r} is not a 20-byte address")
    return raw.rjust(_WORD, b"\0")


def _uint(value: int) -> bytes:
    return value.to_bytes(_WORD, "big")


def _padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % _WORD)


def encode_aggregate3(calls: list[Call3]) -> bytes:
    """The calldata of `aggregate3(calls)`."""
    elements = [
        address_word(call.target)
        + _uint(int(call.allow_failure))
        + _uint(3 * _WORD)  # the bytes start after the element's three head words
        + _uint(len(call.call_data))
        + _padded(call.call_data)
        for call in calls
    ]
    offsets, at = [], len(calls) * _WORD
    for element in elements:
        offsets.append(_uint(at))
        at += len(element)
    return AGGREGATE3 + _uint(_WORD) + _uint(len(calls)) + b"".join(offsets) + b"".join(elements)


def decode_aggregate3(data: bytes, expected: int) -> list[tuple[bool, bytes]]:
    """`(success, returnData)` per call; ValueError for an answer that is not one, or not of
    `expected` results (an address without code answers an empty 0x)."""

    def word(at: int) -> int:
        if at < 0 or at + _WORD > len(data):
            raise ValueError("the aggregate3 answer is cut short")
        return int.from_bytes(data[at : at + _WORD], "big")

    if not data:
        raise ValueError("an empty answer: no Multicall3 at that address")
    array = word(0)
    count = word(array)
    if count != expected:
        raise ValueError(f"aggregate3 answered {count} results for {expected} calls")
    base = array + _WORD
    results = []
    for index in range(count):
        element = base + word(base + index * _WORD)
        success = word(element)
        if success not in (0, 1):
            raise ValueError("aggregate3 answered a success flag that is not a bool")
        start = element + word(element + _WORD)
        length = word(start)
        if start + _WORD + length > len(data):
            raise ValueError("the aggregate3 answer is cut short")
        results.append((bool(success), data[start + _WORD : start + _WORD + length]))
    return results


def uint_result(data: bytes) -> int:
    """A call's uint256 answer; ValueError when it is not one word."""
    if len(data) != _WORD:
        raise ValueError(f"expected one 32-byte word, got {len(data)} bytes")
    return int.from_bytes(data, "big")
