"""Deploy the demo contracts and mint USDC, signing as the operator over JSON-RPC."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from eth_abi.abi import encode as abi_encode
from eth_account import Account
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from crossdeck.sim.chains.rpc_client import ChainRpcClient
from crossdeck.sim.contracts import load_artifact

PRIORITY_FEE_WEI = 10**9
DEPLOY_GAS = 3_000_000
MINT_GAS = 120_000
# the swap router's own liquidity, paid out by same-chain swaps the user executes
ROUTER_NATIVE_WEI = 10_000 * 10**18
ROUTER_USDC_UNITS = 50_000_000 * 10**6


@dataclass(frozen=True)
class Deployment:
    usdc: str
    depository: str
    router: str


def function_call(signature: str, arg_types: list[str], args: list[Any]) -> bytes:
    return keccak(text=signature)[:4] + abi_encode(arg_types, args)


def contract_address(deployer: str, nonce: int) -> str:
    import rlp  # py-evm and eth-account depend on it

    return to_checksum_address(keccak(rlp.encode([bytes.fromhex(deployer[2:]), nonce]))[12:])


async def deployed(client: ChainRpcClient, chain_id: int, operator: str) -> Deployment:
    """The contracts of a chain provisioned earlier (restored from its state): the operator
    deployed USDC, the depository and the swap router with its first three nonces."""
    usdc, depository = contract_address(operator, 0), contract_address(operator, 1)
    router = contract_address(operator, 2)
    for name, address in (("USDC", usdc), ("the depository", depository), ("the router", router)):
        if await client.call("eth_getCode", address, "latest") in ("0x", "0x0", None):
            raise RuntimeError(
                f"chain {chain_id}: the restored chain has no {name} at {address}; start it fresh"
            )
    return Deployment(usdc=usdc, depository=depository, router=router)


async def provision(
    client: ChainRpcClient, chain_id: int, operator_key: str, usdc_mints: dict[str, int]
) -> Deployment:
    """Deploy USDC, the depository and the swap router from the operator, give the router its
    liquidity (native and USDC), then mint USDC to each address.

    All transactions are sent back to back with consecutive nonces and awaited together.
    """
    account = Account.from_key(operator_key)
    nonce = int(await client.call("eth_getTransactionCount", account.address, "pending"), 16)
    latest = await client.call("eth_getBlockByNumber", "latest", False)
    max_fee = 2 * int(latest.get("baseFeePerGas", "0x0"), 16) + PRIORITY_FEE_WEI

    def sign(payload: dict[str, Any]) -> str:
        tx = {
            "chainId": chain_id,
            "nonce": nonce + len(raw_txs),
            "maxFeePerGas": max_fee,
            "maxPriorityFeePerGas": PRIORITY_FEE_WEI,
            "value": 0,
            **payload,
        }
        # eth-account's sign_transaction is a combomethod, untyped
        raw: bytes = Account.sign_transaction(tx, operator_key).raw_transaction
        return "0x" + raw.hex()

    raw_txs: list[str] = []
    usdc = contract_address(account.address, nonce)
    raw_txs.append(sign({"data": load_artifact("USDC")["bytecode"], "gas": DEPLOY_GAS}))
    depository = contract_address(account.address, nonce + 1)
    raw_txs.append(sign({"data": load_artifact("Depository")["bytecode"], "gas": DEPLOY_GAS}))
    router = contract_address(account.address, nonce + 2)
    raw_txs.append(sign({"data": load_artifact("Router")["bytecode"], "gas": DEPLOY_GAS}))
    raw_txs.append(sign({"to": router, "value": ROUTER_NATIVE_WEI, "gas": 60_000}))
    for holder, amount in {**usdc_mints, router: ROUTER_USDC_UNITS}.items():
        if amount > 0:
            data = function_call("mint(address,uint256)", ["address", "uint256"], [holder, amount])
            raw_txs.append(sign({"to": usdc, "data": "0x" + data.hex(), "gas": MINT_GAS}))

    hashes = [await client.call("eth_sendRawTransaction", raw) for raw in raw_txs]
    receipts = await asyncio.gather(*(client.wait_for_receipt(h) for h in hashes))
    failed = [h for h, r in zip(hashes, receipts, strict=True) if int(r["status"], 16) != 1]
    if failed:
        raise RuntimeError(f"chain {chain_id}: setup transactions reverted: {failed}")
    deployed = [receipts[index]["contractAddress"] for index in range(3)]
    if [to_checksum_address(a) for a in deployed] != [usdc, depository, router]:
        raise RuntimeError(
            f"chain {chain_id}: contracts deployed at unexpected addresses {deployed}"
        )
    return Deployment(usdc=usdc, depository=depository, router=router)
