"""One call of a quote body's `txs`, as a person writes it: `TO,VALUE,DATA` (the contract, the
value in wei, the calldata as 0x hex, empty for a plain transfer). The command line's `--call`
and `--txs-file` and the app's calls field read them here, so each takes the same units."""

from __future__ import annotations

import re

from crossdeck.models.addresses import checksum_problem

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_DIGITS = re.compile(r"[0-9]{1,78}")  # ASCII digits only
_HEX = re.compile(r"0x(?:[0-9a-fA-F]{2})*")
UINT256_MAX = 2**256 - 1
MAX_CALLS = 16


def checked_call(to: object, value: object, data: object) -> dict[str, str]:
    """The wire form of one call, {to, value, data}; `ValueError` saying what is wrong."""
    if not isinstance(to, str) or not _ADDRESS.fullmatch(to.strip()):
        raise ValueError(f"to {str(to)[:60]!r} is not an EVM address ('0x' and 40 hex digits)")
    problem = checksum_problem(to.strip())
    if problem is not None:
        raise ValueError(f"to {problem}")
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    digits = value.strip() if isinstance(value, str) else ""
    # said apart from "not digits": a wei amount too large for the chain is a different mistake
    if digits.isascii() and digits.isdigit() and (len(digits) > 78 or int(digits) > UINT256_MAX):
        raise ValueError(f"value of {len(digits)} digits is larger than a uint256")
    if not isinstance(value, str) or not _DIGITS.fullmatch(value.strip()):
        raise ValueError(
            f"value {str(value)[:40]!r} is not wei written in digits 0-9 (0.01 ETH is "
            "10000000000000000)"
        )
    if data is None or (isinstance(data, str) and not data.strip()):
        data = "0x"
    if not isinstance(data, str) or not _HEX.fullmatch(data.strip()):
        raise ValueError(
            f"data {str(data)[:40]!r} is not 0x-prefixed hex of whole bytes (e.g. 0xd0e30db0)"
        )
    return {"to": to.strip(), "value": str(int(value)), "data": data.strip().lower()}


def parse_call(text: str) -> dict[str, str]:
    """`TO,VALUE,DATA` (DATA may be empty: `TO,VALUE,`)."""
    parts = text.split(",")
    if len(parts) != 3:
        raise ValueError(f"{text.strip()[:80]!r} is not TO,VALUE,DATA")
    return checked_call(*parts)


def parse_calls(text: str) -> list[dict[str, str]]:
    """Calls written one after another, separated by ';' or new lines (blank ones skipped)."""
    pieces = [p.strip() for p in re.split(r"[;\n]", text) if p.strip()]
    if len(pieces) > MAX_CALLS:
        raise ValueError(f"{len(pieces)} calls; at most {MAX_CALLS}")
    calls = []
    for i, piece in enumerate(pieces, start=1):
        try:
            calls.append(parse_call(piece))
        except ValueError as exc:
            raise ValueError(f"call {i}: {exc}") from None
    return calls
