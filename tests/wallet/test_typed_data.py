"""crossdeck's own EIP-712 / EIP-191 digests and secp256k1 signatures against eth-account's:
the recorded public typed data, the EIP's own example, a seeded fuzz of types and values; then
what crossdeck refuses where eth-account would fill in or coerce."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data

from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.wallet.signer import Signer, recover_digest
from crossdeck.wallet.typed_data import (
    eip191_digest,
    encode_type,
    full_typed_data,
    typed_data_digest,
)
from helpers.keys import DEV_KEYS

REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata"


def _theirs(full: dict[str, Any], key: str = DEV_KEYS[0]) -> tuple[bytes, bytes]:
    """eth-account's digest and signature of complete typed data."""
    signed = Account.sign_message(encode_typed_data(full_message=full), key)
    return bytes(signed.message_hash), bytes(signed.signature)


def _assert_same(full: dict[str, Any], key: str = DEV_KEYS[0]) -> None:
    digest, signature = _theirs(full, key)
    assert typed_data_digest(full) == digest
    assert Signer(Secret(key)).sign_typed_data(full) == signature


def _recorded_sign_data() -> list[tuple[str, dict[str, Any]]]:
    """Every typed-data object (with a primaryType) in the recorded public answers."""
    found: list[tuple[str, dict[str, Any]]] = []

    def walk(node: Any, name: str) -> None:
        if isinstance(node, dict):
            if "primaryType" in node and "types" in node:
                found.append((name, node))
            for value in node.values():
                walk(value, name)
        elif isinstance(node, list):
            for value in node:
                walk(value, name)

    for path in sorted(REALDATA.rglob("*.json")):
        walk(json.loads(path.read_text()), str(path.relative_to(REALDATA)))
    return found


RECORDED = _recorded_sign_data()


def test_the_recorded_answers_hold_typed_data_to_compare() -> None:
    assert len(RECORDED) >= 5
    assert any("[]" in f["type"] for _, d in RECORDED for t in d["types"].values() for f in t)


@pytest.mark.parametrize(("source", "sign_data"), RECORDED, ids=[name for name, _ in RECORDED])
def test_recorded_public_typed_data_hashes_and_signs_as_eth_account_does(
    source: str, sign_data: dict[str, Any]
) -> None:
    full = full_typed_data(sign_data)
    if "..." not in json.dumps(full["message"]):
        _assert_same(full)
        return
    # the docs elide long calldata ("0x095ea7b3..."): eth-account would sign those characters
    # as text; crossdeck refuses to sign bytes it cannot read as bytes
    with pytest.raises(InputError, match=r"should be 0x-prefixed hex bytes"):
        typed_data_digest(full)
    elided = json.loads(json.dumps(full).replace("...", ""))
    _assert_same(elided)


MAIL = {
    "types": {
        "EIP712Domain": [
            {"name": "name", "type": "string"},
            {"name": "version", "type": "string"},
            {"name": "chainId", "type": "uint256"},
            {"name": "verifyingContract", "type": "address"},
        ],
        "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
        "Mail": [
            {"name": "from", "type": "Person"},
            {"name": "to", "type": "Person"},
            {"name": "contents", "type": "string"},
        ],
    },
    "primaryType": "Mail",
    "domain": {
        "name": "Ether Mail",
        "version": "1",
        "chainId": 1,
        "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
    },
    "message": {
        "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
        "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
        "contents": "Hello, Bob!",
    },
}


def test_the_eips_own_example() -> None:
    # the digest EIP-712's example gives for this message
    assert typed_data_digest(MAIL).hex() == (
        "be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"
    )
    assert encode_type(MAIL["types"], "Mail") == (
        "Mail(Person from,Person to,string contents)Person(string name,address wallet)"
    )
    _assert_same(MAIL)


_INTS = [f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 64, 128, 256)]
_ATOMIC = [*_INTS, "address", "bool", "string", "bytes", "bytes1", "bytes20", "bytes32"]


def _value(kind: str, rng: random.Random, structs: dict[str, list[dict[str, str]]]) -> Any:
    if kind.endswith("]"):
        inner, _, size = kind[:-1].rpartition("[")
        count = int(size) if size else rng.randint(0, 3)
        return [_value(inner, rng, structs) for _ in range(count)]
    if kind in structs:
        return {f["name"]: _value(f["type"], rng, structs) for f in structs[kind]}
    if kind == "address":
        raw = "0x" + rng.randbytes(20).hex()
        return Account.from_key(rng.randbytes(32)).address if rng.random() < 0.3 else raw
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "string":
        return "".join(rng.choice("aZ0 é€✓\n") for _ in range(rng.randint(0, 12)))
    if kind == "bytes":
        return "0x" + rng.randbytes(rng.randint(0, 40)).hex()
    if kind.startswith("bytes"):
        return "0x" + rng.randbytes(int(kind[5:])).hex()
    bits = int(kind.lstrip("uint"))
    signed = not kind.startswith("u")
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    number = rng.choice([low, high, 0, rng.randint(low, high)])
    form = rng.random()
    if form < 0.3:
        return str(number)
    if form < 0.5 and number >= 0:
        return hex(number)
    return number


