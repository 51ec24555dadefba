"""Transactions signed without eth-account (wallet/tx_encoding.py): byte for byte what
eth-account signs for the same dict, refused where eth-account refuses, and no eth-account
loaded in the process that signs."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from eth_account import Account
from hypothesis import given, settings
from hypothesis import strategies as st

from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.models.addresses import to_checksum_address
from crossdeck.models.units import tx_int
from crossdeck.wallet.signer import Signer
from crossdeck.wallet.tx_encoding import rlp_encode
from helpers.keys import DEV_KEYS

_SIGNERS = [Signer(Secret(key)) for key in DEV_KEYS]
_INTS = ("value", "gas", "nonce", "chainId", "maxFeePerGas", "maxPriorityFeePerGas", "gasPrice")


def eth_account_signs(key: str, tx: dict[str, Any]) -> tuple[bytes, str]:
    """What eth-account gives for `tx`, prepared as crossdeck's signer prepared it when it
    handed transactions to eth-account (ints parsed, `to` checksummed, data defaulted)."""
    fields = dict(tx)
    fields.pop("from", None)
    for name in (*_INTS, "type"):
        if name in fields:
            fields[name] = tx_int(name, fields[name])
    if fields.get("to"):
        fields["to"] = to_checksum_address(fields["to"])
    fields.setdefault("data", "0x")
    signed = Account.sign_transaction(fields, key)
    return bytes(signed.raw_transaction), "0x" + signed.hash.hex()


# edge values: zero, one byte's limits, RLP's 55-byte boundary, 2**64 and 2**256 - 1
_EDGE_INTS = [0, 1, 0x7F, 0x80, 0xFF, 0x100, 2**64 - 1, 2**64, 2**255, 2**256 - 1]
ints = st.one_of(st.sampled_from(_EDGE_INTS), st.integers(0, 2**256 - 1))
addresses = st.binary(min_size=20, max_size=20).map(lambda b: "0x" + b.hex())


def as_quote_writes(number: int) -> st.SearchStrategy[Any]:
    """An int as a quote may carry it: int, decimal text or 0x hex text."""
    return st.sampled_from([number, str(number), hex(number)])


def quote_int(strategy: st.SearchStrategy[int] = ints) -> st.SearchStrategy[Any]:
    return strategy.flatmap(as_quote_writes)


access_lists = st.lists(
    st.fixed_dictionaries(
        {
            "address": addresses.map(to_checksum_address),
            "storageKeys": st.lists(
                st.one_of(ints, ints.map(lambda n: "0x" + n.to_bytes(32, "big").hex())),
                max_size=3,
            ),
        }
    ),
    max_size=3,
)
data = st.one_of(
    st.sampled_from(["0x", "", b""]),
    st.binary(max_size=200).map(lambda b: "0x" + b.hex()),  # over 55 bytes: long RLP strings
    st.binary(max_size=80),
)
chain_ids = st.sampled_from([1, 10, 137, 8453, 42161, 999, 1337, 0x66EEE, 2**32 + 7])


@st.composite
def transactions(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["dynamic", "access-list", "legacy"]))
    tx: dict[str, Any] = {
        "chainId": draw(quote_int(chain_ids)),
        "nonce": draw(quote_int()),
        "gas": draw(quote_int()),
    }
    if kind == "dynamic":
        tx["maxFeePerGas"] = draw(quote_int())
        tx["maxPriorityFeePerGas"] = draw(quote_int())
    else:
        tx["gasPrice"] = draw(quote_int())
    if kind != "legacy":
        if kind == "access-list" or draw(st.booleans()):
            tx["accessList"] = draw(access_lists)
        if draw(st.booleans()):
            tx["type"] = draw(
                st.sampled_from([1 if kind == "access-list" else 2]).flatmap(as_quote_writes)
            )
    to = draw(st.one_of(st.none(), st.just(""), addresses, addresses.map(str.upper)))
    if to is not None or draw(st.booleans()):
        tx["to"] = to.replace("0X", "0x") if to else to  # no to, empty or None: a creation
    if draw(st.booleans()):
        tx["value"] = draw(quote_int())
    if draw(st.booleans()):
        tx["data"] = draw(data)
    return tx


@settings(max_examples=400, deadline=None)
@given(transactions(), st.sampled_from(range(len(DEV_KEYS))))
def test_signatures_are_eth_accounts_byte_for_byte(tx: dict[str, Any], which: int) -> None:
    signer = _SIGNERS[which]
    signed = signer.sign_transaction(tx)
    assert (signed.raw, signed.hash) == eth_account_signs(DEV_KEYS[which], tx)
    assert Account.recover_transaction(signed.raw) == signer.address


@pytest.mark.parametrize(
    "extra",
    [
        {"data": "0x123"},  # odd hex: eth-account pads it
        {"data": "abcd"},  # hex without 0x
        {"data": "0XAB"},
        {"data": 5},  # an int: eth-account reads it as its hex
        {"to": bytes(range(20))},
        {"accessList": ()},
        {"accessList": [{"address": "0x" + "ab" * 20, "storageKeys": ("0x01", 2)}]},
        {"accessList": [{"address": "0x" + "aB" * 20, "storageKeys": []}]},  # no checksum there
        {"accessList": [{"address": bytes(20), "storageKeys": [0]}]},
        {"value": "1_000"},  # Python's int() reads it, and so did crossdeck before
        {"chainId": 0},
    ],
)
def test_odd_but_accepted_fields_sign_as_eth_account_does(extra: dict[str, Any]) -> None:
    tx = {"gas": 21_000, "nonce": 3, "chainId": 1, "maxFeePerGas": 9, "maxPriorityFeePerGas": 1}
    tx |= extra
    signed = _SIGNERS[0].sign_transaction(tx)
    assert (signed.raw, signed.hash) == eth_account_signs(DEV_KEYS[0], tx)


_DYNAMIC = {"gas": 21_000, "nonce": 0, "chainId": 1, "maxFeePerGas": 2, "maxPriorityFeePerGas": 1}
_LEGACY = {"gas": 21_000, "nonce": 0, "chainId": 1, "gasPrice": 2}
_A = "0x" + "11" * 20


@pytest.mark.parametrize(
    ("tx", "says"),
    [
        (_DYNAMIC | {"foo": 1}, r"no field \['foo'\]"),
        (_DYNAMIC | {"gasPrice": 1}, r"no field \['gasPrice'\]"),
        (_LEGACY | {"maxFeePerGas": 1}, r"no field \[.gasPrice.\]"),
        (_LEGACY | {"v": 27}, r"no field \['v'\]"),
        ({k: v for k, v in _DYNAMIC.items() if k != "gas"}, r"lacks \['gas'\]"),
        ({k: v for k, v in _DYNAMIC.items() if k != "maxFeePerGas"}, "lacks"),
        ({"chainId": 1}, r"lacks \['nonce', 'gasPrice', 'gas'\]"),
        (_DYNAMIC | {"type": 1}, "no field"),
        (_LEGACY | {"type": 0}, "unknown type 0"),
        (_DYNAMIC | {"type": 7}, "unknown type 7"),
        (_DYNAMIC | {"maxFeePerBlobGas": 1, "blobVersionedHashes": ["0x01" + "00" * 31]}, "blob"),
        (_DYNAMIC | {"authorizationList": [{"chainId": 1, "address": _A, "nonce": 0,
                                            "yParity": 0, "r": 1, "s": 1}]}, "set-code"),
        (_DYNAMIC | {"value": -1}, "negative"),
        (_DYNAMIC | {"value": "ten"}, "must be an integer"),
        (_DYNAMIC | {"to": "0x1234"}, "not an address"),
        (_DYNAMIC | {"data": "0xzz"}, "not hex"),
        (_DYNAMIC | {"accessList": [{"address": _A, "storageKeys": ["12"]}]}, "storage key"),
        (_DYNAMIC | {"accessList": [{"address": _A, "storageKeys": [2**256]}]}, "storage key"),
        (_DYNAMIC | {"accessList": [{"address": _A, "storageKeys": [], "x": 1}]}, "nothing else"),
        (_DYNAMIC | {"accessList": [{"address": "0x12", "storageKeys": []}]}, "not an address"),
        (_DYNAMIC | {"accessList": {"address": _A}}, "not a list"),
        (_DYNAMIC | {"from": "not an address"}, "but the wallet is"),
    ],
)  # fmt: skip
def test_what_eth_account_refuses_is_refused(tx: dict[str, Any], says: str) -> None:
    with pytest.raises(InputError, match=says):
        _SIGNERS[0].sign_transaction(tx)
    if says not in ("blob", "set-code", "but the wallet is"):
        # eth-account refuses them too (blob and set-code ones it would sign; crossdeck does not)
        with pytest.raises(Exception):  # noqa: B017  # its errors are of several kinds
            eth_account_signs(DEV_KEYS[0], tx)


def test_rlp_encodes_the_yellow_papers_examples() -> None:
    assert rlp_encode(b"dog") == b"\x83dog"
    assert rlp_encode([b"cat", b"dog"]) == b"\xc8\x83cat\x83dog"
    assert rlp_encode(b"") == b"\x80"
    assert rlp_encode([]) == b"\xc0"
    assert rlp_encode(0) == b"\x80"
    assert rlp_encode(b"\x0f") == b"\x0f"
    assert rlp_encode(1024) == b"\x82\x04\x00"
    assert rlp_encode([[], [[]], [[], [[]]]]) == bytes.fromhex("c7c0c1c0c3c0c1c0")
    lorem = b"Lorem ipsum dolor sit amet, consectetur adipisicing elit"
    assert rlp_encode(lorem) == b"\xb8\x38" + lorem


_SIGN_IN_FRESH_PROCESS = """
import json, sys
from crossdeck.base.secret import Secret
from crossdeck.wallet.signer import Signer
signer = Signer(Secret(sys.argv[1]))
signed = signer.sign_transaction({"to": "0x" + "22" * 20, "value": "1000", "gas": 21000,
    "nonce": 5, "chainId": 8453, "maxFeePerGas": "0x3b9aca00", "maxPriorityFeePerGas": 1,
    "accessList": [{"address": "0x" + "33" * 20, "storageKeys": ["0x01"]}]})
legacy = signer.sign_transaction({"to": "0x" + "22" * 20, "gas": 21000, "nonce": 5,
    "chainId": 1, "gasPrice": 7})
loaded = sorted({m.split(".")[0] for m in sys.modules} & {
    "eth_account", "eth_keys", "eth_utils", "eth_rlp", "rlp", "eth_hash", "eth_abi"})
print(json.dumps({"raw": signed.raw.hex(), "legacy": legacy.raw.hex(), "loaded": loaded}))
"""


def test_signing_a_transaction_loads_no_eth_account() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SIGN_IN_FRESH_PROCESS, DEV_KEYS[1]],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result = json.loads(done.stdout)
    assert result["loaded"] == []
    recovered = {Account.recover_transaction(bytes.fromhex(result[k])) for k in ("raw", "legacy")}
    assert recovered == {_SIGNERS[1].address}
