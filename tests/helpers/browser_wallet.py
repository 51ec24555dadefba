"""A test EIP-1193 wallet injected into crossdeck's signing page in a real headless Chromium.

Test code only. `window.ethereum` in the page forwards every request to `InjectedWallet.handle`
(a playwright binding), which signs with a test key (eth-account) and sends to the world's
chain through its JSON-RPC, as a browser wallet would. Its `behaviour` makes it misbehave the
ways a real wallet (or its user) can: reject, send another transaction, sign with another key.

Run as a script, it lets a person try the page with no wallet extension
(docs/browser-wallet-demo.md):

    .venv/bin/python tests/helpers/browser_wallet.py --world /tmp/world.json URL

opens the page crossdeck printed (`browser wallet: open URL`) in headless Chromium with the
world file's demo wallet injected, answers every request the page hands it (one line each on
stdout, `--json` for the whole request and answer) and ends when crossdeck's run is over.

Chromium is Debian's (`/usr/bin/chromium`, installed by `./scripts/bootstrap.sh --tools`):
playwright drives it through `executable_path`; its own browser download is never used. The
flags keep it from reaching for the network (the machine has none) and a fresh empty profile
keeps runs apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data

from crossdeck.base.tls import client_context

CHROMIUM = os.environ.get("CROSSDECK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

PROVIDER_JS = """
(() => {
  const listeners = {};
  const call = async (method, params) => {
    const answer = JSON.parse(await window.__testWallet(JSON.stringify({ method, params })));
    if (answer.error) {
      const error = new Error(answer.error.message);
      error.code = answer.error.code;
      throw error;
    }
    return answer.result;
  };
  window.ethereum = {
    isInjectedWallet: true,
    request: ({ method, params }) => call(method, params || []),
    on: (event, fn) => { (listeners[event] = listeners[event] || []).push(fn); },
    removeListener: () => {},
  };
})();
"""


class WalletError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class InjectedWallet:
    """One account on the world's chains; `behaviour` names a misbehaviour, if any:
    `reject-tx`, `reject-typed`, `other-tx` (sends its value plus one wei),
    `other-signer` (signs typed data with another key)."""

    key: str
    rpc: dict[int, str]
    chain_id: int = 8453
    behaviour: str | None = None
    calls: list[str] = field(default_factory=list)
    answered: list[dict[str, Any]] = field(default_factory=list)
    """Every request and what the wallet answered (`result` or `error`), in order."""
    sent: list[str] = field(default_factory=list)
    other_key: str = field(default_factory=lambda: "0x" + os.urandom(32).hex())

    @property
    def address(self) -> str:
        return Account.from_key(self.key).address

    async def handle(self, _source: Any, request: str) -> str:
        body = json.loads(request)
        method, params = body["method"], body["params"]
        self.calls.append(method)
        try:
            answer: dict[str, Any] = {"result": await self.answer(method, params)}
        except WalletError as exc:
            answer = {"error": {"code": exc.code, "message": str(exc)}}
        self.answered.append({"method": method, "params": params, **answer})
        return json.dumps(answer)

    async def answer(self, method: str, params: list[Any]) -> Any:
        if method in ("eth_requestAccounts", "eth_accounts"):
            return [self.address]
        if method == "eth_chainId":
            return hex(self.chain_id)
        if method == "wallet_switchEthereumChain":
            self.chain_id = int(params[0]["chainId"], 16)
            return None
        if method == "eth_signTypedData_v4":
            return self.sign_typed(params)
        if method == "personal_sign":
            message = encode_defunct(hexstr=params[0])
            return "0x" + Account.sign_message(message, self.key).signature.hex()
        if method == "eth_sendTransaction":
            return await self.send(params[0])
        raise WalletError(4200, f"unsupported method {method}")

    def sign_typed(self, params: list[Any]) -> str:
        if self.behaviour == "reject-typed":
            raise WalletError(4001, "User rejected the request.")
        if params[0].lower() != self.address.lower():
            raise WalletError(4100, "not this account")
        typed = json.loads(params[1])
        if int(typed["domain"]["chainId"]) != self.chain_id:  # as MetaMask refuses it
            raise WalletError(-32602, "chainId does not match the active chain")
        key = self.other_key if self.behaviour == "other-signer" else self.key
        signable = encode_typed_data(full_message=typed)
        return "0x" + Account.sign_message(signable, key).signature.hex()

    async def rpc_call(self, method: str, *params: Any) -> Any:
        async with httpx.AsyncClient(verify=client_context(self.rpc[self.chain_id])) as client:
            answer = await client.post(
                self.rpc[self.chain_id],
                json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)},
            )
        data = answer.json()
        if "error" in data:
            raise WalletError(-32603, str(data["error"]))
        return data["result"]

    async def send(self, tx: dict[str, Any]) -> str:
        if self.behaviour == "reject-tx":
            raise WalletError(4001, "User rejected the request.")
        if int(tx["chainId"], 16) != self.chain_id:
            raise WalletError(-32602, "wrong chain")
        value = int(tx.get("value", "0x0"), 16)
        if self.behaviour == "other-tx":
            value += 1
        nonce = int(await self.rpc_call("eth_getTransactionCount", self.address, "pending"), 16)
        signed = Account.sign_transaction(
            {
                "chainId": self.chain_id,
                "nonce": nonce,
                "to": tx["to"],
                "value": value,
                "data": tx.get("data", "0x"),
                "gas": int(tx["gas"], 16),
                "maxFeePerGas": int(tx["maxFeePerGas"], 16),
                "maxPriorityFeePerGas": int(tx["maxPriorityFeePerGas"], 16),
            },
            self.key,
        )
        tx_hash = await self.rpc_call("eth_sendRawTransaction", "0x" + signed.raw_transaction.hex())
        self.sent.append(tx_hash)
        return tx_hash


@contextlib.asynccontextmanager
async def chromium(*, headless: bool = True) -> AsyncIterator[Any]:
    """A headless Chromium (Debian's) with a fresh empty profile, through playwright."""
    from playwright.async_api import async_playwright

    if not os.access(CHROMIUM, os.X_OK):
        # fail, never skip: CI must run these; playwright's own error would suggest its
        # browser download, which this project does not use
        pytest.fail(
            f"no Chromium at {CHROMIUM}: `./scripts/bootstrap.sh --tools` installs Debian's "
            "chromium (or point CROSSDECK_CHROMIUM at one)"
        )
    flags = CHROMIUM_FLAGS if headless else [f for f in CHROMIUM_FLAGS if f != "--headless=new"]
    profile = tempfile.mkdtemp(prefix="crossdeck-chromium-")
    try:
        async with async_playwright() as driver:
            context = await driver.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=headless, args=flags
            )
            try:
                yield context
            finally:
                await context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


