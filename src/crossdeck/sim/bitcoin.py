"""Bitcoin in the demo world: address checks and the ledger of the solver's fills.

No Bitcoin node can run here, so the world keeps what a fill would put on chain in SQLite: one
payment (txid, recipient, satoshis) per filled request. The txid is the double SHA-256 of a
canonical description of the payment, so it looks and compares as a Bitcoin txid does (64 hex
digits, no 0x) and is stable for a request. Addresses are checked as Bitcoin does: bech32 (v0
segwit) and bech32m (v1+, taproot) with their checksums, base58check P2PKH and P2SH.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

BITCOIN_CHAIN_ID = 8253038
_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BECH32_CONST = 1
_BECH32M_CONST = 0x2BC830A3
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _polymod(values: list[int]) -> int:
    generator = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    checksum = 1
    for value in values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            checksum ^= generator[i] if (top >> i) & 1 else 0
    return checksum


def _expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _convert(data: list[int], from_bits: int, to_bits: int, pad: bool) -> list[int] | None:
    acc = bits = 0
    out = []
    maxv = (1 << to_bits) - 1
    for value in data:
        acc = (acc << from_bits) | value
        bits += from_bits
        while bits >= to_bits:
            bits -= to_bits
            out.append((acc >> bits) & maxv)
    if pad and bits:
        out.append((acc << (to_bits - bits)) & maxv)
    elif not pad and (bits >= from_bits or (acc << (to_bits - bits)) & maxv):
        return None
    return out


def segwit_address(program: bytes, version: int = 0, hrp: str = "bc") -> str:
    data = [version, *(_convert(list(program), 8, 5, True) or [])]
    const = _BECH32_CONST if version == 0 else _BECH32M_CONST
    polymod = _polymod([*_expand(hrp), *data, 0, 0, 0, 0, 0, 0]) ^ const
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(_CHARSET[d] for d in data + checksum)


def _segwit_valid(address: str) -> bool:
    if address.lower() != address and address.upper() != address:
        return False  # mixed case is never valid bech32
    text = address.lower()
    hrp, sep, rest = text.rpartition("1")
    if hrp != "bc" or not sep or len(rest) < 7 or len(text) > 90:
        return False
    if any(c not in _CHARSET for c in rest):
        return False
    data = [_CHARSET.index(c) for c in rest]
    version = data[0]
    const = _polymod([*_expand(hrp), *data])
    if const != (_BECH32_CONST if version == 0 else _BECH32M_CONST) or version > 16:
        return False
    program = _convert(data[1:-6], 5, 8, False)
    if program is None or not 2 <= len(program) <= 40:
        return False
    return version != 0 or len(program) in (20, 32)


def _base58check_valid(address: str) -> bool:
    number = 0
    for char in address:
        index = _B58.find(char)
        if index < 0:
            return False
        number = number * 58 + index
    raw = number.to_bytes(25, "big") if number < 1 << 200 else b""
    if len(raw) != 25 or raw[0] not in (0x00, 0x05):  # P2PKH, P2SH on mainnet
        return False
    return hashlib.sha256(hashlib.sha256(raw[:21]).digest()).digest()[:4] == raw[21:]


def is_bitcoin_address(address: str) -> bool:
    """A mainnet address: bech32/bech32m `bc1...` or base58check `1...` / `3...`."""
    if not isinstance(address, str) or not 14 <= len(address) <= 90:
        return False
    if address[:3].lower() == "bc1":
        return _segwit_valid(address)
    return address[0] in "13" and _base58check_valid(address)


SOLVER_ADDRESS = segwit_address(
    hashlib.new(
        "ripemd160", hashlib.sha256(b"crossdeck demo world: bitcoin solver").digest()
    ).digest()
)


@dataclass(frozen=True)
class BitcoinPayment:
    txid: str
    request_id: str
    recipient: str
    satoshis: int
    timestamp: int


class BitcoinLedger:
    """The solver's Bitcoin payments, kept in SQLite (thread-safe)."""

    def __init__(self, path: Path | str) -> None:
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock, self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS payments (txid TEXT PRIMARY KEY, request_id TEXT "
                "UNIQUE, recipient TEXT, satoshis INTEGER, timestamp INTEGER)"
            )

    def pay(self, request_id: str, recipient: str, satoshis: int) -> BitcoinPayment:
        """Record the payment of a request (once: paying it again returns the first)."""
        if not is_bitcoin_address(recipient):
            raise ValueError(f"{recipient!r} is not a Bitcoin address")
        with self._lock, self._db:
            row = self._db.execute(
                "SELECT txid, request_id, recipient, satoshis, timestamp FROM payments "
                "WHERE request_id = ?",
                (request_id,),
            ).fetchone()
            if row is not None:
                return BitcoinPayment(*row)
            body = f"{SOLVER_ADDRESS}>{recipient}:{satoshis}:{request_id}".encode()
            txid = hashlib.sha256(hashlib.sha256(body).digest()).digest()[::-1].hex()
            payment = BitcoinPayment(txid, request_id, recipient, satoshis, int(time.time()))
            self._db.execute(
                "INSERT INTO payments VALUES (?, ?, ?, ?, ?)",
                (txid, request_id, recipient, satoshis, payment.timestamp),
            )
            return payment

    def received(self, address: str) -> int:
        with self._lock:
            row = self._db.execute(
                "SELECT COALESCE(SUM(satoshis), 0) FROM payments WHERE recipient = ?", (address,)
            ).fetchone()
        return int(row[0])

    def payment(self, txid: str) -> BitcoinPayment | None:
        with self._lock:
            row = self._db.execute(
                "SELECT txid, request_id, recipient, satoshis, timestamp FROM payments "
                "WHERE txid = ?",
                (txid,),
            ).fetchone()
        return None if row is None else BitcoinPayment(*row)

    def close(self) -> None:
        with self._lock:
            self._db.close()
