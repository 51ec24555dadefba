"""`BrowserSigner`: the user's browser wallet (Rabby, MetaMask, Frame, a hardware wallet behind
one) as an EVM signer, through the loopback page of `bridge`.

Typed data goes to the wallet as `eth_signTypedData_v4`, messages as `personal_sign`, and
transactions as `eth_sendTransaction`: the wallet signs and sends them itself and returns the
hash. Nothing the wallet returns is taken on its word: the executor recovers every signature to
the connected account before posting it, and fetches every sent transaction by its hash to hold
it to the guarded one (`execute.wallet_sent`). The page switches the wallet to the chain each
request needs and reports the chain it was on; an answer from another chain is refused here.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import webbrowser
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.models.addresses import to_checksum_address
from crossdeck.wallet.browser.bridge import Bridge
from crossdeck.wallet.signers import Family, SignerSource
from crossdeck.wallet.typed_data import full_typed_data

if TYPE_CHECKING:
    from crossdeck.wallet.signer import SignedTransaction

# EIP-1193: the user rejected the request
USER_REJECTED = 4001
_HASH = re.compile(r"0x[0-9a-fA-F]{64}")
_SIGNATURE = re.compile(r"0x[0-9a-fA-F]{130}")
_TX_QUANTITIES = ("value", "gas", "maxFeePerGas", "maxPriorityFeePerGas", "gasPrice", "chainId")


class WalletRejected(CrossdeckError):
    """The user rejected the request in the browser wallet."""

    exit_code = ExitCode.ABORTED


class BrowserWalletGone(CrossdeckError):
    """The page never connected, or stopped answering (the tab was closed)."""

    exit_code = ExitCode.ABORTED


class BrowserWalletError(CrossdeckError):
    """The wallet failed a request, or answered with something that is not an answer."""

    exit_code = ExitCode.FAILED


def _hex_quantity(value: Any) -> str:
    number = int(value, 0) if isinstance(value, str) else int(value)
    return hex(number)


def wallet_transaction(tx: dict[str, Any]) -> dict[str, Any]:
    """A transaction as `eth_sendTransaction` takes it: quantities as hex, no nonce (the
    wallet keeps its own)."""
    out: dict[str, Any] = {"from": tx["from"], "to": tx["to"], "data": tx.get("data") or "0x"}
    for name in _TX_QUANTITIES:
        if tx.get(name) is not None:
            out[name] = _hex_quantity(tx[name])
    return out


def _wallet_text(text: str, limit: int = 200) -> str:
    """The wallet's own words, fit for a terminal line: the page relays whatever the wallet (or
    a script on the page) says, and an escape sequence in it would reach the user's terminal
    as a command (colours, a cleared screen, a retitled window)."""
    shown = "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))
    return shown[:limit]


def _message_hex(message: str) -> str:
    if re.fullmatch(r"0x[0-9a-fA-F]{64}", message):
        return message.lower()
    return "0x" + message.encode("utf-8").hex()


class BrowserSigner:
    """The connected account of the user's browser wallet."""

    family: Family = "evm"
    wallet_sends = True

    def __init__(self, bridge: Bridge, address: str, chain_id: int, gone_after: float) -> None:
        self._bridge = bridge
        self._address = address
        self.active_chain_id = chain_id
        """The chain the wallet was on when it connected."""
        self._gone_after = gone_after
        self._source = SignerSource("browser", address, bridge.origin)

    def __repr__(self) -> str:  # never the page's token
        return f"BrowserSigner(address={self._address}, page={self._bridge.origin})"

    @classmethod
    async def start(
        cls,
        *,
        port: int = 0,
        announce: Callable[[str], None] | None = None,
        open_browser: bool = True,
        connect_timeout: float = 600.0,
        gone_after: float = 45.0,
    ) -> BrowserSigner:
        """Serve the page, say where (`announce` gets the URL with its token), open it in
        the system browser unless told not to, and wait for the wallet to connect."""
        bridge = Bridge(port)
        try:
            await bridge.start()
        except OSError as exc:
            raise BrowserWalletError(
                f"the signing page cannot listen on 127.0.0.1:{port}: {exc.strerror}",
                hint="pick another --browser-port, or leave it out for a free one",
            ) from None
        try:
            if announce is not None:
                announce(bridge.url)
            if open_browser:
                await asyncio.to_thread(_open, bridge.url)
            try:
                connection = await asyncio.wait_for(bridge.connected(), connect_timeout)
            except TimeoutError:
                raise BrowserWalletGone(
                    f"no wallet connected to the signing page on {bridge.origin} within "
                    f"{connect_timeout:g} s",
                    hint="open the page in the browser that has your wallet, and connect it",
                ) from None
            try:
                address = to_checksum_address(connection.accounts[0])
            except ValueError:
                raise BrowserWalletError("the wallet's account is not an EVM address") from None
            return cls(bridge, address, connection.chain_id, gone_after)
        except BaseException:
            await bridge.close()
            raise

    @property
    def address(self) -> str:
        return self._address

    @property
    def source(self) -> SignerSource:
        return self._source

    @property
    def origin(self) -> str:
        return self._bridge.origin

    async def aclose(self) -> None:
        await self._bridge.close()

    # -- the requests --------------------------------------------------------------------------

    async def _ask(
        self, method: str, params: list[Any], chain_id: int | None, words: Sequence[str], what: str
    ) -> Any:
        lines = list(words)
        title = lines.pop(0) if lines else what
        bridge = self._bridge
        task = bridge.ask(method, params, chain_id, title, lines)
        try:
            while True:
                try:
                    answer = await asyncio.wait_for(asyncio.shield(task.answer), 1.0)
                    break
                except TimeoutError:
                    # a task a page took is alive only while that page beats; one still queued
                    # while any page polls
                    seen = bridge.last_seen if task.seen is None else task.seen
                    if time.monotonic() - seen > self._gone_after:
                        raise BrowserWalletGone(
                            f"the signing page on {bridge.origin} stopped answering while "
                            f"{what} waited in the wallet",
                            hint="nothing more was signed from here; `crossdeck resume` "
                            "continues the run",
                        ) from None
                except ConnectionError:
                    raise BrowserWalletGone("the signing page was closed") from None
        finally:
            bridge.forget(task)
        error = answer.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            message = str(error.get("message", "")) if isinstance(error, dict) else str(error)
            message = _wallet_text(message)
            if code == USER_REJECTED:
                raise WalletRejected(
                    f"declined: you rejected {what} in the browser wallet",
                    hint="nothing more was signed or sent",
                )
            raise BrowserWalletError(f"the browser wallet failed {what}: {message} ({code})")
        on_chain = answer.get("chainId")
        if chain_id is not None and on_chain != chain_id:
            raise BrowserWalletError(
                f"the browser wallet answered {what} on chain {on_chain}, not {chain_id}",
                hint=f"switch the wallet to chain {chain_id} and try again",
            )
        return answer.get("result")

    def _signature(self, result: Any, what: str) -> bytes:
        if not isinstance(result, str) or not _SIGNATURE.fullmatch(result):
            raise BrowserWalletError(f"the browser wallet's answer to {what} is not a signature")
        return bytes.fromhex(result[2:])

    async def sign_typed_data(self, typed_data: dict[str, Any], words: Sequence[str] = ()) -> bytes:
        full = full_typed_data(typed_data)
        chain = full.get("domain", {}).get("chainId")
        chain_id = int(chain) if isinstance(chain, int | str) and str(chain).isdigit() else None
        what = f"the typed data {full.get('primaryType')}"
        result = await self._ask(
            "eth_signTypedData_v4", [self._address, json.dumps(full)], chain_id, words, what
        )
        return self._signature(result, what)

    async def sign_message(self, message: str, words: Sequence[str] = ()) -> bytes:
        what = "the message"
        result = await self._ask(
            "personal_sign", [_message_hex(message), self._address], None, words, what
        )
        return self._signature(result, what)

    async def sign_transaction(
        self, tx: dict[str, Any], words: Sequence[str] = ()
    ) -> SignedTransaction:
        raise TypeError("a browser wallet sends transactions itself: use send_transaction")

    async def send_transaction(self, tx: dict[str, Any], words: Sequence[str] = ()) -> str:
        chain_id = int(tx["chainId"])
        what = f"the transaction to {tx.get('to')} on chain {chain_id}"
        result = await self._ask(
            "eth_sendTransaction", [wallet_transaction(tx)], chain_id, words, what
        )
        if not isinstance(result, str) or not _HASH.fullmatch(result):
            raise BrowserWalletError(f"the browser wallet's answer to {what} is not a hash")
        return result.lower()


def _open(url: str) -> None:
    try:
        webbrowser.open(url, new=2)
    except webbrowser.Error:
        pass  # the URL was announced; the user opens it
