"""The two brands of the world differ in brand words only.

`--brand public` speaks the public deployment's names (so the public SDKs can use the world),
`--brand neutral` the spec's. Everything else (members, nesting, JSON types, the forms of
strings, step ids and kinds, every word of the step texts but the brand's own) must be the
same, or a shape fixed in one brand would drift in the other unseen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.conformance.realdata_support import form

from crossdeck.sim.brand import BRANDS

NATIVE = "0x" + "0" * 40


def _brand_words() -> list[tuple[str, str]]:
    """Both brands' words: the neutral ones ('venue', 'service') are also plain English that
    the public texts use, so they are read as brand words wherever they stand."""
    words: dict[str, str] = {}
    for brand in BRANDS.values():
        words |= {
            brand.venue_name: "<Venue>",
            brand.venue_name.lower(): "<venue>",
            brand.service_name: "<Service>",
            brand.service_name.lower(): "<service>",
        }
    return sorted(words.items(), key=lambda pair: -len(pair[0]))


_WORDS = dict(_brand_words())
_BRAND_WORD = re.compile("|".join(re.escape(word) for word, _ in _brand_words()))


def _unbranded(text: str) -> str:
    # one pass, so a placeholder is never rewritten again
    return _BRAND_WORD.sub(lambda match: _WORDS[match.group(0)], text)


def shape(value: Any, path: str = "") -> set[str]:
    """Every member's path (brand words replaced) with the JSON type and string form there."""
    if isinstance(value, dict):
        out = {f"{path}:object"}
        for key, item in value.items():
            out |= shape(item, f"{path}.{_unbranded(key)}")
        return out
    if isinstance(value, list):
        out = {f"{path}:array"}
        for item in value:
            out |= shape(item, path + "[]")
        return out
    return {f"{path}:{form(value)}"}


def step_words(quote: dict[str, Any]) -> list[tuple[str, ...]]:
    return [
        (s["id"], s["kind"], _unbranded(s["action"]), _unbranded(s["description"]))
        for s in quote["steps"]
    ]


@pytest.fixture(scope="module")
def answers(start_world: Any) -> Iterator[dict[str, dict[str, Any]]]:
    """The same questions asked of a neutral and a public world (py-evm)."""
    out: dict[str, dict[str, Any]] = {}
    for brand in ("neutral", "public"):
        with (
            start_world("py-evm", brand=brand) as world,
            httpx.Client(
                base_url=world.service_url, headers={"x-api-key": world.api_key}, timeout=30
            ) as client,
        ):
            chains = {c["id"]: c for c in client.get("/chains").json()["chains"]}
            usdc = next(
                c["address"] for c in chains[8453]["erc20Currencies"] if c["symbol"] == "USDC"
            )
            venue_usdc = chains[1337]["currency"]["address"]
            user = world.wallet_address
            base = {"user": user, "recipient": user, "tradeType": "EXACT_INPUT"}
            bodies = {
                "native-bridge": {
                    **base, "originChainId": 8453, "destinationChainId": 999,
                    "originCurrency": NATIVE, "destinationCurrency": NATIVE,
                    "amount": str(10**16),
                },
                "erc20-to-venue": {
                    **base, "originChainId": 8453, "destinationChainId": 1337,
                    "originCurrency": usdc, "destinationCurrency": venue_usdc,
                    "amount": "10000000",
                },
                "deposit-address": {
                    **base, "originChainId": 8453, "destinationChainId": 999,
                    "originCurrency": NATIVE, "destinationCurrency": NATIVE,
                    "amount": str(10**16), "useDepositAddress": True,
                },
                "venue-withdrawal": {
                    **base, "originChainId": 1337, "destinationChainId": 8453,
                    "originCurrency": venue_usdc, "destinationCurrency": usdc,
                    "amount": "1000000000", "protocolVersion": "v2",
                },
            }  # fmt: skip
            got: dict[str, Any] = {"chains": client.get("/chains").json()}
            for kind, body in bodies.items():
                answer = client.post("/quote/v2", json=body)
                assert answer.status_code == 200, (brand, kind, answer.text)
                got[kind] = answer.json()
            out[brand] = got
    yield out


KINDS = ["chains", "native-bridge", "erc20-to-venue", "deposit-address", "venue-withdrawal"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_brands_answer_in_one_shape(answers: dict[str, dict[str, Any]], kind: str) -> None:
    neutral = shape(answers["neutral"][kind])
    public = shape(answers["public"][kind])
    assert neutral == public, (
        f"{kind}: only in neutral {sorted(neutral - public)}; "
        f"only in public {sorted(public - neutral)}"
    )


@pytest.mark.parametrize("kind", KINDS[1:])
def test_the_brands_word_their_steps_alike(answers: dict[str, dict[str, Any]], kind: str) -> None:
    assert step_words(answers["neutral"][kind]) == step_words(answers["public"][kind])


def test_a_shape_difference_is_seen() -> None:
    """The comparison can fail: a member only one brand has, or a number where a string was."""
    quote = {"steps": [{"id": "deposit", "items": [{"data": {"gas": "21000"}}]}]}
    assert shape(quote) != shape({"steps": [{"id": "deposit", "items": [{"data": {"gas": 1}}]}]})
    assert shape(quote) != shape(
        {"steps": [{"id": "deposit", "items": [{"data": {"gas": "21000", "x": 1}}]}]}
    )
    assert shape({"venueChain": "a"}) == shape({"hyperliquidChain": "b"})
