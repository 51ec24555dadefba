"""crossdeck's own EIP-55 checksum (models.addresses) against eth-utils', and what it refuses."""

from __future__ import annotations

import random

import pytest
from eth_utils import to_checksum_address as theirs

from crossdeck.base.keccak import keccak256
from crossdeck.models.addresses import checked_checksum, checksum_problem, to_checksum_address


def test_keccak256_is_the_evms_not_sha3() -> None:
    assert keccak256(b"").hex() == (
        "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    )


def test_a_seeded_sample_checksums_as_eth_utils_does() -> None:
    rng = random.Random(55)
    for _ in range(2000):
        raw = rng.randbytes(20)
        lower = "0x" + raw.hex()
        expected = theirs(lower)
        assert to_checksum_address(lower) == expected
        assert to_checksum_address(lower.upper().replace("0X", "0x")) == expected
        assert to_checksum_address(raw) == expected
        assert checksum_problem(expected) is None


def test_the_eips_own_examples() -> None:
    for address in (
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
        "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ):
        assert to_checksum_address(address.lower()) == address
        assert checked_checksum(address) == address


@pytest.mark.parametrize(
    "bad", ["0x1234", "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", b"\0" * 19, 7]
)
def test_what_is_not_an_address_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        to_checksum_address(bad)  # type: ignore[arg-type]


def test_a_wrong_checksum_is_named_and_never_corrected() -> None:
    mistyped = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"
    problem = checksum_problem(mistyped)
    assert problem is not None and "wrong EIP-55 checksum" in problem
    assert "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" not in problem
    with pytest.raises(ValueError, match="wrong EIP-55 checksum"):
        checked_checksum(mistyped)


def test_keccak256_without_safe_pysha3_falls_back_to_pycryptodome(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    import crossdeck.base.keccak as module

    monkeypatch.setitem(sys.modules, "sha3", None)  # importing it now raises ImportError
    monkeypatch.setattr(module, "_keccak", None)
    assert module.keccak256(b"abc").hex() == (
        "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
    )
    assert module._keccak is not None and module._keccak.__name__ == "digest"
