"""Doing each flow by hand, the way a third party would: httpx and eth-account only.

Nothing here imports crossdeck: quotes are POSTed with httpx, transactions are signed with
eth-account and sent over raw JSON-RPC, typed data is signed as the spec describes (4.4).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
from eth_account import Account
from eth_account.signers.local import LocalAccount

from helpers.typed_data import eip712_domain_fields, send_asset_fields

NATIVE = "0x0000000000000000000000000000000000000000"
PERPS_USDC = "0x" + "0" * 32
FINAL = ("success", "refund")


class Rpc:
    """JSON-RPC to one chain node."""

    def __init__(self, url: str, chain_id: int) -> None:
        self.url = url
        self.chain_id = chain_id
        self._ids = 0

    def call(self, method: str, *params: Any) -> Any:
        self._ids += 1
        body = {"jsonrpc": "2.0", "id": self._ids, "method": method, "params": list(params)}
        reply = httpx.post(self.url, json=body, timeout=30).json()
        assert "error" not in reply, f"{method}: {reply['error']}"
        return reply["result"]

    def balance(self, address: str) -> int:
        return int(self.call("eth_getBalance", address, "latest"), 16)

    def erc20_balance(self, token: str, address: str) -> int:
        data = "0x70a08231" + address[2:].lower().rjust(64, "0")
        return int(self.call("eth_call", {"to": token, "data": data}, "latest"), 16)

    def send(self, account: LocalAccount, tx: dict[str, Any]) -> dict[str, Any]:
        """Sign and send a transaction as a quote item describes it; return the receipt."""
        assert int(tx.get("chainId", self.chain_id)) == self.chain_id
        call = {
            "from": account.address,
            "to": tx["to"],
            "value": hex(int(tx.get("value", 0))),
            "data": tx.get("data") or "0x",
        }
        gas = int(self.call("eth_estimateGas", call), 16)
        latest = self.call("eth_getBlockByNumber", "latest", False)
        base_fee = int(latest["baseFeePerGas"], 16)
        max_fee = int(tx.get("maxFeePerGas") or 2 * base_fee + 10**9)
        signed = account.sign_transaction(
            {
                "chainId": self.chain_id,
                "nonce": int(self.call("eth_getTransactionCount", account.address, "pending"), 16),
                "to": tx["to"],
                "value": int(tx.get("value", 0)),
                "data": tx.get("data") or "0x",
                "gas": gas * 12 // 10 if gas > 21_000 else gas,
                "maxFeePerGas": max(max_fee, 2 * base_fee + 10**9),
                "maxPriorityFeePerGas": int(tx.get("maxPriorityFeePerGas") or 10**9),
            }
        )
        tx_hash = self.call("eth_sendRawTransaction", "0x" + signed.raw_transaction.hex())
        deadline = time.monotonic() + 30
        while True:
            receipt = self.call("eth_getTransactionReceipt", tx_hash)
            if receipt is not None:
                assert int(receipt["status"], 16) == 1, f"{tx_hash} reverted"
                return receipt
            assert time.monotonic() < deadline, f"no receipt for {tx_hash}"
            time.sleep(0.05)

    def transfer(self, account: LocalAccount, to: str, value: int) -> dict[str, Any]:
        return self.send(account, {"to": to, "value": value, "data": "0x"})

    def erc20_transfer(
        self, account: LocalAccount, token: str, to: str, amount: int
    ) -> dict[str, Any]:
        data = "0xa9059cbb" + to[2:].lower().rjust(64, "0") + hex(amount)[2:].rjust(64, "0")
        return self.send(account, {"to": token, "value": 0, "data": data})


def gas_cost(receipt: dict[str, Any]) -> int:
    return int(receipt["gasUsed"], 16) * int(receipt["effectiveGasPrice"], 16)


@dataclass
class Hand:
    """One world seen from outside: its URLs and the demo wallet, nothing else."""

    info: dict[str, Any]

    def __post_init__(self) -> None:
        self.http = httpx.Client(timeout=30)
        self.service = self.info["service_url"]
        self.venue = self.info["venue_url"]
        self.api_key = self.info["api_key"]
        self.wallet = Account.from_key(self.info["wallet"]["private_key"])
        chains = self.http.get(f"{self.service}/chains").json()["chains"]
        evm = {c["id"] for c in chains if c["vmType"] == "evm"}
        self.rpc = {
            int(cid): Rpc(url, int(cid))
            for cid, url in self.info["rpc"].items()
            if int(cid) in evm  # the Solana JSON-RPC is driven by tests/sim/solana
        }
        self.usdc = {
            c["id"]: next(e["address"] for e in c["erc20Currencies"] if e["symbol"] == "USDC")
            for c in chains
            if c["vmType"] == "evm"
        }

    # ---- accounts --------------------------------------------------------------------

    def fresh_account(self, *, native: int = 0, usdc: dict[int, int] | None = None) -> LocalAccount:
        """A new key, funded from the demo wallet on every chain with `native` wei and the
        given USDC units per chain."""
        account = Account.from_key("0x" + secrets.token_hex(32))
        for chain_id, rpc in self.rpc.items():
            if native:
                rpc.transfer(self.wallet, account.address, native)
            units = (usdc or {}).get(chain_id, 0)
            if units:
                rpc.erc20_transfer(self.wallet, self.usdc[chain_id], account.address, units)
        return account

    @staticmethod
    def new_address() -> str:
        return Account.from_key("0x" + secrets.token_hex(32)).address

    # ---- service ---------------------------------------------------------------------

    def quote(self, body: dict[str, Any]) -> dict[str, Any]:
        response = self.http.post(
            f"{self.service}/quote/v2", json=body, headers={"x-api-key": self.api_key}
        )
        assert response.status_code == 200, response.text
        return response.json()

    def status(self, request_id: str) -> dict[str, Any]:
        # with the world's key: loopback callers without one share one anonymous rate bucket
        response = self.http.get(
            f"{self.service}/intents/status/v3",
            params={"requestId": request_id},
            headers={"x-api-key": self.api_key},
        )
        assert response.status_code == 200, response.text
        return response.json()

    def wait_final(self, request_id: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        pause = 0.05  # quick for fast worlds, then easing off to 4 polls a second
        while True:
            status = self.status(request_id)
            if status["status"] in FINAL:
                return status
            assert time.monotonic() < deadline, f"{request_id} stuck in {status['status']}"
            time.sleep(pause)
            pause = min(0.25, pause * 1.5)

    def history(self, **params: Any) -> list[dict[str, Any]]:
        response = self.http.get(
            f"{self.service}/requests/v2", params=params, headers={"x-api-key": self.api_key}
        )
        assert response.status_code == 200, response.text
        return response.json()["requests"]

    def authorize(self, account: LocalAccount, item_data: dict[str, Any]) -> None:
        """Sign a NonceMapping step (4.4 step 1) and POST it with ?signature=."""
        sign = item_data["sign"]
        assert sign["signatureKind"] == "eip712"
        signature = sign_typed(account, sign["domain"], sign["types"], sign["primaryType"],
                               sign["value"])  # fmt: skip
        post = item_data["post"]
        response = self.http.post(
            f"{self.service}{post['endpoint']}",
            params={"signature": signature},
            json=post["body"],
            headers={"x-api-key": self.api_key},
        )
        assert response.status_code == 200, response.text

    def execute_permit(self, account: LocalAccount, item_data: dict[str, Any]) -> None:
        sign = item_data["sign"]
        signature = sign_typed(account, sign["domain"], sign["types"], sign["primaryType"],
                               sign["value"])  # fmt: skip
        post = item_data["post"]
        response = self.http.post(
            f"{self.service}{post['endpoint']}",
            params={"signature": signature},
            json=post["body"],
            headers={"x-api-key": self.api_key},
        )
        assert response.status_code == 200, response.text

    # ---- venue -----------------------------------------------------------------------

    def send_asset(self, account: LocalAccount, item_data: dict[str, Any], chain_id: int) -> None:
        """Sign a sendAsset deposit item (4.4 step 2) with the wallet's chain id and submit it."""
        primary = item_data["eip712PrimaryType"]
        action = {
            "type": item_data["action"]["type"],
            **item_data["action"]["parameters"],
            "signatureChainId": hex(chain_id),
        }
        domain = {
            "name": primary.split("Transaction:")[0] + "SignTransaction",
            "version": "1",
            "chainId": chain_id,
            "verifyingContract": NATIVE,
        }
        signed = Account.sign_typed_data(
            account.key,
            full_message={
                "types": {
                    "EIP712Domain": eip712_domain_fields(),
                    **item_data["eip712Types"],
                },
                "primaryType": primary,
                "domain": domain,
                "message": action,
            },
        )
        body = {
            "action": action,
            "nonce": item_data["nonce"],
            "signature": {"r": hex(signed.r), "s": hex(signed.s), "v": signed.v},
        }
        response = self.http.post(f"{self.venue}/exchange", json=body)
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "ok", response.text

    def venue_send(self, sender: LocalAccount, to: str, amount: str, chain_id: int = 1) -> None:
        """A plain perps-USDC sendAsset between accounts (to fund a fresh venue account)."""
        nonce = int(time.time() * 1000) + secrets.randbelow(1000)
        item = {
            "action": {
                "type": "sendAsset",
                "parameters": {
                    self.venue_chain_field(): "Mainnet",
                    "destination": to,
                    "sourceDex": "",
                    "destinationDex": "",
                    "token": "USDC:0x6d1e7cde53ba9467b783cb7c530ce054",
                    "amount": amount,
                    "fromSubAccount": "",
                    "nonce": nonce,
                },
            },
            "nonce": nonce,
            "eip712Types": {
                f"{self.venue_name()}Transaction:SendAsset": send_asset_fields(
                    self.venue_chain_field()
                )
            },
            "eip712PrimaryType": f"{self.venue_name()}Transaction:SendAsset",
        }
        self.send_asset(sender, item, chain_id)

    def chain_entry(self, chain_id: int) -> dict[str, Any]:
        chains = self.http.get(f"{self.service}/chains").json()["chains"]
        return next(c for c in chains if c["id"] == chain_id)

    def protocol_chain(self, chain_id: int) -> dict[str, Any]:
        """The chain's `protocol.v2` entry of /chains: its protocol name and depository."""
        return self.chain_entry(chain_id)["protocol"]["v2"]

    def venue_name(self) -> str:
        return self.chain_entry(1337)["displayName"]

    def venue_chain_field(self) -> str:
        name = self.venue_name()
        return name[0].lower() + name[1:] + "Chain"

    def withdrawable(self, user: str) -> Decimal:
        response = self.http.post(
            f"{self.venue}/info", json={"type": "clearinghouseState", "user": user}
        )
        assert response.status_code == 200, response.text
        return Decimal(response.json()["withdrawable"])


