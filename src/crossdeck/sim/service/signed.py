"""The two signed POSTs: /authorize (venue nonce mapping) and /execute/permits (EIP-3009).

Both take the signature as the query parameter ``signature`` (facts.md) and the step's
``post.body`` as JSON.

/authorize verifies a NonceMapping signature: domain {name: <service>NonceMapping, version '2',
chainId: body.signatureChainId, verifyingContract: zero} (any chain id is accepted when the
domain and the body agree, 4.4 chain id override), message {chainId: <venue label>, wallet,
depositor, id, nonce}. It must recover to ``wallet``; wallet, depositor, nonce and id must be the
quoted request's. The mapping (wallet, nonce) -> request id is stored once: a replay is refused.

/execute/permits verifies the ReceiveWithAuthorization signature of the quoted permit against the
request's user, submits ``depositErc20WithAuthorization`` on the origin chain with the relayer
key and marks the request ``depositing`` (the solver then sees the Deposit event).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils.address import to_checksum_address

from crossdeck.sim.brand import Brand
from crossdeck.sim.service.currencies import VENUE_CHAIN_ID
from crossdeck.sim.service.directory import (
    ChainDirectory,
    ChainUnavailable,
    TransactionReverted,
    encode_call,
)
from crossdeck.sim.service.errors import ServiceError, invalid, not_found
from crossdeck.sim.service.state import (
    InvalidTransition,
    NonceAlreadyMapped,
    RequestRecord,
    ServiceState,
    Status,
    Tx,
)
from crossdeck.sim.service.steps import NONCE_MAPPING_TYPES, ZERO_ADDRESS, order_id_bytes
from crossdeck.sim.service.validation import ADDRESS_RE, DIGITS_RE

SIGNATURE_RE = re.compile(r"^0x[0-9a-fA-F]{130}$")
BYTES32_RE = re.compile(r"^0x[0-9a-fA-F]{64}$")
PERMIT_DEPOSIT_GAS = 250_000


def _signature(signature: str | None) -> bytes:
    if not signature:
        raise invalid(
            "the signature query parameter is required (?signature=0x...)", "INVALID_SIGNATURE"
        )
    if not SIGNATURE_RE.fullmatch(signature):
        raise invalid(
            "signature must be 0x followed by 130 hex digits (65 bytes r, s, v)",
            "INVALID_SIGNATURE",
        )
    return bytes.fromhex(signature[2:])


def _recover(typed: dict[str, Any], signature: bytes) -> str:
    try:
        # eth-account's recover_message is a combomethod, untyped
        signer: str = Account.recover_message(
            encode_typed_data(full_message=typed), signature=signature
        )
        return signer
    except Exception as exc:  # a signature that does not parse recovers no one
        raise ServiceError(
            401, "UNAUTHORIZED", f"the signature does not recover to a signer: {exc}"
        ) from exc


def _uint(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise invalid(f"{name} must be an integer", field=name)
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and DIGITS_RE.fullmatch(value) and len(value) <= 78:
        return int(value)
    raise invalid(f"{name} must be a non-negative integer, got {value!r}", field=name)


def authorize(
    state: ServiceState, brand: Brand, body: Any, signature_text: str | None
) -> dict[str, Any]:
    signature = _signature(signature_text)
    if not isinstance(body, dict):
        raise invalid("the body must be the JSON object of the step's post.body")
    if body.get("type") != "nonce-mapping":
        raise invalid(f"type must be 'nonce-mapping', got {body.get('type')!r}", field="type")
    if body.get("walletChainId") != VENUE_CHAIN_ID:
        raise invalid(
            f"walletChainId must be {VENUE_CHAIN_ID}, got {body.get('walletChainId')!r}",
            field="walletChainId",
        )
    for name in ("wallet", "depositor"):
        value = body.get(name)
        if not isinstance(value, str) or not ADDRESS_RE.fullmatch(value):
            raise invalid(f"{name} must be an address", "INVALID_ADDRESS", field=name)
    wallet, depositor = body["wallet"], body["depositor"]
    nonce = _uint(body.get("nonce"), "nonce")
    order_id = body.get("id")
    if not isinstance(order_id, str) or not BYTES32_RE.fullmatch(order_id):
        raise invalid("id must be the quote's bytes32 orderId (0x + 64 hex digits)", field="id")
    signature_chain_id = body.get("signatureChainId")
    if isinstance(signature_chain_id, bool) or not isinstance(signature_chain_id, int):
        raise invalid("signatureChainId must be a chain id number", field="signatureChainId")
    if signature_chain_id <= 0:
        raise invalid("signatureChainId must be positive", field="signatureChainId")

    record = state.by_order_id(order_id)
    if record is None or record.origin_chain_id != VENUE_CHAIN_ID or record.venue_nonce is None:
        raise invalid(f"id {order_id} is not the orderId of a quoted venue withdrawal", field="id")
    if nonce != record.venue_nonce:
        raise invalid(
            f"nonce {nonce} is not the nonce quoted for this request ({record.venue_nonce})",
            field="nonce",
            requestId=record.id,
        )
    if wallet.lower() != record.user.lower() or depositor.lower() != record.user.lower():
        raise invalid(
            "wallet and depositor must be the user the withdrawal was quoted for",
            field="wallet",
            requestId=record.id,
        )
    typed = {
        "types": {"NonceMapping": NONCE_MAPPING_TYPES},
        "domain": {
            "name": brand.nonce_mapping_domain,
            "version": "2",
            "chainId": signature_chain_id,
            "verifyingContract": ZERO_ADDRESS,
        },
        "primaryType": "NonceMapping",
        "message": {
            "chainId": brand.venue_chain_label,
            "wallet": wallet,
            "depositor": depositor,
            "id": order_id,
            "nonce": nonce,
        },
    }
    signer = _recover(typed, signature)
    if signer.lower() != wallet.lower():
        raise ServiceError(
            401,
            "UNAUTHORIZED",
            f"the signature recovers to {signer}, not to wallet {to_checksum_address(wallet)}",
        )
    if record.status is not Status.WAITING:
        raise invalid(
            f"request {record.id} is already {record.status.value}; nothing to authorize",
            requestId=record.id,
        )
    try:
        state.map_nonce(wallet, nonce, record.id)
    except NonceAlreadyMapped as exc:
        raise invalid(
            f"nonce {nonce} of {wallet} is already mapped to a request; a mapping is made once",
            "NONCE_ALREADY_MAPPED",
            requestId=exc.request_id,
        ) from None
    return {"message": "Success", "requestId": record.id}


class PermitSubmitter:
    """POST /execute/permits: one submission per request at a time."""

    def __init__(self, state: ServiceState, directory: ChainDirectory) -> None:
        self.state = state
        self.directory = directory
        self._in_flight: set[str] = set()
        self._lock = asyncio.Lock()

    async def submit(self, body: Any, signature_text: str | None) -> dict[str, Any]:
        signature = _signature(signature_text)
        if not isinstance(body, dict):
            raise invalid("the body must be the JSON object of the step's post.body")
        if body.get("kind") != "eip3009":
            raise invalid(f"kind must be 'eip3009', got {body.get('kind')!r}", field="kind")
        request_id = body.get("requestId")
        if not isinstance(request_id, str) or not BYTES32_RE.fullmatch(request_id):
            raise invalid("requestId must be 0x + 64 hex digits", field="requestId")
        record = self.state.find(request_id)
        if record is None:
            raise not_found(f"no request with id {request_id}")
        sign = record.extra.get("permit")
        if not sign:
            raise invalid("this request was not quoted with usePermit", requestId=record.id)
        if record.status is not Status.WAITING:
            raise invalid(
                f"request {record.id} is already {record.status.value}; the permit was used",
                requestId=record.id,
            )
        value = sign["value"]
        if int(value["validBefore"]) <= self.state.now() // 1000:
            raise invalid(
                "the permit has expired (validBefore is past); ask for a new quote",
                "SIGNATURE_EXPIRED",
                requestId=record.id,
            )
        typed = {
            "types": sign["types"],
            "domain": sign["domain"],
            "primaryType": sign["primaryType"],
            "message": value,
        }
        signer = _recover(typed, signature)
        if signer.lower() != record.user.lower():
            raise ServiceError(
                401,
                "UNAUTHORIZED",
                f"the permit signature recovers to {signer}, not to the user {record.user}",
            )
        async with self._lock:
            if record.id in self._in_flight:
                raise invalid("this permit is already being submitted", requestId=record.id)
            self._in_flight.add(record.id)
        try:
            return await self._send(record, value, signature)
        finally:
            self._in_flight.discard(record.id)

    async def _send(
        self, record: RequestRecord, value: dict[str, Any], signature: bytes
    ) -> dict[str, Any]:
        request_id, chain_id = record.id, record.origin_chain_id
        chain = self.directory.chain(chain_id)
        r, s, v = signature[:32], signature[32:64], signature[64]
        if v < 27:
            v += 27
        data = encode_call(
            "depositErc20WithAuthorization(address,address,uint256,uint256,uint256,bytes32,"
            "uint8,bytes32,bytes32,bytes32)",
            [
                "address",
                "address",
                "uint256",
                "uint256",
                "uint256",
                "bytes32",
                "uint8",
                "bytes32",
                "bytes32",
                "bytes32",
            ],
            [
                chain.usdc,
                to_checksum_address(value["from"]),
                int(value["value"]),
                int(value["validAfter"]),
                int(value["validBefore"]),
                bytes.fromhex(value["nonce"][2:]),
                v,
                r,
                s,
                order_id_bytes(record.order_id),
            ],
        )
        try:
            tx_hash, block, sender = await self.directory.reader.transact(
                chain, chain.depository, data, PERMIT_DEPOSIT_GAS
            )
        except TransactionReverted as exc:
            raise invalid(
                f"the permit deposit {exc.tx_hash} reverted (authorization used or invalid)",
                "PERMIT_FAILED",
                requestId=request_id,
            ) from None
        except ChainUnavailable as exc:
            raise ServiceError(
                502, "RPC_HTTP_ERROR", f"origin chain {chain_id} is unavailable: {exc}"
            ) from exc
        tx = Tx(
            hash=tx_hash,
            chain_id=chain_id,
            from_=sender,
            to=chain.depository,
            data="0x" + data.hex(),
            timestamp=self.state.now() // 1000,
            block=block,
        )
        try:
            self.state.advance(request_id, Status.DEPOSITING, in_tx=tx)
        except InvalidTransition:  # the solver saw the deposit first; keep the tx anyway
            self.state.amend(request_id, in_tx=tx)
        return {"message": "Success", "requestId": request_id, "txHash": tx_hash}
