"""The SVM family (Solana, Eclipse, any chain /chains lists with vmType 'svm'): the key that
signs (`SolanaKeySigner`, a backend of the family beside the EVM ones in `wallet.signers`; one
ed25519 key is the wallet on every SVM chain) and each chain over its JSON-RPC
(`SolanaGateway`, plain POSTs through httpx, answers read into `solders` types), one RPC per
chain id (`SolanaParts`).

A key is written two ways: the base58 of the 64-byte keypair (secret then public, as wallets
export it) or a Solana CLI keypair file's JSON array of those 64 numbers. `read_keypair` takes
either and checks that the public half belongs to the secret half.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crossdeck.base.secret import Secret
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.models.base58 import b58decode, b58encode
from crossdeck.wallet.errors import InvalidKeyError, RpcError, RpcUnreachableError
from crossdeck.wallet.node_http import NodeHttp
from crossdeck.wallet.rpc_post import error_message, post_rpc, read_reply
from crossdeck.wallet.signers import Family, SignerKind, SignerSource


def read_keypair(text: str) -> Secret:
    """A Solana keypair as the base58 of its 64 bytes, from base58 text or a JSON array of 64
    numbers (the Solana CLI's file); `InvalidKeyError` saying what is wrong, never echoing it."""
    from solders.keypair import Keypair

    cleaned = text.strip()
    raw: bytes
    if cleaned.startswith("["):
        try:
            numbers = json.loads(cleaned)
        except ValueError:
            raise InvalidKeyError("the keypair file is not a JSON array of 64 numbers") from None
        if (
            not isinstance(numbers, list)
            or len(numbers) != 64
            or not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 256
                       for n in numbers)
        ):  # fmt: skip
            raise InvalidKeyError("a Solana keypair file is a JSON array of 64 numbers 0-255")
        raw = bytes(numbers)
    else:
        try:
            raw = b58decode(cleaned)
        except ValueError:
            raise InvalidKeyError("the Solana key is not base58 (nor a JSON array)") from None
        if len(raw) != 64:
            raise InvalidKeyError(
                f"a Solana keypair is 64 bytes (secret and public key), this one is {len(raw)}"
            )
    keypair = Keypair.from_seed(raw[:32])
    if bytes(keypair.pubkey()) != raw[32:]:
        raise InvalidKeyError("the keypair's public half is not the key of its secret half")
    return Secret(b58encode(raw))


def address_of(keypair: Secret) -> str:
    from solders.keypair import Keypair

    return str(Keypair.from_base58_string(keypair.get_secret_value()).pubkey())


class SolanaKeySigner:
    """A Solana key held in this process for the run (the keyring's or the world's)."""

    family: Family = "solana"

    def __init__(self, keypair: Secret, kind: str = "keyring") -> None:
        # read on first use: every run is handed the profile's Solana key, and an EVM run
        # never loads solders (~20 ms) for it
        self._secret = keypair
        self._kind: SignerKind = "world" if kind == "world" else "keyring"

    def __repr__(self) -> str:
        return f"SolanaKeySigner(address={self.address})"

    @functools.cached_property
    def _keypair(self) -> Any:
        from solders.keypair import Keypair

        return Keypair.from_base58_string(self._secret.get_secret_value())

    @property
    def address(self) -> str:
        return str(self._keypair.pubkey())

    @functools.cached_property
    def source(self) -> SignerSource:
        return SignerSource(self._kind, self.address)

    def keypair(self) -> Any:
        """The `solders` keypair, for signing a message built right before (never stored)."""
        return self._keypair

    async def aclose(self) -> None:
        return None


@dataclass(frozen=True)
class SignatureStatus:
    """A Solana signature's status as the node reports it."""

    slot: int | None
    confirmation: str | None  # processed, confirmed, finalized
    err: Any

    @property
    def landed(self) -> bool:
        return self.confirmation in ("confirmed", "finalized")


