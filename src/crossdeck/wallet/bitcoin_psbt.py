"""A PSBT (BIP-174) decoded in full, for the guards and the words before signing: each input's
outpoint, previous output (amount and script, from its `witness_utxo` or `non_witness_utxo`)
and sighash type; each output's amount, script, address or OP_RETURN data; the fee and the
vsize it will have once every input is signed as P2WPKH."""

from __future__ import annotations

from dataclasses import dataclass


class PsbtError(ValueError):
    """The item's `psbt` cannot be read as a PSBT."""


@dataclass(frozen=True)
class PsbtInput:
    """One input of a PSBT: the output it spends and what that holds."""

    txid: str
    vout: int
    value: int | None  # None: the PSBT does not say what the previous output holds
    script: bytes | None
    address: str | None
    sighash_type: int | None


@dataclass(frozen=True)
class PsbtOutput:
    """One output of a PSBT: its value and where it pays."""

    index: int
    value: int
    script: bytes
    address: str | None
    op_return: bytes | None  # the data of an OP_RETURN output

    @property
    def is_op_return(self) -> bool:
        return self.script[:1] == b"\x6a"


@dataclass(frozen=True)
class DecodedPsbt:
    """A PSBT read whole: its inputs, outputs, version and locktime."""

    inputs: tuple[PsbtInput, ...]
    outputs: tuple[PsbtOutput, ...]
    version: int
    locktime: int

    @property
    def fee(self) -> int | None:
        values = [i.value for i in self.inputs]
        if any(v is None for v in values):
            return None
        return sum(v for v in values if v is not None) - sum(o.value for o in self.outputs)

    @property
    def vsize(self) -> int:
        """Its vsize once every input carries a P2WPKH witness (a 72-byte signature at most)."""
        frame = 10.5 + 68 * len(self.inputs)
        return int(frame + 0.5) + sum(9 + len(o.script) for o in self.outputs)


def _address(script: bytes) -> str | None:
    from embit.script import Script

    if not script or script[0] == 0x6A:
        return None
    try:
        return str(Script(script).address())
    except Exception:  # no address form
        return None


def _op_return(script: bytes) -> bytes | None:
    if script[:1] != b"\x6a":
        return None
    if len(script) >= 2 and script[1] == len(script) - 2 <= 75:
        return script[2:]
    return b""  # an OP_RETURN without one direct push


def decode_psbt(text: str) -> DecodedPsbt:
    """The PSBT in hex (as the service sends it) or base64 (as wallets pass it)."""
    from embit.psbt import PSBT

    raw: bytes
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        import base64
        import binascii

        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise PsbtError("the psbt is neither hex nor base64") from None
    if not raw.startswith(b"psbt\xff"):
        raise PsbtError("the psbt does not start with the PSBT magic bytes (70736274ff)")
    try:
        psbt = PSBT.parse(raw)
    except Exception as exc:
        raise PsbtError(f"the psbt cannot be parsed: {exc}") from None
    inputs = []
    for index, scope in enumerate(psbt.inputs):
        utxo = scope.witness_utxo
        if utxo is None and scope.non_witness_utxo is not None:
            previous = scope.non_witness_utxo
            if previous.txid() != scope.vin.txid or scope.vin.vout >= len(previous.vout):
                raise PsbtError(f"input {index}'s previous transaction is not the one it spends")
            utxo = previous.vout[scope.vin.vout]
        script = bytes(utxo.script_pubkey.data) if utxo is not None else None
        inputs.append(PsbtInput(
            txid=scope.vin.txid.hex(),
            vout=scope.vin.vout,
            value=int(utxo.value) if utxo is not None else None,
            script=script,
            address=_address(script) if script is not None else None,
            sighash_type=scope.sighash_type,
        ))  # fmt: skip
    outputs = []
    for index, scope in enumerate(psbt.outputs):
        script = bytes(scope.vout.script_pubkey.data)
        outputs.append(
            PsbtOutput(index, int(scope.vout.value), script, _address(script), _op_return(script))
        )
    tx = psbt.tx
    return DecodedPsbt(tuple(inputs), tuple(outputs), int(tx.version), int(tx.locktime))
