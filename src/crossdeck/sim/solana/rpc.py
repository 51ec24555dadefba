"""The Solana JSON-RPC methods of the world's chain, answered in the shapes a validator gives.

Calls are synchronous and NOT thread-safe: the server runs them one at a time on one worker
thread. Failures raise `RpcFault` with the codes a validator uses (-32602 invalid params,
-32002 preflight failure, -32003 bad signatures, -32015 unsupported transaction version).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from solders.account import Account
from solders.address_lookup_table_account import ID as LOOKUP_TABLE_PROGRAM
from solders.address_lookup_table_account import AddressLookupTable
from solders.message import MessageV0, from_bytes_versioned
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from crossdeck.sim.chains.rpc_format import RpcFault
from crossdeck.sim.solana import b58 as base58
from crossdeck.sim.solana.chain import (
    LAMPORTS_PER_SIGNATURE,
    BadTransaction,
    SolanaChain,
    TxRejected,
    _describe,
)
from crossdeck.sim.solana.spl import parsed_account, ui_amount

INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
PREFLIGHT_FAILURE = -32002
SIGNATURE_FAILURE = -32003
UNSUPPORTED_VERSION = -32015
VERSION = "2.2.14"
FEATURE_SET = 3294202862
FINALIZED_AFTER_SLOTS = 32
MAX_MULTIPLE_ACCOUNTS = 100
MAX_SIGNATURES = 256
BASE58_MAX_DATA = 128  # a validator refuses base58 for larger account data


def _bad(message: str) -> RpcFault:
    return RpcFault(INVALID_PARAMS, message)


def _pubkey(value: Any, what: str = "pubkey") -> Pubkey:
    if not isinstance(value, str):
        raise _bad(f"Invalid param: {what} must be a base58 string")
    try:
        return Pubkey.from_string(value)
    except Exception:
        raise _bad(f"Invalid param: Invalid {what}") from None


def _config(params: list[Any], index: int) -> dict[str, Any]:
    if len(params) <= index or params[index] is None:
        return {}
    config = params[index]
    if not isinstance(config, dict):
        raise _bad("Invalid params: config must be an object")
    return config


class SolanaRpc:
    def __init__(self, chain: SolanaChain) -> None:
        self.chain = chain
        self.methods: dict[str, Callable[[list[Any]], Any]] = {
            "getHealth": lambda _: "ok",
            "getVersion": lambda _: {"solana-core": VERSION, "feature-set": FEATURE_SET},
            "getGenesisHash": lambda _: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
            "getSlot": lambda _: chain.slot(),
            "getBlockHeight": lambda _: chain.block_height(),
            "getEpochInfo": self.getEpochInfo,
            "getLatestBlockhash": self.getLatestBlockhash,
            "isBlockhashValid": self.isBlockhashValid,
            "getBalance": self.getBalance,
            "getAccountInfo": self.getAccountInfo,
            "getMultipleAccounts": self.getMultipleAccounts,
            "getTokenAccountsByOwner": self.getTokenAccountsByOwner,
            "getTokenAccountBalance": self.getTokenAccountBalance,
            "getMinimumBalanceForRentExemption": self.getMinimumBalanceForRentExemption,
            "getFeeForMessage": self.getFeeForMessage,
            "getRecentPrioritizationFees": lambda _: [],
            "simulateTransaction": self.simulateTransaction,
            "sendTransaction": self.sendTransaction,
            "getSignatureStatuses": self.getSignatureStatuses,
            "getTransaction": self.getTransaction,
        }

    def handle(self, method: str, params: Any) -> Any:
        handler = self.methods.get(method)
        if handler is None:
            raise RpcFault(METHOD_NOT_FOUND, "Method not found")
        if params is None:
            params = []
        if not isinstance(params, list):
            raise _bad("Invalid params: expected an array")
        return handler(params)

    def _context(self, value: Any) -> dict[str, Any]:
        return {"context": {"apiVersion": VERSION, "slot": self.chain.slot()}, "value": value}

    # ---- chain ------------------------------------------------------------------------

    def getEpochInfo(self, params: list[Any]) -> dict[str, Any]:
        slot = self.chain.slot()
        slots_in_epoch = 432_000
        return {
            "absoluteSlot": slot,
            "blockHeight": self.chain.block_height(),
            "epoch": slot // slots_in_epoch,
            "slotIndex": slot % slots_in_epoch,
            "slotsInEpoch": slots_in_epoch,
            "transactionCount": len(self.chain.records),
        }

    def getLatestBlockhash(self, params: list[Any]) -> dict[str, Any]:
        blockhash, valid = self.chain.latest_blockhash()
        return self._context({"blockhash": blockhash, "lastValidBlockHeight": valid})

    def isBlockhashValid(self, params: list[Any]) -> dict[str, Any]:
        if not params or not isinstance(params[0], str):
            raise _bad("Invalid params: blockhash expected")
        return self._context(self.chain.blockhash_valid(params[0]))

    def getMinimumBalanceForRentExemption(self, params: list[Any]) -> int:
        size = params[0] if params else None
        if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= 10 * 2**20:
            raise _bad("Invalid params: data length must be an integer up to 10 MiB")
        return self.chain.rent_exempt(size)

    def getFeeForMessage(self, params: list[Any]) -> dict[str, Any]:
        if not params or not isinstance(params[0], str):
            raise _bad("Invalid params: base64 message expected")
        try:
            message = from_bytes_versioned(base64.b64decode(params[0], validate=True))
        except Exception:
            raise _bad("Invalid params: invalid message") from None
        if not self.chain.blockhash_valid(str(message.recent_blockhash)):
            return self._context(None)  # a validator answers null for an expired blockhash
        return self._context(LAMPORTS_PER_SIGNATURE * message.header.num_required_signatures)

    # ---- accounts ---------------------------------------------------------------------

    def getBalance(self, params: list[Any]) -> dict[str, Any]:
        key = _pubkey(params[0] if params else None)
        account = self.chain.account(key)
        return self._context(account.lamports if account is not None else 0)

    def _encode(self, account: Account | None, config: dict[str, Any]) -> dict[str, Any] | None:
        if account is None:
            return None
        encoding = config.get("encoding", "base58")
        data = bytes(account.data)
        owner = account.owner
        encoded: Any
        if encoding == "jsonParsed":
            encoded = parsed_account(owner, data, lambda mint: self.chain.decimals(mint) or 0)
            if encoded is None and owner == LOOKUP_TABLE_PROGRAM:
                encoded = _parsed_lookup_table(data)
            if encoded is None:
                encoded = [base64.b64encode(data).decode(), "base64"]
        else:
            window = config.get("dataSlice")
            if isinstance(window, dict):
                offset, length = window.get("offset", 0), window.get("length", len(data))
                if not all(isinstance(v, int) and v >= 0 for v in (offset, length)):
                    raise _bad("Invalid params: dataSlice offset and length are integers >= 0")
                data = data[offset : offset + length]
            if encoding == "base64":
                encoded = [base64.b64encode(data).decode(), "base64"]
            elif encoding in ("base58", "binary"):
                if len(data) > BASE58_MAX_DATA:
                    raise _bad(
                        "Encoded binary (base 58) data should be less than 128 bytes, "
                        "please use Base64 encoding."
                    )
                text = base58.b58encode(data)
                encoded = text if encoding == "binary" else [text, "base58"]
            else:
                raise _bad(f"Invalid params: unsupported encoding {encoding!r}")
        return {
            "data": encoded,
            "executable": account.executable,
            "lamports": account.lamports,
            "owner": str(owner),
            "rentEpoch": 2**64 - 1,
            "space": len(bytes(account.data)),
        }

    def getAccountInfo(self, params: list[Any]) -> dict[str, Any]:
        key = _pubkey(params[0] if params else None)
        return self._context(self._encode(self.chain.account(key), _config(params, 1)))

    def getMultipleAccounts(self, params: list[Any]) -> dict[str, Any]:
        keys = params[0] if params else None
        if not isinstance(keys, list) or len(keys) > MAX_MULTIPLE_ACCOUNTS:
            raise _bad(f"Invalid params: up to {MAX_MULTIPLE_ACCOUNTS} pubkeys expected")
        config = _config(params, 1)
        return self._context(
            [self._encode(self.chain.account(_pubkey(key)), config) for key in keys]
        )

    def getTokenAccountsByOwner(self, params: list[Any]) -> dict[str, Any]:
        owner = _pubkey(params[0] if params else None, "owner")
        selector = params[1] if len(params) > 1 else None
        if not isinstance(selector, dict) or len(selector) != 1:
            raise _bad("Invalid params: a filter of mint or programId expected")
        mint = _pubkey(selector["mint"], "mint") if "mint" in selector else None
        program = _pubkey(selector["programId"], "programId") if "programId" in selector else None
        if mint is None and program is None:
            raise _bad("Invalid params: a filter of mint or programId expected")
        config = _config(params, 2)
        found = []
        for key, account in self.chain.token_accounts(owner):
            balance = self.chain.token_balance(key)
            if mint is not None and (balance is None or balance[1] != mint):
                continue
            if program is not None and account.owner != program:
                continue
            found.append({"pubkey": str(key), "account": self._encode(account, config)})
        return self._context(found)

    def getTokenAccountBalance(self, params: list[Any]) -> dict[str, Any]:
        key = _pubkey(params[0] if params else None)
        balance = self.chain.token_balance(key)
        if balance is None:
            raise _bad("Invalid param: not a Token account")
        amount, mint = balance
        return self._context(ui_amount(amount, self.chain.decimals(mint) or 0))

    # ---- transactions -----------------------------------------------------------------

    @staticmethod
    def _wire(params: list[Any], config: dict[str, Any]) -> bytes:
        text = params[0] if params else None
        if not isinstance(text, str):
            raise _bad("Invalid params: an encoded transaction expected")
        encoding = config.get("encoding", "base58")
        try:
            if encoding == "base64":
                return base64.b64decode(text, validate=True)
            if encoding == "base58":
                return base58.b58decode(text)
        except ValueError:
            raise _bad(f"invalid transaction: failed to decode {encoding} string") from None
        raise _bad(f"Invalid params: unsupported encoding {encoding!r}; use base58 or base64")

    def simulateTransaction(self, params: list[Any]) -> dict[str, Any]:
        config = _config(params, 1)
        raw = self._wire(params, config)
        sig_verify = bool(config.get("sigVerify", False))
        replace = bool(config.get("replaceRecentBlockhash", False))
        if sig_verify and replace:
            raise _bad("sigVerify may not be used with replaceRecentBlockhash")
        try:
            result = self.chain.simulate(raw, sig_verify=sig_verify, replace_blockhash=replace)
        except BadTransaction as bad:
            code = SIGNATURE_FAILURE if "signature" in str(bad) else INVALID_PARAMS
            raise RpcFault(code, str(bad)) from None
        return self._context(result)

    def sendTransaction(self, params: list[Any]) -> str:
        config = _config(params, 1)
        raw = self._wire(params, config)
        try:
            return self.chain.send(raw, preflight=not config.get("skipPreflight", False))
        except BadTransaction as bad:
            code = SIGNATURE_FAILURE if "signature" in str(bad) else INVALID_PARAMS
            raise RpcFault(code, str(bad)) from None
        except TxRejected as rejected:
            data = {
                "err": rejected.err,
                "logs": rejected.logs,
                "accounts": None,
                "unitsConsumed": 0,
                "returnData": None,
                "innerInstructions": None,
            }
            message = f"Transaction simulation failed: {_describe(rejected.err)}"
            if isinstance(rejected.err, str):
                message = f"Transaction simulation failed: {rejected.message}"
            raise RpcFault(PREFLIGHT_FAILURE, message, data) from None

    def getSignatureStatuses(self, params: list[Any]) -> dict[str, Any]:
        signatures = params[0] if params else None
        if not isinstance(signatures, list) or len(signatures) > MAX_SIGNATURES:
            raise _bad(f"Invalid params: up to {MAX_SIGNATURES} signatures expected")
        slot = self.chain.slot()
        statuses: list[dict[str, Any] | None] = []
        for signature in signatures:
            record = self.chain.records.get(signature) if isinstance(signature, str) else None
            if record is None:
                statuses.append(None)
                continue
            depth = slot - record["slot"]
            finalized = depth >= FINALIZED_AFTER_SLOTS
            statuses.append(
                {
                    "slot": record["slot"],
                    "confirmations": None if finalized else depth,
                    "err": record["meta"]["err"],
                    "status": record["meta"]["status"],
                    "confirmationStatus": "finalized" if finalized else "confirmed",
                }
            )
        return self._context(statuses)

    def getTransaction(self, params: list[Any]) -> dict[str, Any] | None:
        signature = params[0] if params else None
        if not isinstance(signature, str):
            raise _bad("Invalid params: signature expected")
        config = _config(params, 1)
        record = self.chain.records.get(signature)
        if record is None:
            return None
        if record["version"] != "legacy" and config.get("maxSupportedTransactionVersion") is None:
            raise RpcFault(
                UNSUPPORTED_VERSION,
                "Transaction version (0) is not supported by the requesting client. Please try "
                "the request again with the following configuration parameter: "
                '"maxSupportedTransactionVersion": 0',
            )
        encoding = config.get("encoding", "json")
        raw = base64.b64decode(record["raw"])
        transaction: Any
        if encoding == "base64":
            transaction = [record["raw"], "base64"]
        elif encoding == "base58":
            transaction = [base58.b58encode(raw), "base58"]
        elif encoding in ("json", "jsonParsed"):
            transaction = _transaction_json(VersionedTransaction.from_bytes(raw))
        else:
            raise _bad(f"Invalid params: unsupported encoding {encoding!r}")
        meta = {k: v for k, v in record["meta"].items()}
        answer: dict[str, Any] = {
            "slot": record["slot"],
            "blockTime": record["blockTime"],
            "meta": meta,
            "transaction": transaction,
        }
        if config.get("maxSupportedTransactionVersion") is not None:
            answer["version"] = record["version"]
        return answer


def _transaction_json(tx: VersionedTransaction) -> dict[str, Any]:
    message = tx.message
    header = message.header
    body: dict[str, Any] = {
        "accountKeys": [str(k) for k in message.account_keys],
        "header": {
            "numRequiredSignatures": header.num_required_signatures,
            "numReadonlySignedAccounts": header.num_readonly_signed_accounts,
            "numReadonlyUnsignedAccounts": header.num_readonly_unsigned_accounts,
        },
        "recentBlockhash": str(message.recent_blockhash),
        "instructions": [
            {
                "programIdIndex": ix.program_id_index,
                "accounts": list(bytes(ix.accounts)),
                "data": base58.b58encode(bytes(ix.data)),
                "stackHeight": None,
            }
            for ix in message.instructions
        ],
    }
    if isinstance(message, MessageV0):
        body["addressTableLookups"] = [
            {
                "accountKey": str(lookup.account_key),
                "writableIndexes": list(bytes(lookup.writable_indexes)),
                "readonlyIndexes": list(bytes(lookup.readonly_indexes)),
            }
            for lookup in message.address_table_lookups
        ]
    return {"signatures": [str(s) for s in tx.signatures], "message": body}


def _parsed_lookup_table(data: bytes) -> dict[str, Any] | None:
    try:
        table = AddressLookupTable.deserialize(data)
    except Exception:
        return None
    meta = table.meta
    info = {
        "addresses": [str(a) for a in table.addresses],
        "authority": None if meta.authority is None else str(meta.authority),
        "deactivationSlot": str(meta.deactivation_slot),
        "lastExtendedSlot": str(meta.last_extended_slot),
        "lastExtendedSlotStartIndex": meta.last_extended_slot_start_index,
    }
    return {
        "program": "address-lookup-table",
        "parsed": {"info": info, "type": "lookupTable"},
        "space": len(data),
    }