class SolanaGateway(NodeHttp):
    """An SVM chain's JSON-RPC: blockhash, lookup tables, simulation, send, signature statuses."""

    def __init__(
        self,
        rpc_url: str,
        *,
        chain_id: int = SOLANA_CHAIN_ID,
        timeout: float = 20,
        retries: int = 2,
    ) -> None:
        super().__init__(rpc_url, timeout=timeout, retries=retries)
        self.rpc_url = rpc_url
        self.chain_id = chain_id
        self._ids = itertools.count(1)

    def __repr__(self) -> str:
        return f"SolanaGateway({self.chain_id}, {self._where})"

    def _unreachable(self, why: str) -> RpcUnreachableError:
        return RpcUnreachableError(
            f"the RPC of SVM chain {self.chain_id} at {self._where} {why}",
            hint=f"check rpc.{self.chain_id} or the node",
        )

    async def rpc(self, method: str, *params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        response = await post_rpc(
            self._http,
            self.rpc_url,
            body,
            sends=method == "sendTransaction",
            retries=self._retries,
            unreachable=self._unreachable,
        )
        result, error = read_reply(
            response,
            method,
            unreachable=self._unreachable,
            malformed=lambda: RpcError(
                f"malformed answer from the Solana RPC at {self._where} to {method}"
            ),
        )
        if error is not None:
            raise RpcError(f"the Solana RPC refused {method}: {error_message(error)}")
        return result

    def _value(self, method: str, result: Any) -> Any:
        if not isinstance(result, dict) or "value" not in result:
            raise RpcError(f"the Solana RPC answered {method} without a value")
        return result["value"]

    async def latest_blockhash(self) -> tuple[str, int]:
        """(blockhash, last valid block height)."""
        value = self._value(
            "getLatestBlockhash",
            await self.rpc("getLatestBlockhash", {"commitment": "confirmed"}),
        )
        try:
            return str(value["blockhash"]), int(value["lastValidBlockHeight"])
        except (KeyError, TypeError, ValueError):
            raise RpcError("the Solana RPC's blockhash answer is malformed") from None

    async def block_height(self) -> int:
        result = await self.rpc("getBlockHeight", {"commitment": "confirmed"})
        if not isinstance(result, int):
            raise RpcError("the Solana RPC's block height is not a number")
        return result

    async def account_data(self, address: str) -> bytes | None:
        value = self._value(
            "getAccountInfo",
            await self.rpc("getAccountInfo", address, {"encoding": "base64"}),
        )
        if value is None:
            return None
        try:
            return base64.b64decode(value["data"][0])
        except (KeyError, TypeError, ValueError, IndexError):
            raise RpcError(f"the Solana RPC's account {address} is malformed") from None

    async def lookup_table(self, address: str) -> list[str]:
        """The addresses an address lookup table holds, in order."""
        from solders.address_lookup_table_account import AddressLookupTable

        data = await self.account_data(address)
        if data is None:
            raise RpcError(f"the lookup table {address} does not exist on Solana")
        try:
            table = AddressLookupTable.deserialize(data)
        except Exception:
            raise RpcError(f"account {address} is not an address lookup table") from None
        return [str(key) for key in table.addresses]

    async def balance(self, address: str) -> int:
        value = self._value("getBalance", await self.rpc("getBalance", address))
        if not isinstance(value, int):
            raise RpcError("the Solana RPC's balance is not a number")
        return value

    async def simulate(self, wire: bytes) -> tuple[Any, list[str]]:
        """(err, logs) of simulating a transaction before it is signed (err None: it would
        succeed); its signatures are not checked, since it is not signed yet."""
        value = self._value(
            "simulateTransaction",
            await self.rpc(
                "simulateTransaction",
                base64.b64encode(wire).decode(),
                {"encoding": "base64", "sigVerify": False, "commitment": "confirmed"},
            ),
        )
        if not isinstance(value, dict):
            raise RpcError("the Solana RPC's simulation answer is malformed")
        logs = value.get("logs") or []
        return value.get("err"), [str(line) for line in logs]

    async def send(self, wire: bytes) -> str:
        result = await self.rpc(
            "sendTransaction",
            base64.b64encode(wire).decode(),
            {"encoding": "base64", "skipPreflight": True, "maxRetries": 0},
        )
        if not isinstance(result, str):
            raise RpcError("the Solana RPC's sendTransaction answer is not a signature")
        return result

    async def signature_status(self, signature: str) -> SignatureStatus | None:
        value = self._value(
            "getSignatureStatuses",
            await self.rpc("getSignatureStatuses", [signature], {"searchTransactionHistory": True}),
        )
        entry = value[0] if isinstance(value, list) and value else None
        if entry is None:
            return None
        if not isinstance(entry, dict):
            raise RpcError("the Solana RPC's signature status is malformed")
        return SignatureStatus(entry.get("slot"), entry.get("confirmationStatus"), entry.get("err"))


@dataclass
class SolanaParts:
    """The SVM side of a run: the key that signs, the RPC URL of each SVM chain by id (the
    settings' `rpc`; a gateway is opened on first use), and the key of a `depositFeePayer`
    other than the wallet when the user gave it for this run."""

    signer: SolanaKeySigner
    rpc: Mapping[int, str]
    fee_payer: SolanaKeySigner | None = None
    _gateways: dict[int, SolanaGateway] = field(default_factory=dict, repr=False)

    def gateway(self, chain_id: int) -> SolanaGateway | None:
        """The gateway of SVM chain `chain_id` (the caller knows it is one: /chains says so),
        None when the settings name no RPC for it."""
        if chain_id not in self._gateways:
            url = self.rpc.get(chain_id)
            if url is None:
                return None
            self._gateways[chain_id] = SolanaGateway(url, chain_id=chain_id)
        return self._gateways[chain_id]

    def keys(self) -> dict[str, SolanaKeySigner]:
        """Every key this run holds, by address: the wallet's and the fee payer's."""
        held = {self.signer.address: self.signer}
        if self.fee_payer is not None:
            held[self.fee_payer.address] = self.fee_payer
        return held

    async def aclose(self) -> None:
        gateways, self._gateways = list(self._gateways.values()), {}
        for gateway in gateways:
            await gateway.aclose()