async def open_with_wallet(context: Any, url: str, wallet: InjectedWallet) -> Any:
    """The signing page at `url`, with the test wallet injected before the page's script."""
    page = await context.new_page()
    await page.expose_binding("__testWallet", wallet.handle)
    await page.add_init_script(PROVIDER_JS)
    await page.goto(url)
    return page


async def read_url(stderr: asyncio.StreamReader, seen: list[str]) -> str:
    """The signing page's URL from crossdeck's stderr (every line read is kept in `seen`)."""
    while True:
        line = (await stderr.readline()).decode()
        if not line:
            raise AssertionError("crossdeck ended without a page URL:\n" + "".join(seen))
        seen.append(line)
        if "browser wallet: open " in line:
            return line.split("browser wallet: open ", 1)[1].split()[0]


# -- trying the page by hand -------------------------------------------------------------------


def _said(answered: dict[str, Any]) -> str:
    """One line for a person: what the page asked and what the test wallet did."""
    method, params = answered["method"], answered["params"]
    if "error" in answered:
        return f"{method}: refused ({answered['error']['message']})"
    result = answered["result"]
    if method == "eth_signTypedData_v4":
        typed = json.loads(params[1])
        domain = typed.get("domain", {})
        return (
            f"signed typed data {typed.get('primaryType')} for {domain.get('name')} "
            f"(chain {domain.get('chainId')}): {result[:18]}…"
        )
    if method == "personal_sign":
        return f"signed a message: {result[:18]}…"
    if method == "eth_sendTransaction":
        return f"sent a transaction to {params[0].get('to')}: {result}"
    if method == "wallet_switchEthereumChain":
        return f"switched to chain {int(params[0]['chainId'], 16)}"
    return f"{method}: {result}"


async def try_page(url: str, world: dict[str, Any], *, show: bool, as_json: bool) -> int:
    """Open `url` with the world's demo wallet injected and answer until the run is over."""
    rpc = {int(chain): str(address) for chain, address in world["rpc"].items()}
    wallet = InjectedWallet(world["wallet"]["private_key"], rpc)
    print(f"test wallet {wallet.address} (the world's demo key) opens {url.rsplit('/', 1)[0]}/…")
    told = 0
    async with chromium(headless=not show) as context:
        page = await open_with_wallet(context, url, wallet)
        while True:
            state = await page.evaluate("document.body.dataset.state")
            for answered in wallet.answered[told:]:
                print(json.dumps(answered) if as_json else _said(answered), flush=True)
            told = len(wallet.answered)
            if state == "closed":
                print("the page says crossdeck's run is over")
                return 0
            if state in ("no-wallet", "connect-failed"):
                print(
                    "the page: "
                    + await page.evaluate("document.getElementById('state').textContent")
                )
                return 1
            await asyncio.sleep(0.2)


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(
        description="Try crossdeck's browser-wallet page with the demo world's test wallet "
        "(no wallet extension): opens URL in Debian's Chromium with the wallet injected."
    )
    parser.add_argument("url", help="the page crossdeck printed: http://127.0.0.1:PORT/TOKEN")
    parser.add_argument("--world", required=True, help="the world file (`sim serve --world-file`)")
    parser.add_argument("--show", action="store_true", help="a visible window (needs a display)")
    parser.add_argument("--json", action="store_true", help="each request and answer as JSON")
    args = parser.parse_args()
    try:
        world = json.loads(Path(args.world).read_text(encoding="utf-8"))
        return asyncio.run(try_page(args.url, world, show=args.show, as_json=args.json))
    except KeyboardInterrupt:
        return 130
    except pytest.fail.Exception as exc:  # no Chromium: say so, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