def sign_typed(
    account: LocalAccount,
    domain: dict[str, Any],
    types: dict[str, Any],
    primary_type: str,
    message: dict[str, Any],
) -> str:
    """EIP-712 signature (hex, 65 bytes) of a step's `sign` data; the domain type is derived
    from the domain's members, as wallets do."""
    domain_fields = [
        {"name": name, "type": kind}
        for name, kind in (
            ("name", "string"),
            ("version", "string"),
            ("chainId", "uint256"),
            ("verifyingContract", "address"),
            ("salt", "bytes32"),
        )
        if name in domain
    ]
    signed = Account.sign_typed_data(
        account.key,
        full_message={
            "types": {"EIP712Domain": domain_fields, **types},
            "primaryType": primary_type,
            "domain": domain,
            "message": message,
        },
    )
    return "0x" + signed.signature.hex()


def step(quote: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in quote["steps"] if s["id"] == step_id)


def only_item(quote: dict[str, Any], step_id: str) -> dict[str, Any]:
    items = step(quote, step_id)["items"]
    assert len(items) == 1
    return items[0]["data"]


def request_id(quote: dict[str, Any]) -> str:
    ids = {s["requestId"] for s in quote["steps"]}
    assert len(ids) == 1
    return ids.pop()


def wait_children(hand: Hand, parent_id: str, count: int, timeout: float = 60) -> list[dict]:
    """The parent's child requests from the history, once `count` of them are final."""
    deadline = time.monotonic() + timeout
    while True:
        children = [
            r for r in hand.history(id=parent_id, includeChildRequests="true")
            if r["parentRequestId"] == parent_id
        ]  # fmt: skip
        if len(children) >= count and all(c["status"] in FINAL for c in children):
            return children
        assert time.monotonic() < deadline, f"children of {parent_id}: {children}"
        time.sleep(0.05)
