"""The demo world's venue answers, field by field against the public venue's recorded answers.

The recorded answers are `../shared/realdata/venue-info/*` and `venue-exchange/*` (where each
came from: `SOURCES.md` there; `CROSSDECK_REALDATA` points elsewhere). Each world answer is
compared with every recorded answer of its kind:

- names and nesting: every field the world writes exists at the same place in a recorded
  answer (no invented fields), and every field that all recorded answers of the kind carry at a
  place, the world carries too;
- JSON types: the world's type at each place is one the public venue used there (a field that
  is sometimes null, like `evmContract`, may be null or an object);
- string forms: a string is a decimal ("0.0", never "0" or exponent notation), an integer, hex
  of a given length (token ids: 0x + 32 digits), or text, and the world's form at each place is
  one the public venue used there.

An array's elements are compared with the union of the recorded elements; an array directly
inside an array is a tuple (`tokenToAvailableAfterMaintenance`: [token index, amount]) and is
compared position by position. The world trades nothing, so its `assetPositions` is always
empty and the position objects of the recorded answers have nothing to be compared with.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account
from hyperliquid.utils.signing import get_timestamp_ms, sign_send_asset_action

from crossdeck.models.venue import SpotMeta
from crossdeck.venue.currencies import spot_token_for

REALDATA = Path(
    os.environ.get("CROSSDECK_REALDATA", Path(__file__).resolve().parents[3] / "shared/realdata")
)
RECORDED = {
    "clearinghouseState": [
        "venue-info/jkorf-clearinghouseState-2025-08.json",
        "venue-info/pysdk-clearinghouseState-2023-03.json",
    ],
    "spotClearinghouseState": ["venue-info/jkorf-spotClearinghouseState.json"],
    "spotMeta": [
        "venue-info/hyperevm-vault-spotMeta-2025-08.json",
        "venue-info/pysdk-spotMeta-from-spotMetaAndAssetCtxs.json",
    ],
    "exchange-ok": ["venue-exchange/jkorf-exchange-ok-default.json"],
}

_DECIMAL = re.compile(r"^-?[0-9]+\.[0-9]+$")
_INTEGER = re.compile(r"^-?[0-9]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")


def kind(value: Any) -> str:
    """The JSON type of `value`, and for a string its form."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if _DECIMAL.fullmatch(value):
        return "string:decimal"
    if _INTEGER.fullmatch(value):
        return "string:integer"
    if _HEX.fullmatch(value):
        return f"string:hex{len(value) - 2}"
    return "string:text"


@dataclass
class Shape:
    """What answers of one kind look like: kinds seen at each place, and the keys of objects."""

    kinds: dict[str, set[str]] = field(default_factory=dict)
    required: dict[str, set[str]] = field(default_factory=dict)  # keys every object there has

    def add(self, value: Any, path: str = "$", in_array: bool = False) -> None:
        self.kinds.setdefault(path, set()).add(kind(value))
        if isinstance(value, dict):
            keys = set(value)
            self.required[path] = self.required.get(path, keys) & keys
            for key, child in value.items():
                self.add(child, f"{path}.{key}")
        elif isinstance(value, list):
            for i, child in enumerate(value):
                self.add(child, f"{path}[{i}]" if in_array else f"{path}[]", in_array=True)


