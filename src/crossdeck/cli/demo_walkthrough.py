"""The printed walkthrough `crossdeck demo` shows while the app does not exist yet.

It really executes, against a running world, with crossdeck's own client layers: one venue
deposit (USDC on chain 8453 -> perps USDC on the venue: approve, deposit, the solver credits the
venue) and one venue withdrawal (perps USDC -> USDC on 8453: sign the NonceMapping and POST
/authorize, sign the sendAsset and POST it to the venue, the solver pays on-chain). Each step
says what is signed and each status change is printed as it happens.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from pydantic import SecretStr

from crossdeck.api.client import ServiceClient
from crossdeck.execute.errors import ExecutionError
from crossdeck.models import Quote
from crossdeck.venue.client import VenueClient
from crossdeck.venue.signing import build_send_asset_typed_data, split_signature
from crossdeck.wallet.gateway import EvmGateway
from crossdeck.wallet.signer import Signer

ORIGIN = 8453
VENUE = 1337
PERPS_USDC = "0x" + "0" * 32
DEPOSIT_UNITS = 25 * 10**6  # 25 USDC (6 decimals on chain 8453)
WITHDRAW_UNITS = 10 * 10**8  # 10 perps USDC (8 decimals on the venue)
FINAL = ("success", "refund")

Echo = Callable[[str], None]


class Walkthrough:
    def __init__(self, info: dict[str, Any], echo: Echo, *, poll_s: float = 0.2) -> None:
        self.echo = echo
        self.poll_s = poll_s
        self.signer = Signer(SecretStr(info["wallet"]["private_key"]))
        self.service = ServiceClient(info["service_url"], api_key=info["api_key"])
        self.venue = VenueClient(info["venue_url"])
        self.chain = EvmGateway(info["rpc"][str(ORIGIN)], ORIGIN)

    async def run(self) -> None:
        try:
            chains = await self.service.chains()
            origin = chains.by_id(ORIGIN)
            usdc = (
                next(c.address for c in origin.currencies if c.symbol == "USDC") if origin else None
            )
            if usdc is None:
                raise RuntimeError(f"the service lists no USDC on chain {ORIGIN}")
            me = self.signer.address
            self.echo(f"Demo wallet {me} (a publicly known test key; demo funds only)\n")
            await self.deposit(usdc, me)
            await self.withdraw(usdc, me)
        finally:
            await self.service.aclose()
            await self.venue.aclose()
            await self.chain.aclose()

    # ---- the two flows -----------------------------------------------------------------

    async def deposit(self, usdc: str, me: str) -> None:
        self.echo("== 1. Deposit 25 USDC from chain 8453 into the venue (perps USDC) ==")
        before = await self._withdrawable(me)
        quote = await self.service.quote(
            {
                "user": me,
                "originChainId": ORIGIN,
                "destinationChainId": VENUE,
                "originCurrency": usdc,
                "destinationCurrency": PERPS_USDC,
                "amount": str(DEPOSIT_UNITS),
                "tradeType": "EXACT_INPUT",
                "recipient": me,
            }
        )
        self._describe(quote)
        for step in quote.steps:
            for item in step.items:
                tx = item.as_transaction()
                self.echo(
                    f"  [{step.id}] sign a transaction on chain {tx.chain_id}: to {tx.to}, "
                    f"value {tx.value or 0}, calldata {_short(tx.data)}"
                )
                tx_hash = await self._send(tx.model_dump(by_alias=True, exclude_none=True))
                self.echo(f"      sent {tx_hash}, mined")
        await self._follow(quote)
        after = await self._withdrawable(me)
        self.echo(f"  venue withdrawable: {before} -> {after} USDC\n")

    async def withdraw(self, usdc: str, me: str) -> None:
        self.echo("== 2. Withdraw 10 perps USDC from the venue to USDC on chain 8453 ==")
        before = await self.chain.erc20_balance(usdc, me)
        quote = await self.service.quote(
            {
                "user": me,
                "originChainId": VENUE,
                "destinationChainId": ORIGIN,
                "originCurrency": PERPS_USDC,
                "destinationCurrency": usdc,
                "amount": str(WITHDRAW_UNITS),
                "tradeType": "EXACT_INPUT",
                "protocolVersion": "v2",
                "recipient": me,
            }
        )
        self._describe(quote)
        for step in quote.steps:
            for item in step.items:
                if step.id == "authorize":
                    await self._authorize(item.as_signature())
                else:
                    await self._send_asset(item.as_venue_deposit())
        await self._follow(quote)
        after = await self.chain.erc20_balance(usdc, me)
        self.echo(f"  USDC on chain {ORIGIN}: {_usdc(before)} -> {_usdc(after)}\n")

    # ---- steps -------------------------------------------------------------------------

    async def _send(self, tx: dict[str, Any]) -> str:
        call = {k: tx[k] for k in ("from", "to", "data", "value") if k in tx}
        tx["gas"] = await self.chain.estimate_gas(call) * 12 // 10
        tx["nonce"] = await self.chain.nonce(self.signer.address)
        signed = self.signer.sign_transaction(tx)
        tx_hash = await self.chain.send_raw(signed.raw)
        await self.chain.wait_receipt(tx_hash, poll=0.1)
        return tx_hash

    async def _authorize(self, data: Any) -> None:
        sign, post = data.sign, data.post
        typed = {
            "domain": sign.domain,
            "types": sign.types,
            "primaryType": sign.primary_type,
            "value": sign.value,
        }
        self.echo(
            f"  [authorize] sign EIP-712 {sign.primary_type} in domain {sign.domain['name']}: "
            f"{json.dumps(sign.value)}"
        )
        signature = "0x" + self.signer.sign_typed_data(typed).hex()
        await self.service.post_signed(post.endpoint, post.body, signature)
        self.echo(f"      POST {post.endpoint}?signature=... accepted: nonce mapped to the request")

    async def _send_asset(self, data: Any) -> None:
        action = {"type": data.action.type, "parameters": data.action.parameters}
        typed = build_send_asset_typed_data(
            action, data.eip712_types, data.eip712_primary_type, ORIGIN
        )
        self.echo(
            f"  [deposit] sign EIP-712 {data.eip712_primary_type} in domain "
            f"{typed['domain']['name']} (chain {ORIGIN}): {json.dumps(typed['message'])}"
        )
        signature = split_signature(self.signer.sign_typed_data(typed))
        await self.venue.exchange(typed["message"], data.nonce, signature)
        self.echo("      POST /exchange on the venue: ok (the funds went to the solver)")

    async def _follow(self, quote: Quote) -> None:
        request_id = quote.request_id
        if request_id is None:
            raise ExecutionError("the world's quote carries no request id to follow")
        last = None
        while True:
            status = await self.service.status_v3(request_id)
            if status.status != last:
                last = status.status
                reason = (
                    f" ({status.fail_reason})" if status.fail_reason not in (None, "N/A") else ""
                )
                hashes = ", ".join(status.tx_hashes or [])
                self.echo(f"  status: {last}{reason}" + (f"  fill: {hashes}" if hashes else ""))
            if last in FINAL:
                return
            await asyncio.sleep(self.poll_s)

    def _describe(self, quote: Quote) -> None:
        details = quote.details
        cin = details.currency_in if details is not None else None
        cout = details.currency_out if details is not None else None
        if cin and cout and cin.currency_info and cout.currency_info:
            pay, get = cin.currency_info, cout.currency_info
            self.echo(
                f"  quote {quote.request_id}: pay {cin.amount_formatted} {pay.symbol} "
                f"on chain {pay.chain_id}, receive {cout.amount_formatted} "
                f"{get.symbol} on chain {get.chain_id}"
            )
        self.echo("  steps: " + ", ".join(f"{s.id} ({s.kind})" for s in quote.steps))

    async def _withdrawable(self, user: str) -> str:
        state = await self.venue.clearinghouse_state(user)
        return str(state.withdrawable)


def _short(data: str | None) -> str:
    if not data or data == "0x":
        return "none"
    return f"{data[:10]}... ({(len(data) - 2) // 2} bytes)"


def _usdc(units: int) -> str:
    whole, frac = divmod(units, 10**6)
    return f"{whole}.{frac:06d}"
