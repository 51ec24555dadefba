"""Bitcoin: the wallet's native SegWit (P2WPKH, `bc1q…`) key, the PSBT signer, and the gateway
to an Esplora-style HTTP API (what mempool.space and blockstream.info serve; the world's node
speaks it too).

PSBTs, keys, BIP-32/39/84 and the BIP-143 digests come from `embit` (a maintained, pure-Python
Bitcoin library with a bundled libsecp256k1; docs/solana-bitcoin.md says why it was chosen).
The key lives in the keyring as WIF; it is never printed, logged or journalled. What is signed
is decided by the guards first (`execute.guards.bitcoin`); the signer itself signs only inputs
that spend the wallet's own P2WPKH outputs, and only with SIGHASH_ALL.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import httpx

from crossdeck.base.secret import Secret
from crossdeck.wallet.errors import InvalidKeyError, RpcError, RpcUnreachableError
from crossdeck.wallet.node_http import NodeHttp
from crossdeck.wallet.signers import Family, SignerKind, SignerSource

BIP84_PATH = "m/84'/0'/0'/0/0"  # the first receive address of the first BIP-84 account
SIGHASH_ALL = 1
RETRIES = 2


def _private_key(wif: Secret) -> Any:
    from embit import ec

    try:
        key = ec.PrivateKey.from_wif(wif.get_secret_value().strip())
    except Exception:
        raise InvalidKeyError(
            "that is not a Bitcoin private key in WIF (51-52 base58 characters, K…/L… for "
            "a compressed mainnet key)",
            hint="or give the seed's words with --mnemonic",
        ) from None
    if not key.compressed:
        raise InvalidKeyError("a native SegWit (P2WPKH) key is compressed: this WIF is not")
    return key


def address_of(wif: Secret) -> str:
    """The P2WPKH (`bc1q…`) address of a WIF key."""
    from embit.script import p2wpkh

    return str(p2wpkh(_private_key(wif).get_public_key()).address())


def key_from_mnemonic(words: Secret, path: str = BIP84_PATH, passphrase: str = "") -> Secret:
    """The WIF of the key at `path` (BIP-84's first receive address by default) of a BIP-39
    seed the user already holds."""
    from embit import bip32, bip39

    text = " ".join(words.get_secret_value().split())
    if not bip39.mnemonic_is_valid(text):
        raise InvalidKeyError("those words are not a BIP-39 mnemonic (checksum or word list)")
    try:
        root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(text, passphrase))
        child = root.derive(path)
    except Exception:
        raise InvalidKeyError(
            f"{path!r} is not a BIP-32 derivation path (m/84'/0'/0'/0/0)"
        ) from None
    return Secret(str(child.key.wif()))


class BitcoinKeySigner:
    """The wallet's Bitcoin key, held in this process for the run (the keyring's or the
    world's)."""

    family: Family = "bitcoin"

    def __init__(self, wif: Secret, kind: str = "keyring") -> None:
        # read on first use: every run is handed the profile's Bitcoin key, and a run that
        # pays no PSBT never loads embit for it
        self._wif = wif
        self._kind: SignerKind = "world" if kind == "world" else "keyring"

    def __repr__(self) -> str:
        return f"BitcoinKeySigner(address={self.address})"

    @functools.cached_property
    def _key(self) -> Any:
        return _private_key(self._wif)

    @property
    def address(self) -> str:
        return self.source.address or ""

    @functools.cached_property
    def source(self) -> SignerSource:
        return SignerSource(self._kind, address_of(self._wif))

    def script(self) -> bytes:
        from embit.script import p2wpkh

        return bytes(p2wpkh(self._key.get_public_key()).data)

    def sign_psbt(self, psbt_hex: str) -> tuple[str, str]:
        """Sign every input of the PSBT (each must spend this wallet's P2WPKH output, its
        amount given, with no sighash other than ALL) and finalize it: the raw transaction's
        hex and its txid. Raises InvalidKeyError naming an input it will not sign."""
        from embit.psbt import PSBT
        from embit.script import Witness, p2pkh

        psbt = PSBT.parse(bytes.fromhex(psbt_hex))
        own = self.script()
        pub = self._key.get_public_key()
        tx = psbt.tx
        for index, scope in enumerate(psbt.inputs):
            utxo = scope.witness_utxo
            if utxo is None or bytes(utxo.script_pubkey.data) != own:
                raise InvalidKeyError(f"input {index} does not spend this wallet's output")
            if scope.sighash_type not in (None, SIGHASH_ALL):
                raise InvalidKeyError(f"input {index} asks for sighash {scope.sighash_type}")
            digest = tx.sighash_segwit(index, p2pkh(pub), utxo.value, sighash=SIGHASH_ALL)
            signature = self._key.sign(digest).serialize() + bytes([SIGHASH_ALL])
            tx.vin[index].witness = Witness([signature, pub.sec()])
        return tx.serialize().hex(), tx.txid().hex()

    async def aclose(self) -> None:
        return None


@dataclass(frozen=True)
class TxState:
    """What the node says of a transaction: in a block (its height) or in the mempool."""

    confirmed: bool
    block_height: int | None = None


class EsploraGateway(NodeHttp):
    """An Esplora-style HTTP API: UTXOs, fee estimates, broadcast, transaction status."""

    chain_id = 8253038

    def __init__(self, url: str, *, timeout: float = 20, retries: int = RETRIES) -> None:
        super().__init__(url, timeout=timeout, retries=retries)
        self.url = url.rstrip("/")

    def __repr__(self) -> str:
        return f"EsploraGateway({self._where})"

    def _unreachable(self, why: str) -> RpcUnreachableError:
        return RpcUnreachableError(
            f"the Bitcoin API at {self._where} {why}", hint="check rpc.8253038 or the node"
        )

    async def _get(self, path: str) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = await self._http.get(self.url + path)
            except (httpx.TransportError, OSError) as exc:
                if attempt >= self._retries:
                    raise self._unreachable(f"is unreachable ({type(exc).__name__})") from None
                attempt += 1
                continue
            if response.status_code >= 500 and attempt < self._retries:
                attempt += 1
                continue
            return response

    async def _json(self, path: str) -> Any:
        response = await self._get(path)
        if response.status_code != 200:
            raise self._unreachable(f"answered HTTP {response.status_code} to GET {path}")
        try:
            return response.json()
        except ValueError:
            raise self._unreachable(f"answered GET {path} with something not JSON") from None

    async def utxos(self, address: str) -> dict[tuple[str, int], int]:
        """The address's unspent outputs: (txid, vout) -> value in sats."""
        found = await self._json(f"/address/{address}/utxo")
        try:
            return {(str(u["txid"]), int(u["vout"])): int(u["value"]) for u in found}
        except (TypeError, KeyError, ValueError):
            raise self._unreachable("answered the UTXO list in another shape") from None

    async def fee_estimates(self) -> dict[str, float]:
        """sat/vB by confirmation target in blocks ("1", "6", ...)."""
        found = await self._json("/fee-estimates")
        try:
            return {str(k): float(v) for k, v in found.items()}
        except (AttributeError, TypeError, ValueError):
            raise self._unreachable("answered the fee estimates in another shape") from None

    async def tip_height(self) -> int:
        response = await self._get("/blocks/tip/height")
        try:
            return int(response.text)
        except ValueError:
            raise self._unreachable("answered the tip height with something else") from None

    async def tx_state(self, txid: str) -> TxState | None:
        """None when the node does not know the transaction (never sent, dropped, replaced)."""
        response = await self._get(f"/tx/{txid}/status")
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise self._unreachable(f"answered HTTP {response.status_code} to a status")
        body = response.json()
        return TxState(bool(body.get("confirmed")), body.get("block_height"))

    async def spender(self, txid: str, vout: int) -> str | None:
        """The transaction spending an output, when the node knows one."""
        response = await self._get(f"/tx/{txid}/outspend/{vout}")
        if response.status_code != 200:
            return None
        body = response.json()
        return str(body["txid"]) if body.get("spent") and body.get("txid") else None

    async def broadcast(self, raw_hex: str) -> str:
        """POST the raw transaction once (a send is not retried after the connection was
        made: the journal holds the txid, and `resume` looks for it); its txid."""
        try:
            response = await self._http.post(self.url + "/tx", content=raw_hex)
        except (httpx.ConnectError, httpx.ConnectTimeout):
            raise self._unreachable("is unreachable (nothing was sent)") from None
        except (httpx.TransportError, OSError) as exc:
            raise self._unreachable(
                f"lost the answer to the broadcast ({type(exc).__name__}); it may have been "
                "taken: `crossdeck resume` looks for it"
            ) from None
        if response.status_code != 200:
            raise RpcError(f"the Bitcoin node refused the transaction: {response.text[:300]}")
        return response.text.strip()


@dataclass
class BitcoinParts:
    """The Bitcoin side of a run: the key that signs and the chain's API."""

    signer: BitcoinKeySigner
    gateway: EsploraGateway

    async def aclose(self) -> None:
        await self.gateway.aclose()
