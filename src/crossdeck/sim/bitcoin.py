"""Bitcoin in the demo world: address checks, and a UTXO chain with a mempool and blocks.

Addresses are checked as Bitcoin does: bech32 (v0 segwit) and bech32m (v1+, taproot) with their
checksums, base58check P2PKH and P2SH.

`BitcoinChain` keeps unspent outputs, a mempool and blocks (mined at the world's pace by
`sim.bitcoin_esplora`, which serves it behind an Esplora-style HTTP API). A transaction is
accepted only as a node would: every input an unspent output, every P2WPKH spend's witness a
signature of its BIP-143 digest by the key the output commits to (verified, not trusted), no
more paid out than comes in. A conflicting spend replaces a mempool transaction only with a
higher fee (BIP-125 in short); the one replaced is gone from the chain's view, as a node forgets
it. The solver's fills are real transactions signed with its own key, from its own outputs.
Transactions, blocks and the solver's payments are kept in a JSON state file when one is given.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from embit import ec
from embit.script import Script, Witness, address_to_scriptpubkey, p2pkh, p2wpkh
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput

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


SATS_PER_BTC = 100_000_000
DUST_SATS = 294  # the smallest P2WPKH output a node relays
MIN_RELAY_SAT_PER_VB = 1
# what /fee-estimates answers (sat/vB by confirmation target), as Esplora does
FEE_ESTIMATES = {"1": 5.0, "2": 4.0, "3": 3.0, "6": 2.0, "144": 1.0}
DEPOSIT_TARGET = "2"  # the target the service prices a deposit at
COINBASE_TXID = "00" * 32
OP_RETURN = 0x6A


def _demo_key(name: str) -> ec.PrivateKey:
    # Derived from a public phrase: as publicly known as the EVM demo keys. Demo funds only.
    return ec.PrivateKey(hashlib.sha256(f"crossdeck demo world: bitcoin {name}".encode()).digest())


def p2wpkh_address(key: ec.PrivateKey) -> str:
    return str(p2wpkh(key.get_public_key()).address())


DEMO_KEY = _demo_key("wallet")
DEMO_ADDRESS = p2wpkh_address(DEMO_KEY)
SOLVER_KEY = _demo_key("solver")
SOLVER_ADDRESS = p2wpkh_address(SOLVER_KEY)
WALLET_COINS = (50_000_000, 30_000_000, 20_000_000)  # 1 BTC in three outputs
SOLVER_COINS = (10 * SATS_PER_BTC,) * 5


class ChainRefused(ValueError):
    """A transaction the node will not take; the text is the reason a node gives."""


@dataclass(frozen=True)
class Output:
    txid: str
    vout: int
    value: int
    script: bytes
    confirmed: bool = False


@dataclass(frozen=True)
class DepositSeen:
    """A transaction paying the solver, seen in the mempool: what the service matches."""

    txid: str
    amount: int
    order_id: str | None  # 0x + hex of the OP_RETURN's 32 bytes, when there is one
    sender: str | None  # the address of its first input
    timestamp: int


@dataclass(frozen=True)
class BitcoinPayment:
    txid: str
    request_id: str
    recipient: str
    satoshis: int
    timestamp: int


@dataclass
class _Tx:
    txid: str
    raw: str
    fee: int
    vsize: int
    weight: int
    time: int
    height: int | None = None  # None while in the mempool


def script_of(address: str) -> bytes:
    return bytes(address_to_scriptpubkey(address).data)


def address_of(script: bytes) -> str | None:
    if not script or script[0] == OP_RETURN:
        return None
    try:
        return str(Script(script).address())
    except Exception:  # a script with no address form
        return None


def op_return_data(script: bytes) -> bytes | None:
    """The pushed bytes of an `OP_RETURN <push>` output (one direct push of up to 75 bytes)."""
    if len(script) >= 2 and script[0] == OP_RETURN and script[1] == len(script) - 2 <= 75:
        return script[2:]
    return None


def op_return_script(data: bytes) -> bytes:
    return bytes([OP_RETURN, len(data)]) + data


def _stripped(tx: Transaction) -> bytes:
    bare = Transaction(
        version=tx.version,
        vin=[TransactionInput(i.txid, i.vout, i.script_sig, i.sequence) for i in tx.vin],
        vout=tx.vout,
        locktime=tx.locktime,
    )
    return bytes(bare.serialize())


def weight_of(tx: Transaction) -> int:
    return len(_stripped(tx)) * 3 + len(tx.serialize())


def estimate_vsize(inputs: int, output_scripts: list[bytes]) -> int:
    """The vsize of a transaction spending `inputs` P2WPKH outputs into these scripts: 10.5
    vbytes of frame, 68 per input (41 + a 27-vbyte witness), 9 + script per output."""
    return (21 + 136 * inputs + 1) // 2 + sum(9 + len(s) for s in output_scripts)


def sign_p2wpkh(tx: Transaction, values: list[int], key: ec.PrivateKey) -> Transaction:
    """Every input signed (SIGHASH_ALL, BIP-143) by `key`, whose P2WPKH outputs they spend."""
    pub = key.get_public_key()
    for index, value in enumerate(values):
        digest = tx.sighash_segwit(index, p2pkh(pub), value, sighash=SIGHASH.ALL)
        signature = key.sign(digest).serialize() + bytes([SIGHASH.ALL])
        tx.vin[index].witness = Witness([signature, pub.sec()])
    return tx


@dataclass
class BitcoinChain:
    """The UTXO chain (thread-safe: the API, the solver and the quotes share it)."""

    state_file: Path | None = None
    txs: dict[str, _Tx] = field(default_factory=dict)
    blocks: list[dict[str, Any]] = field(default_factory=list)
    mempool: list[str] = field(default_factory=list)
    payments: dict[str, BitcoinPayment] = field(default_factory=dict)  # by leg
    deposits: list[DepositSeen] = field(default_factory=list)
    gone: dict[str, str] = field(default_factory=dict)  # txid -> why (replaced by ...)

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self._drops_armed = 0  # deposits still to drop (`drop_next`)
        self._to_drop: set[str] = set()  # in the mempool now, dropped at the next block
        self._outputs: dict[tuple[str, int], Output] = {}
        self._spent_by: dict[tuple[str, int], str] = {}
        if self.state_file is not None and self.state_file.exists():
            self._load()
        else:
            self._genesis()

    # ---- the chain's view -------------------------------------------------------------------

    @property
    def height(self) -> int:
        return len(self.blocks) - 1

    def tx(self, txid: str) -> _Tx | None:
        return self.txs.get(txid)

    def parsed(self, txid: str) -> Transaction:
        return Transaction.parse(bytes.fromhex(self.txs[txid].raw))

    def block(self, height: int) -> dict[str, Any]:
        return self.blocks[height]

    def prevout(self, txid: str, vout: int) -> Output | None:
        """An output of a known transaction (spent or not)."""
        record = self.txs.get(txid)
        if record is None:
            return None
        tx = self.parsed(txid)
        if vout >= len(tx.vout):
            return None
        out = tx.vout[vout]
        return Output(
            txid, vout, out.value, bytes(out.script_pubkey.data), record.height is not None
        )

    def spender(self, txid: str, vout: int) -> str | None:
        return self._spent_by.get((txid, vout))

    def utxos(self, address: str) -> list[Output]:
        """The unspent outputs paying `address` (mempool ones too, as Esplora lists them)."""
        script = script_of(address)
        with self._lock:
            return [
                Output(o.txid, o.vout, o.value, o.script, self.txs[o.txid].height is not None)
                for key, o in self._outputs.items()
                if o.script == script and key not in self._spent_by
            ]

    def history(self, address: str) -> list[str]:
        script = script_of(address)
        with self._lock:
            found = []
            for txid in [t for b in self.blocks for t in b["txids"]] + self.mempool:
                tx = self.parsed(txid)
                paid = any(bytes(o.script_pubkey.data) == script for o in tx.vout)
                spent = any(
                    (p := self.prevout(i.txid.hex(), i.vout)) is not None and p.script == script
                    for i in tx.vin
                )
                if paid or spent:
                    found.append(txid)
            return found[::-1]

    def received(self, address: str) -> int:
        script = script_of(address)
        with self._lock:
            return sum(o.value for o in self._outputs.values() if o.script == script)

    def payment(self, txid: str) -> BitcoinPayment | None:
        return next((p for p in self.payments.values() if p.txid == txid), None)

    # ---- accepting a transaction ------------------------------------------------------------

    def submit(self, raw_hex: str) -> str:
        """Take a signed transaction into the mempool, checked as a node would; its txid."""
        try:
            tx = Transaction.parse(bytes.fromhex(raw_hex))
        except Exception as exc:
            raise ChainRefused(f"TX decode failed: {exc}") from None
        with self._lock:
            txid = self._accept(tx)
            self._save()
            return txid

    def _accept(self, tx: Transaction) -> str:
        txid: str = tx.txid().hex()
        if txid in self.txs:
            where = "mempool" if self.txs[txid].height is None else "block chain"
            raise ChainRefused(f"Transaction already in {where}")
        if not tx.vin or not tx.vout:
            raise ChainRefused("bad-txns-vin-empty" if not tx.vin else "bad-txns-vout-empty")
        values, conflicts = [], set()
        for index, vin in enumerate(tx.vin):
            key = (vin.txid.hex(), vin.vout)
            spent = self._outputs.get(key)
            if spent is None:
                raise ChainRefused(f"bad-txns-inputs-missingorspent (input {index})")
            spender = self._spent_by.get(key)
            if spender is not None:
                if self.txs[spender].height is not None:
                    raise ChainRefused(f"bad-txns-inputs-missingorspent (input {index})")
                conflicts.add(spender)
            self._verify_input(tx, index, spent)
            values.append(spent.value)
        for out in tx.vout:
            script = bytes(out.script_pubkey.data)
            if script[:1] != bytes([OP_RETURN]) and out.value < DUST_SATS:
                raise ChainRefused("dust")
        fee = sum(values) - sum(o.value for o in tx.vout)
        if fee < 0:
            raise ChainRefused("bad-txns-in-belowout")
        weight = weight_of(tx)
        vsize = (weight + 3) // 4
        if fee < MIN_RELAY_SAT_PER_VB * vsize:
            raise ChainRefused(f"min relay fee not met, {fee} < {vsize}")
        if conflicts:
            evicted = self._descendants(conflicts)
            old_fee = sum(self.txs[t].fee for t in evicted)
            old_rate = max(self.txs[t].fee / self.txs[t].vsize for t in conflicts)
            if fee <= old_fee or fee / vsize <= old_rate:
                raise ChainRefused(f"insufficient fee, rejecting replacement {txid}")
            for gone in evicted:
                self._forget(gone, f"replaced by {txid}")
        record = _Tx(txid, tx.serialize().hex(), fee, vsize, weight, int(time.time()))
        self._index(record, tx)
        self.mempool.append(txid)
        self._sighted(record, tx)
        if self._drops_armed and not self._is_solvers(tx):
            self._drops_armed -= 1
            self._to_drop.add(txid)
        return txid

    def _verify_input(self, tx: Transaction, index: int, spent: Output) -> None:
        """A P2WPKH spend: [signature, key] whose key hashes to the output's program and whose
        signature verifies over the BIP-143 digest under the sighash flag it carries."""
        script = spent.script
        if len(script) != 22 or script[:2] != b"\x00\x14":
            raise ChainRefused(f"non-standard input {index}: only P2WPKH outputs are spent here")
        witness = tx.vin[index].witness.items if tx.vin[index].witness else []
        if len(witness) != 2 or not witness[0]:
            raise ChainRefused(f"non-mandatory-script-verify-flag (Witness program hash mismatch) "
                               f"on input {index}")  # fmt: skip
        signature, key = bytes(witness[0]), bytes(witness[1])
        if hashlib.new("ripemd160", hashlib.sha256(key).digest()).digest() != script[2:]:
            raise ChainRefused(f"mandatory-script-verify-flag-failed (Witness program hash "
                               f"mismatch) on input {index}")  # fmt: skip
        try:
            pub = ec.PublicKey.parse(key)
            sig = ec.Signature.parse(signature[:-1])
            digest = tx.sighash_segwit(index, p2pkh(pub), spent.value, sighash=signature[-1])
            valid = pub.verify(sig, digest)
        except Exception:
            valid = False
        if not valid:
            raise ChainRefused(f"mandatory-script-verify-flag-failed (Signature must be zero for "
                               f"failed CHECK(MULTI)SIG operation) on input {index}")  # fmt: skip

    def _index(self, record: _Tx, tx: Transaction) -> None:
        self.txs[record.txid] = record
        for vin in tx.vin:
            if vin.txid.hex() != COINBASE_TXID:
                self._spent_by[(vin.txid.hex(), vin.vout)] = record.txid
        for vout, out in enumerate(tx.vout):
            script = bytes(out.script_pubkey.data)
            if script[:1] != bytes([OP_RETURN]):
                self._outputs[(record.txid, vout)] = Output(record.txid, vout, out.value, script)

    def _descendants(self, txids: set[str]) -> list[str]:
        found, todo = [], list(txids)
        while todo:
            txid = todo.pop()
            if txid in found:
                continue
            found.append(txid)
            todo.extend(
                spender for (parent, _), spender in self._spent_by.items() if parent == txid
            )
        return found

    def _forget(self, txid: str, why: str) -> None:
        tx = self.parsed(txid)
        for vin in tx.vin:
            self._spent_by.pop((vin.txid.hex(), vin.vout), None)
        for vout in range(len(tx.vout)):
            self._outputs.pop((txid, vout), None)
        del self.txs[txid]
        self.mempool.remove(txid)
        self.gone[txid] = why

    def drop_next(self, count: int = 1) -> None:
        """A world control (demo and tests only): the next `count` transactions broadcast by
        anyone but the solver are taken into the mempool as usual (the broadcaster gets its
        txid, the service sees a deposit), then dropped when the next block is mined instead
        of being put in it, as a node with a full mempool evicts a low-fee transaction."""
        with self._lock:
            self._drops_armed += count

    def drop(self, txid: str) -> None:
        """Evict a mempool transaction (and what spends it), as a node's full mempool does."""
        with self._lock:
            if txid in self.mempool:
                for gone in self._descendants({txid}):
                    self._forget(gone, "dropped from the mempool")
                self._save()

    def _sighted(self, record: _Tx, tx: Transaction) -> None:
        solver = script_of(SOLVER_ADDRESS)
        paid = sum(o.value for o in tx.vout if bytes(o.script_pubkey.data) == solver)
        if not paid or self._is_solvers(tx):
            return
        data = next(
            (d for o in tx.vout if (d := op_return_data(bytes(o.script_pubkey.data)))), None
        )
        first = tx.vin[0]
        prev = self._outputs.get((first.txid.hex(), first.vout))
        sender = address_of(prev.script) if prev is not None else None
        order_id = "0x" + data.hex() if data is not None and len(data) == 32 else None
        self.deposits.append(DepositSeen(record.txid, paid, order_id, sender, record.time))

    def _is_solvers(self, tx: Transaction) -> bool:
        solver = script_of(SOLVER_ADDRESS)
        return all(
            (o := self._outputs.get((i.txid.hex(), i.vout))) is not None and o.script == solver
            for i in tx.vin
        )

    # ---- blocks -----------------------------------------------------------------------------

    def mine(self) -> dict[str, Any] | None:
        """Put the mempool into a new block (None when it is empty)."""
        with self._lock:
            for txid in [t for t in self.mempool if t in self._to_drop]:
                self.drop(txid)
            self._to_drop.clear()
            if not self.mempool and self.blocks:
                return None
            block = self._block(list(self.mempool))
            self.mempool.clear()
            self._save()
            return block

    def _block(self, txids: list[str]) -> dict[str, Any]:
        previous = self.blocks[-1]["hash"] if self.blocks else "00" * 32
        height = len(self.blocks)
        body = f"{previous}:{height}:{','.join(txids)}".encode()
        digest = hashlib.sha256(hashlib.sha256(body).digest()).digest()[::-1].hex()
        block = {"height": height, "hash": digest, "time": int(time.time()), "txids": txids}
        for txid in txids:
            self.txs[txid].height = height
        self.blocks.append(block)
        return block

    def _genesis(self) -> None:
        funding = [
            *((DEMO_ADDRESS, v) for v in WALLET_COINS),
            *((SOLVER_ADDRESS, v) for v in SOLVER_COINS),
        ]
        txids = []
        for number, (address, value) in enumerate(funding):
            coinbase = TransactionInput(
                bytes(32), 0xFFFFFFFF, Script(bytes([4]) + number.to_bytes(4, "little"))
            )
            tx = Transaction(
                vin=[coinbase], vout=[TransactionOutput(value, Script(script_of(address)))]
            )
            record = _Tx(
                tx.txid().hex(), tx.serialize().hex(), 0, 0, weight_of(tx), int(time.time())
            )
            self._index(record, tx)
            txids.append(record.txid)
        self._block(txids)

    # ---- the solver's hands -----------------------------------------------------------------

    def pay(self, leg: str, to: str, satoshis: int) -> BitcoinPayment:
        """The solver pays `to` (once per `leg`: paying it again returns the first), a real
        transaction from its own outputs, signed with its key, change back to it."""
        if not is_bitcoin_address(to):
            raise ValueError(f"{to!r} is not a Bitcoin address")
        with self._lock:
            if leg in self.payments:
                return self.payments[leg]
            tx, values = self.build_spend(SOLVER_ADDRESS, [(script_of(to), satoshis)])
            txid = self._accept(sign_p2wpkh(tx, values, SOLVER_KEY))
            payment = BitcoinPayment(txid, leg, to, satoshis, int(time.time()))
            self.payments[leg] = payment
            self._save()
            return payment

    def build_spend(
        self, owner: str, outputs: list[tuple[bytes, int]], fee_rate: float | None = None
    ) -> tuple[Transaction, list[int]]:
        """An unsigned transaction from `owner`'s outputs (largest first) paying `outputs`,
        the change back to `owner` (none when it would be dust), at `fee_rate` sat/vB; and
        the values of the outputs it spends. Raises ValueError when `owner` has too little."""
        rate = fee_rate if fee_rate is not None else FEE_ESTIMATES[DEPOSIT_TARGET]
        owner_script = script_of(owner)
        wanted = sum(value for _, value in outputs)
        chosen: list[Output] = []
        coins = sorted(self.utxos(owner), key=lambda o: (-o.value, o.txid, o.vout))
        scripts = [s for s, _ in outputs]
        for coin in coins:
            chosen.append(coin)
            total = sum(c.value for c in chosen)
            fee = round(rate * estimate_vsize(len(chosen), [*scripts, owner_script]) + 0.5)
            if total >= wanted + fee:
                break
        else:
            have = sum(c.value for c in coins)
            raise ValueError(f"{owner} holds {have} sats, less than {wanted} and the fee")
        vout = [TransactionOutput(value, Script(script)) for script, value in outputs]
        change = total - wanted - fee
        if change >= DUST_SATS:
            vout.append(TransactionOutput(change, Script(owner_script)))
        vin = [TransactionInput(bytes.fromhex(c.txid), c.vout, sequence=0xFFFFFFFD) for c in chosen]
        return Transaction(version=2, vin=vin, vout=vout), [c.value for c in chosen]

    # ---- the state file ---------------------------------------------------------------------

    def _save(self) -> None:
        if self.state_file is None:
            return
        state = {
            "txs": {
                t: [r.raw, r.fee, r.vsize, r.weight, r.time, r.height] for t, r in self.txs.items()
            },
            "blocks": self.blocks,
            "mempool": self.mempool,
            "payments": {leg: list(vars(p).values()) for leg, p in self.payments.items()},
            "deposits": [list(vars(d).values()) for d in self.deposits],
            "gone": self.gone,
        }
        temporary = self.state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps(state))
        temporary.replace(self.state_file)

    def _load(self) -> None:
        assert self.state_file is not None
        state = json.loads(self.state_file.read_text())
        self.blocks = state["blocks"]
        self.mempool = state["mempool"]
        self.payments = {leg: BitcoinPayment(*p) for leg, p in state["payments"].items()}
        self.deposits = [DepositSeen(*d) for d in state["deposits"]]
        self.gone = state["gone"]
        order = [t for b in self.blocks for t in b["txids"]] + self.mempool
        for txid in order:
            raw, fee, vsize, weight, when, height = state["txs"][txid]
            record = _Tx(txid, raw, fee, vsize, weight, when, height)
            self._index(record, Transaction.parse(bytes.fromhex(raw)))

    def close(self) -> None:
        with self._lock:
            self._save()
