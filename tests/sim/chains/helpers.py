"""Client-side helpers for the chain tests: only web3 (AsyncWeb3) and eth-account."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_account.signers.local import LocalAccount
from web3 import AsyncHTTPProvider, AsyncWeb3

from crossdeck.sim.chains import ChainNode, load_artifact
from helpers.keys import DEV_KEYS
from helpers.typed_data import transfer_authorization_fields

# anvil/hardhat dev account #0: the demo wallet of the world.
DEMO_KEY = DEV_KEYS[0]
DEMO = Account.from_key(DEMO_KEY)
DEMO_NATIVE = 10 * 10**18
DEMO_USDC = 1_000 * 10**6
ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

AUTH_FIELDS = transfer_authorization_fields()
PERMIT_FIELDS = [
    {"name": "owner", "type": "address"},
    {"name": "spender", "type": "address"},
    {"name": "value", "type": "uint256"},
    {"name": "nonce", "type": "uint256"},
    {"name": "deadline", "type": "uint256"},
]


def usdc_domain(node: ChainNode) -> dict:
    return {
        "name": "USD Coin",
        "version": "2",
        "chainId": node.chain_id,
        "verifyingContract": node.usdc,
    }


def sign_authorization(
    account: LocalAccount,
    node: ChainNode,
    *,
    primary: str,
    to: str,
    value: int,
    valid_after: int = 0,
    valid_before: int,
    nonce: bytes | None = None,
) -> dict:
    """An EIP-3009 authorization as USDC v2 defines it, signed by `account`."""
    nonce = nonce if nonce is not None else os.urandom(32)
    message = {
        "from": account.address,
        "to": to,
        "value": value,
        "validAfter": valid_after,
        "validBefore": valid_before,
        "nonce": nonce,
    }
    signed = account.sign_typed_data(usdc_domain(node), {primary: AUTH_FIELDS}, message)
    return {
        **message,
        "v": signed.v,
        "r": signed.r.to_bytes(32, "big"),
        "s": signed.s.to_bytes(32, "big"),
    }


@dataclass
class ChainKit:
    node: ChainNode
    w3: AsyncWeb3

    @classmethod
    def connect(cls, node: ChainNode) -> ChainKit:
        return cls(node, AsyncWeb3(AsyncHTTPProvider(node.rpc_url)))

    @property
    def operator(self) -> LocalAccount:
        return Account.from_key(self.node.operator_key)

    @property
    def usdc(self):
        return self.w3.eth.contract(address=self.node.usdc, abi=load_artifact("USDC")["abi"])

    @property
    def depository(self):
        return self.w3.eth.contract(
            address=self.node.depository, abi=load_artifact("Depository")["abi"]
        )

    async def sign(self, account: LocalAccount, tx: dict[str, Any]) -> bytes:
        """Sign an EIP-1559 transaction, filling chain id, pending nonce, fees and gas."""
        tx = dict(tx)
        tx.setdefault("chainId", self.node.chain_id)
        tx.setdefault("value", 0)
        if "nonce" not in tx:
            tx["nonce"] = await self.w3.eth.get_transaction_count(account.address, "pending")
        if "gasPrice" not in tx:
            tip = await self.w3.eth.max_priority_fee
            base = (await self.w3.eth.get_block("latest"))["baseFeePerGas"]
            tx.setdefault("maxPriorityFeePerGas", tip)
            tx.setdefault("maxFeePerGas", 2 * base + tip)
        if "gas" not in tx:
            # web3 refuses to estimate a call declaring another chain: leave the id out.
            estimate = {k: v for k, v in tx.items() if k != "chainId"}
            tx["gas"] = await self.w3.eth.estimate_gas({**estimate, "from": account.address})
        return account.sign_transaction(tx).raw_transaction

    async def send(self, account: LocalAccount, tx: dict[str, Any]):
        raw = await self.sign(account, tx)
        tx_hash = await self.w3.eth.send_raw_transaction(raw)
        return await self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)

    async def call_fn(self, account: LocalAccount, contract, fn: str, *args, **tx):
        data = contract.encode_abi(fn, args=list(args))
        return await self.send(account, {"to": contract.address, "data": data, **tx})

    async def new_account(self, *, native: int = 10**17, usdc: int = 0) -> LocalAccount:
        """A fresh account, funded by the operator, so tests never share balances."""
        account = Account.create()
        if native:
            receipt = await self.send(self.operator, {"to": account.address, "value": native})
            assert receipt["status"] == 1
        if usdc:
            receipt = await self.call_fn(self.operator, self.usdc, "mint", account.address, usdc)
            assert receipt["status"] == 1
        return account