def _random_typed_data(rng: random.Random) -> dict[str, Any]:
    """Up to three struct types in a chain (each refers to the next, so the first is the only
    root, as eth-account requires), fields of random atomic, struct and array types."""
    names = [f"S{i}" for i in range(rng.randint(1, 3))]
    structs: dict[str, list[dict[str, str]]] = {}
    for index in reversed(range(len(names))):
        fields = []
        for n in range(rng.randint(1, 4)):
            kind = rng.choice(_ATOMIC)
            if index + 1 < len(names) and (n == 0 or rng.random() < 0.2):
                kind = names[index + 1]
            if rng.random() < 0.25:
                kind += rng.choice(["[]", "[2]", "[][1]"])
            fields.append({"name": f"f{n}", "type": kind})
        structs[names[index]] = fields
    return {
        "types": {"EIP712Domain": MAIL["types"]["EIP712Domain"], **structs},
        "primaryType": names[0],
        "domain": {**MAIL["domain"], "chainId": rng.randint(1, 2**40)},
        "message": _value(names[0], rng, structs),
    }


def test_a_seeded_fuzz_of_types_and_values_hashes_as_eth_account_does() -> None:
    rng = random.Random(1559)
    for case in range(300):
        full = _random_typed_data(rng)
        digest, _ = _theirs(full)
        assert typed_data_digest(full) == digest, (case, full)


def test_signatures_and_personal_messages_match_eth_account_for_several_keys() -> None:
    for key in DEV_KEYS[:4]:
        _assert_same(MAIL, key)
        signer = Signer(Secret(key))
        for text in ("hello venue", "", "0x" + "ab" * 32, "émoji ✓"):
            raw = text.startswith("0x") and len(text) == 66
            message = encode_defunct(hexstr=text) if raw else encode_defunct(text=text)
            assert signer.sign_eip191(text) == bytes(Account.sign_message(message, key).signature)
        assert signer.address == Account.from_key(key).address


def test_recovery_accepts_v_as_recovery_id_or_27_28_and_refuses_garbage() -> None:
    signer = Signer(Secret(DEV_KEYS[1]))
    digest = eip191_digest(b"x")
    signature = signer.sign_eip191("x")
    assert recover_digest(digest, signature) == signer.address
    assert recover_digest(digest, signature[:64] + bytes([signature[64] - 27])) == signer.address
    assert recover_digest(digest, "0x" + signature.hex()) == signer.address
    for bad in (signature[:64], signature[:64] + b"\x05", b"\0" * 65, "0xzz"):
        with pytest.raises(InputError):
            recover_digest(digest, bad)


def _with(path: list[str], value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    data = json.loads(json.dumps(base or MAIL))
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda: _with(["message", "to"], None), "message.to (Person) is missing"),
        (lambda: _with(["message", "contents"], 7), "message.contents should be text"),
        (lambda: _with(["domain", "chainId"], "1.5"), "domain.chainId should be a whole number"),
        (lambda: _with(["domain", "chainId"], 1.0), "domain.chainId should be a whole number"),
        (lambda: _with(["domain", "chainId"], -1), "outside the range of uint256"),
        (lambda: _with(["domain", "chainId"], 2**256), "outside the range of uint256"),
        (lambda: _with(["domain", "salt"], "0x" + "00" * 32), "domain has fields its"),
        (lambda: _with(["message", "from", "wallet"], "0x" + "aB" * 20), "wrong EIP-55 checksum"),
        (lambda: _with(["message", "from", "wallet"], "0x1234"), "should be an address"),
        (lambda: _with(["types", "Mail", 2, "type"], "Letter"), "does not define it"),
        (lambda: _with(["types", "Mail", 2, "type"], "uint7"), "does not define it"),
        (lambda: _with(["types", "Mail"], "text"), "is not a list of {name, type}"),
        (lambda: _with(["primaryType"], "EIP712Domain"), "signs no message"),
    ],
)
def test_what_eth_account_would_coerce_or_fill_in_is_refused_with_its_path(
    change: Any, says: str
) -> None:
    with pytest.raises(InputError) as caught:
        typed_data_digest(change())
    assert says in str(caught.value)


def test_values_of_fixed_types_must_have_their_exact_size_and_form() -> None:
    types = {
        "EIP712Domain": [{"name": "chainId", "type": "uint256"}],
        "T": [
            {"name": "flag", "type": "bool"},
            {"name": "id", "type": "bytes32"},
            {"name": "pair", "type": "uint8[2]"},
            {"name": "blob", "type": "bytes"},
        ],
    }
    good = {"flag": True, "id": "0x" + "11" * 32, "pair": [1, 2], "blob": "0x"}
    full = {"types": types, "primaryType": "T", "domain": {"chainId": 1}, "message": good}
    _assert_same(full)
    for field, value, says in [
        ("flag", "true", "should be true or false"),
        ("id", "0x" + "11" * 31, "should be 32 bytes"),
        ("pair", [1, 2, 3], "should hold 2 items"),
        ("pair", [1, 256], "outside the range of uint8"),
        ("blob", "hello", "should be 0x-prefixed hex bytes"),
    ]:
        with pytest.raises(InputError) as caught:
            typed_data_digest({**full, "message": {**good, field: value}})
        assert says in str(caught.value) and f"message.{field}" in str(caught.value)
