"""`--call TO,VALUE,DATA` and `--txs-file FILE`: the calls (`txs` of the quote body) the
service is to execute on the destination chain after the fill.

VALUE is wei (the destination's native currency, smallest unit, digits only), as every amount
option takes integers in the smallest unit; DATA is 0x-prefixed hex (empty for a plain
transfer). A txs file is a JSON array as the API's `txs`: `[{"to": ..., "value": "...",
"data": "0x..."}]`. Every problem is refused before anything is sent (exit 3), naming the option
and, in a file, the entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crossdeck.base.errors import InputError
from crossdeck.cli.option_types import shown
from crossdeck.models.calls import MAX_CALLS

MAX_TXS_FILE_BYTES = 1024 * 1024
_CALL_KEYS = {"to", "value", "data"}


def _call(where: str, to: object, value: object, data: object) -> dict[str, str]:
    """One call, checked: `where` names it in errors ('--call 2', '--txs-file x.json [0]')."""
    from crossdeck.models.calls import checked_call

    try:
        return checked_call(to, value, data)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


def parse_call_option(text: str, index: int) -> dict[str, str]:
    """`--call TO,VALUE,DATA` (the `index`-th, from 1)."""
    from crossdeck.models.calls import parse_call

    try:
        return parse_call(text)
    except ValueError as exc:
        raise InputError(
            f"--call {index}: {exc}",
            hint="e.g. --call 0xAbC…,10000000000000000,0xd0e30db0 (value in wei; data may be "
            "empty: TO,VALUE,)",
        ) from None


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
