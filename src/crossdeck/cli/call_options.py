"""`--call TO,VALUE,DATA` and `--txs-file FILE`: the calls (`txs` of the quote body) the
service is to execute on the destination chain after the fill.

VALUE is wei (the destination's native currency, smallest unit, digits only), as every amount
option takes integers in the smallest unit; DATA is 0x-prefixed hex (empty for a plain
transfer). A txs file is a JSON array as the API's `txs`: `[{"to": ..., "value": "...",
"data": "0x..."}]`. Every problem is refused before anything is sent (exit 3), naming the option
and, in a file, the entry.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from crossdeck.cli.option_types import ADDRESS, parse_whole_number, shown
from crossdeck.errors import InputError

MAX_CALLS = 16
MAX_TXS_FILE_BYTES = 1024 * 1024
_HEX = re.compile(r"0x(?:[0-9a-fA-F]{2})*")
_UINT256_MAX = 2**256 - 1
_CALL_KEYS = {"to", "value", "data"}


def _call(where: str, to: object, value: object, data: object) -> dict[str, str]:
    """One call, checked: `where` names it in errors ('--call 2', '--txs-file x.json [0]')."""
    if not isinstance(to, str):
        raise InputError(f"{where}: `to` must be an address (a string)")
    try:
        address = ADDRESS.parse(to)
    except InputError as exc:
        raise InputError(f"{where}: to {exc.message}") from None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise InputError(f"{where}: `value` must be wei as digits (a string)")
    try:
        wei = parse_whole_number(value, minimum=0, maximum=_UINT256_MAX)
    except InputError as exc:
        raise InputError(
            f"{where}: value {exc.message}", hint="the value is wei: 0.01 ETH is 10000000000000000"
        ) from None
    if not isinstance(data, str) or not _HEX.fullmatch(data.strip() or "0x"):
        raise InputError(
            f"{where}: data {shown(str(data))} is not 0x-prefixed hex of whole bytes",
            hint="e.g. 0xd0e30db0 (a 4-byte selector), or empty for a plain transfer",
        )
    return {"to": address, "value": str(wei), "data": data.strip().lower() or "0x"}


def parse_call_option(text: str, index: int) -> dict[str, str]:
    """`--call TO,VALUE,DATA` (the `index`-th, from 1)."""
    parts = text.split(",")
    if len(parts) != 3:
        raise InputError(
            f"--call {index} ({shown(text)}) is not TO,VALUE,DATA",
            hint="e.g. --call 0xAbC…,10000000000000000,0xd0e30db0 (value in wei; data may be "
            "empty: TO,VALUE,)",
        )
    to, value, data = (part.strip() for part in parts)
    return _call(f"--call {index}", to, value, data or "0x")


def read_txs_file(path: Path) -> list[dict[str, str]]:
    """The calls of a `--txs-file`: a JSON array as the API's `txs`."""
    from crossdeck.config import load_json

    name = f"--txs-file {shown(str(path))}"
    try:
        if path.is_dir():
            raise InputError(f"{name} is a directory, not a JSON file")
        with path.open("rb") as handle:
            raw = handle.read(MAX_TXS_FILE_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{name} does not exist") from None
    except OSError as exc:
        raise InputError(f"{name} cannot be read: {exc.strerror}") from None
    if len(raw) > MAX_TXS_FILE_BYTES:
        raise InputError(f"{name} is larger than {MAX_TXS_FILE_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not UTF-8 text (byte {exc.start})") from None
    try:
        document: Any = load_json(text)
    except ValueError as exc:
        raise InputError(f"{name} is not valid JSON: {exc}") from None
    if not isinstance(document, list):
        raise InputError(
            f"{name} holds a JSON {type(document).__name__.replace('dict', 'object')}, not an "
            "array",
            hint='a txs file is a JSON array: [{"to": "0x…", "value": "0", "data": "0x…"}]',
        )
    if len(document) > MAX_CALLS:
        raise InputError(f"{name} holds {len(document)} calls; at most {MAX_CALLS}")
    calls = []
    for i, entry in enumerate(document):
        where = f"{name} [{i}]"
        if not isinstance(entry, dict):
            raise InputError(f"{where} is not an object {{to, value, data}}")
        unknown = sorted(set(entry) - _CALL_KEYS)
        if unknown:
            raise InputError(f"{where} has fields other than to, value, data: {unknown[:5]}")
        value, data = entry.get("value", "0"), entry.get("data", "0x")
        calls.append(_call(where, entry.get("to"), value, data))
    return calls


def calls_from_options(calls: tuple[str, ...], txs_file: Path | None) -> list[dict[str, str]]:
    """The `txs` the options ask for, in order (the file's, then each --call's); [] for none."""
    txs = read_txs_file(txs_file) if txs_file is not None else []
    txs += [parse_call_option(text, i) for i, text in enumerate(calls, start=1)]
    if len(txs) > MAX_CALLS:
        raise InputError(f"{len(txs)} calls asked for; at most {MAX_CALLS}")
    return txs
