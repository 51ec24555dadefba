"""Keccak-256, the hash of EVM addresses, EIP-55 checksums and EIP-712 / EIP-191 signatures.

Taken straight from a C extension instead of through eth-hash: eth-hash reads its own package
metadata at import (importlib.metadata, ~50 ms alone), and with pycryptodome's keccak it loads
cffi and parses C declarations. safe-pysha3 (installed with eth-tester's py-evm extra on
CPython) is one C extension; pycryptodome's keccak is the fallback where it is missing.
"""

from __future__ import annotations

from collections.abc import Callable

_keccak: Callable[[bytes], bytes] | None = None


def _pick() -> Callable[[bytes], bytes]:
    try:
        from sha3 import keccak_256  # type: ignore[import-untyped]  # safe-pysha3 ships no hints
    except ImportError:  # no safe-pysha3 wheel for this interpreter
        from Crypto.Hash import keccak

        def digest(data: bytes) -> bytes:
            return keccak.new(digest_bits=256, data=data).digest()

        return digest

    def digest_c(data: bytes) -> bytes:
        digest: bytes = keccak_256(data).digest()
        return digest

    return digest_c


def keccak256(data: bytes) -> bytes:
    """The 32-byte Keccak-256 digest of `data` (the pre-standard SHA-3 the EVM uses)."""
    global _keccak
    if _keccak is None:
        _keccak = _pick()
    return _keccak(data)