def walk(value: Any, path: str = "$", in_array: bool = False) -> Iterator[tuple[str, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from walk(child, f"{path}.{key}")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from walk(child, f"{path}[{i}]" if in_array else f"{path}[]", in_array=True)


def differences(world: Any, shape: Shape) -> list[str]:
    problems = []
    for path, value in walk(world):
        seen = shape.kinds.get(path)
        if seen is None:
            problems.append(f"{path}: the public venue has no such field")
            continue
        if kind(value) not in seen:
            problems.append(f"{path}: {kind(value)} {value!r}, the public venue writes {seen}")
        if isinstance(value, dict):
            missing = shape.required.get(path, set()) - set(value)
            problems += [f"{path}.{key}: missing" for key in sorted(missing)]
    return problems


def recorded(name: str) -> Any:
    path = REALDATA / name
    if not path.is_file():
        pytest.fail(
            f"recorded answer {path} not found: set CROSSDECK_REALDATA to the realdata folder",
            pytrace=False,
        )
    return json.loads(path.read_text())


def shape_of(kind_name: str) -> Shape:
    shape = Shape()
    for name in RECORDED[kind_name]:
        shape.add(recorded(name))
    return shape


@pytest.fixture(scope="module")
def world(start_world: Any) -> Iterator[Any]:
    with start_world("py-evm", brand="public") as running:
        yield running


def info(world: Any, body: dict[str, Any]) -> Any:
    answer = httpx.post(f"{world.venue_url}/info", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_comparison_catches_a_drift() -> None:
    """The check itself: each kind of drift the world could make is reported."""
    shape = shape_of("spotClearinghouseState")
    good = {
        "balances": [
            {"coin": "USDC", "token": 0, "total": "1.5", "hold": "0.0", "entryNtl": "0.0"}
        ],
        "tokenToAvailableAfterMaintenance": [[0, "1.5"]],
    }
    assert differences(good, shape) == []
    drifts = {
        "a renamed field": {**good, "balances": [{**good["balances"][0], "coinName": "USDC"}]},
        "a number for a string": {**good, "balances": [{**good["balances"][0], "total": 1.5}]},
        "an integer string for a decimal": {
            **good, "balances": [{**good["balances"][0], "hold": "0"}]
        },
        "a missing field": {"balances": good["balances"]},
        "a swapped tuple": {**good, "tokenToAvailableAfterMaintenance": [["1.5", 0]]},
        "a flattened nesting": {**good, "balances": good["balances"][0]},
    }  # fmt: skip
    for what, answer in drifts.items():
        assert differences(answer, shape), what


def test_clearinghouse_state_matches_the_recorded_answers(world: Any) -> None:
    shape = shape_of("clearinghouseState")
    for dex in ("", "xyz"):
        answer = info(
            world, {"type": "clearinghouseState", "user": world.wallet_address, "dex": dex}
        )
        assert answer["withdrawable"] != "0.0", "compare a funded account"
        assert differences(answer, shape) == []


def test_spot_clearinghouse_state_matches_the_recorded_answer(world: Any) -> None:
    answer = info(world, {"type": "spotClearinghouseState", "user": world.wallet_address})
    assert len(answer["balances"]) >= 2, "compare an account holding several tokens"
    assert differences(answer, shape_of("spotClearinghouseState")) == []


def test_spot_meta_matches_the_recorded_answers(world: Any) -> None:
    shape = shape_of("spotMeta")
    answer = info(world, {"type": "spotMeta"})
    assert differences(answer, shape) == []
    # the recorded file is element [0] of a spotMetaAndAssetCtxs answer: so is the world's
    meta_and_ctxs = info(world, {"type": "spotMetaAndAssetCtxs"})
    assert meta_and_ctxs[0] == answer
    assert differences(meta_and_ctxs[0], shape) == []


def test_an_accepted_send_asset_answers_as_the_recorded_one(world: Any) -> None:
    wallet = Account.from_key(world.wallet_key)
    nonce = get_timestamp_ms()
    action = {
        "type": "sendAsset", "destination": Account.create().address, "sourceDex": "",
        "destinationDex": "spot", "token": "USDC:0x6d1e7cde53ba9467b783cb7c530ce054",
        "amount": "1.0", "fromSubAccount": "", "nonce": nonce,
    }  # fmt: skip
    signature = sign_send_asset_action(wallet, action, True)  # signs "Mainnet", the world's
    body = {"action": action, "nonce": nonce, "signature": signature, "vaultAddress": None}
    answer = httpx.post(f"{world.venue_url}/exchange", json=body, timeout=10)
    assert answer.status_code == 200
    assert answer.json() == recorded("venue-exchange/jkorf-exchange-ok-default.json")


def test_the_client_finds_usde_in_the_recorded_spot_meta_by_the_seed_spelling() -> None:
    for name in RECORDED["spotMeta"]:
        meta = SpotMeta.model_validate(recorded(name))
        usde = spot_token_for(meta, "USDe")  # the public venue lists it as 'USDE'
        assert (usde.name, usde.token_id) == ("USDE", "0x2e6d84f2d7ca82e6581e03523e4389f7")
