"""What the world itself says a wallet holds, read the way any outside client would: JSON-RPC
to the chains (`eth_getBalance`, `balanceOf` through `eth_call`) and the venue's `/info`, with
nothing of crossdeck's own code path. Also the harness's own transfers to other test wallets
(signed with eth-account and sent over the chain's RPC, as any wallet would).

Synchronous on purpose: the end-to-end tests drive a terminal, not an event loop."""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from eth_account import Account

BASE = 8453
HYPEREVM = 999
VENUE_DECIMALS = 8  # the venue's USDC books, as the service's /chains lists chain 1337
USDC_DECIMALS = 6  # USDC on the EVM chains, as /chains lists it
TRANSFER = "0xa9059cbb"  # ERC-20 transfer(address,uint256)
BALANCE_OF = "0x70a08231"  # ERC-20 balanceOf(address)


_USDC: dict[tuple[str, int], str] = {}  # (service URL, chain id) -> USDC's address there


def post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


def rpc(url: str, method: str, *params: Any) -> Any:
    answer = post(url, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    assert "error" not in answer, (method, answer)
    return answer["result"]


def _word(address: str) -> str:
    return address[2:].lower().rjust(64, "0")


@dataclass(frozen=True)
class World:
    """The world's endpoints, as the Settings screen names them."""

    service: str
    venue: str
    rpc: dict[int, str]

    def usdc(self, chain_id: int) -> str:
        """USDC's contract on `chain_id`, from the service's own /chains (read once)."""
        known = _USDC.get((self.service, chain_id))
        if known is None:
            chains = get(f"{self.service}/chains")["chains"]
            [chain] = [c for c in chains if c["id"] == chain_id]
            [usdc] = [c for c in chain["erc20Currencies"] if c["symbol"] == "USDC"]
            known = _USDC[(self.service, chain_id)] = str(usdc["address"])
        return known

    def native(self, chain_id: int, wallet: str) -> int:
        return int(rpc(self.rpc[chain_id], "eth_getBalance", wallet, "latest"), 16)

    def erc20(self, chain_id: int, token: str, wallet: str) -> int:
        call = {"to": token, "data": BALANCE_OF + _word(wallet)}
        return int(rpc(self.rpc[chain_id], "eth_call", call, "latest"), 16)

    def perps_withdrawable(self, wallet: str) -> int:
        state = post(f"{self.venue}/info", {"type": "clearinghouseState", "user": wallet})
        return int(Decimal(state["withdrawable"]).scaleb(VENUE_DECIMALS))

    def spot(self, wallet: str, coin: str) -> int:
        state = post(f"{self.venue}/info", {"type": "spotClearinghouseState", "user": wallet})
        totals = [b["total"] for b in state.get("balances", []) if b["coin"] == coin]
        return int(Decimal(totals[0]).scaleb(VENUE_DECIMALS)) if totals else 0

    def holdings(self, wallet: str) -> dict[tuple[str, str], tuple[int, int]]:
        """(the row's place as Portfolio names it, symbol) -> (smallest units, decimals)."""
        return {
            ("Base (8453)", "ETH"): (self.native(BASE, wallet), 18),
            ("Base (8453)", "USDC"): (self.erc20(BASE, self.usdc(BASE), wallet), USDC_DECIMALS),
            ("HyperEVM (999)", "HYPE"): (self.native(HYPEREVM, wallet), 18),
            ("HyperEVM (999)", "USDC"): (
                self.erc20(HYPEREVM, self.usdc(HYPEREVM), wallet),
                USDC_DECIMALS,
            ),
            ("Venue (1337) perps", "USDC"): (self.perps_withdrawable(wallet), VENUE_DECIMALS),
            ("Venue (1337) spot", "USDC"): (self.spot(wallet, "USDC"), VENUE_DECIMALS),
        }

    def send(
        self, chain_id: int, key: str, to: str, value: int = 0, token: str | None = None
    ) -> None:
        """Send `value` (wei, or the token's units) from `key` to `to`, and wait for its
        receipt (bounded): the harness funding another test wallet, as a wallet would."""
        url = self.rpc[chain_id]
        sender = Account.from_key(key).address
        nonce = int(rpc(url, "eth_getTransactionCount", sender, "pending"), 16)
        gas_price = int(rpc(url, "eth_gasPrice"), 16)
        tx: dict[str, Any] = {
            "chainId": chain_id,
            "nonce": nonce,
            "maxFeePerGas": 2 * gas_price + 1,
            "maxPriorityFeePerGas": 1,
        }
        if token is None:
            tx |= {"to": to, "value": value, "gas": 21_000, "data": "0x"}
        else:
            data = TRANSFER + _word(to) + hex(value)[2:].rjust(64, "0")
            tx |= {"to": token, "value": 0, "gas": 100_000, "data": data}
        signed = Account.sign_transaction(tx, key)
        tx_hash = rpc(url, "eth_sendRawTransaction", "0x" + signed.raw_transaction.hex())
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            receipt = rpc(url, "eth_getTransactionReceipt", tx_hash)
            if receipt is not None:
                assert int(receipt["status"], 16) == 1, receipt
                return
            time.sleep(0.2)
        raise AssertionError(f"{tx_hash} on chain {chain_id} had no receipt within 120 s")
