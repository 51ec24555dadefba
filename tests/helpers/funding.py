"""Funding test accounts on the demo world: from its demo wallet on the chains, and on the
venue's ledger."""

from __future__ import annotations

import secrets
from typing import Any

from eth_account import Account

from crossdeck.base.secret import Secret
from crossdeck.wallet.gateway import EvmGateway
from crossdeck.wallet.signer import Signer
from helpers.loopback import http

PERPS_USDC = "0x" + "0" * 32


def usdc_address(world: Any, chain_id: int) -> str:
    return world.chains[chain_id].usdc


def new_key() -> str:
    return "0x" + secrets.token_hex(32)


def new_address() -> str:
    return Account.from_key(new_key()).address


async def send_from_demo(world: Any, chain_id: int, tx: dict[str, Any]) -> None:
    """A plain transaction from the world's demo wallet (to fund test accounts)."""
    demo = Signer(Secret(world.wallet_key))
    demo_holds(world, chain_id, int(tx.get("value") or 0))
    async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
        max_fee, tip = await gateway.fee_params()
        call = {"from": demo.address, "value": 0, "data": "0x", **tx}
        gas = await gateway.estimate_gas(call)
        signed = demo.sign_transaction(
            {
                **call,
                "chainId": chain_id,
                "nonce": await gateway.nonce(demo.address),
                "gas": gas * 2,
                "maxFeePerGas": max_fee,
                "maxPriorityFeePerGas": tip,
            }
        )
        await gateway.wait_receipt(await gateway.send_raw(signed.raw), timeout=60, poll=0.05)


# a session-long world funds every test's wallets from its one demo wallet (100 native): when it
# runs low it is put back to what it started with, plus what is about to leave (anvil_setBalance,
# which both backends answer), so a test never fails for what the tests before it spent, and a
# test that needs the wallet NOT to afford something (150 ETH) still sees about 100
DEMO_START_WEI = 100 * 10**18


def demo_holds(world: Any, chain_id: int, wei: int) -> None:
    """Top the demo wallet up on `chain_id` unless it holds `wei` and 1 native of gas beside.
    Plain blocking JSON-RPC: the world serves from its own thread, and the conftest calls this
    outside any event loop."""
    demo = Account.from_key(world.wallet_key).address

    def call(method: str, params: list[Any]) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        answer = http().post(world.rpc[chain_id], json=body).json()
        assert "error" not in answer, answer
        return answer["result"]

    held = int(call("eth_getBalance", [demo, "latest"]), 16)
    if held < wei + 10**18:
        call("anvil_setBalance", [demo, hex(max(held, wei + DEMO_START_WEI))])


async def fund(
    world: Any,
    address: str,
    *,
    native: dict[int, int] | None = None,
    usdc: dict[int, int] | None = None,
    venue_perps: int = 0,
) -> None:
    """Give `address` native wei and USDC units per chain, and perps USDC on the venue."""
    for chain_id, wei in (native or {}).items():
        await send_from_demo(world, chain_id, {"to": address, "value": wei})
    for chain_id, units in (usdc or {}).items():
        data = "0xa9059cbb" + address[2:].lower().rjust(64, "0") + hex(units)[2:].rjust(64, "0")
        await send_from_demo(world, chain_id, {"to": usdc_address(world, chain_id), "data": data})
    if venue_perps:
        world.ledger.credit(address, PERPS_USDC, venue_perps)
