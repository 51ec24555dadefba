"""The whole demo world in one object: two EVM chains, two SVM chains (Solana, and Eclipse as a
second one: each its own LiteSVM, USDC mint and depository id), Bitcoin, the venue, the
service, webhooks, solver.

    async with World(speed=0) as world:          # tests: no pacing
        httpx.post(world.service_url + "/quote/v2", json=..., headers={"x-api-key": world.api_key})

    world = World(); info = world.start_blocking(); ...; world.stop()   # the CLI

Everything runs in a dedicated background thread with its own event loop, so synchronous client
code, a test's own loop and the servers never wait on each other. Servers listen on free
loopback ports. ``world.info`` is the JSON of ``crossdeck sim serve`` and of world files:
``{"service_url", "venue_url", "rpc": {"8453": url, "999": url, "792703809": url, "9286185":
url, "8253038": url}, "wallet": {"address", "private_key", ...}, "api_key", "solver"}``.

The demo wallet is anvil/hardhat account #0, a publicly known test key: never use it for real
funds. It starts with 100 native and 100,000 USDC on 8453 and 999, and on the venue with 50,000
perps USDC plus spot USDC, USDe, USDH and USDC on the HIP-3 DEX. The API keys are fixed demo
strings: ``DEMO_API_KEY`` (name "demo") and ``OTHER_API_KEY`` (name "other").

State (requests, venue balances) lives in SQLite under ``state_dir`` (default: a temporary
directory removed at stop), and so do the chains (py-evm's database, or anvil's ``--state``
file, written at stop and every few seconds): a world restarted on the same directory keeps its
requests, history, venue balances, contracts, wallet balances, nonces, blocks and receipts, so
an earlier request's status, transactions and balances read the same after a restart and a new
fill never repeats an old nonce. The directory remembers its chain backend: it is refused with
the other one (start fresh instead).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import json
import logging
import shutil
import tempfile
import threading
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web
from eth_account import Account
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from crossdeck.sim.bitcoin import DEMO_ADDRESS as BITCOIN_DEMO_ADDRESS
from crossdeck.sim.bitcoin import DEMO_KEY as BITCOIN_DEMO_KEY
from crossdeck.sim.bitcoin import SOLVER_ADDRESS as BITCOIN_SOLVER_ADDRESS
from crossdeck.sim.bitcoin import BitcoinChain
from crossdeck.sim.bitcoin_esplora import BitcoinNode, start_bitcoin
from crossdeck.sim.brand import BRANDS
from crossdeck.sim.chains import DEFAULT_OPERATOR_KEY, ChainNode, start_chain
from crossdeck.sim.chains.router_transition import set_router_transition
from crossdeck.sim.dir_lock import DirectoryLock
from crossdeck.sim.service import (
    ChainDirectory,
    EvmChain,
    QuoteEngine,
    RequestRecord,
    ServiceConfig,
    ServiceState,
    StatusChange,
    VenueSide,
    make_service_app,
    webhook_data,
)
from crossdeck.sim.service.nonevm import (
    BITCOIN_CHAIN_ID,
    NonEvmChain,
    bitcoin_currencies,
    svm_currencies,
)
from crossdeck.sim.solana.node import (
    DEMO_KEYPAIR,
    ECLIPSE,
    LOOKUP_TABLE,
    SOLANA,
    SOLVER_KEYPAIR,
    SolanaNode,
    SvmSetup,
    keypair_base58,
    start_solana,
)
from crossdeck.sim.solver import Solver
from crossdeck.sim.status_socket import StatusSocketHub, make_status_socket_app
from crossdeck.sim.venue import (
    CURRENCIES,
    HIP3_DEX_NAME,
    PERPS_USDC_ADDRESS,
    SPOT_TOKENS,
    SPOT_USDC_TOKEN_ID,
    VenueLedger,
    hip3_address,
    make_venue_app,
)
from crossdeck.sim.webhooks import FAILURE_STATUSES, WebhookSender, build_status_payload

log = logging.getLogger(__name__)

T = TypeVar("T")

ORIGIN_CHAIN_ID = 8453
VENUE_EVM_CHAIN_ID = 999
CHAIN_IDS = (ORIGIN_CHAIN_ID, VENUE_EVM_CHAIN_ID)

# anvil/hardhat account #0: publicly known, funded only inside the demo world.
DEMO_WALLET_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
DEMO_WALLET_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
# account #1 is the solver (the chains' operator); account #2 pays the service's own
# transactions (permit deposits), so the two never race for a nonce.
SOLVER_KEY = DEFAULT_OPERATOR_KEY
RELAYER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
DEMO_API_KEY = "demo-key-of-the-crossdeck-demo-world"
OTHER_API_KEY = "other-key-of-the-crossdeck-demo-world"
API_KEYS = {"demo": DEMO_API_KEY, "other": OTHER_API_KEY}
SOLVER_ADDRESS = Account.from_key(SOLVER_KEY).address
# the venue's depository: the account venue withdrawals pay and venue fills come from. As on
# the public service it is not the solver (a client that confused the two passed every test
# while refusing every real withdrawal). Only the world's ledger moves its funds: no key.
VENUE_DEPOSITORY_ADDRESS = to_checksum_address(keccak(text="crossdeck venue depository")[12:])
RELAYER_ADDRESS = Account.from_key(RELAYER_KEY).address

WALLET_NATIVE_WEI = 100 * 10**18
WALLET_USDC_UNITS = 100_000 * 10**6
RELAYER_NATIVE_WEI = 1_000 * 10**18
VENUE_WALLET = {  # chain-1337 currency -> smallest units (8 decimals)
    PERPS_USDC_ADDRESS: 50_000 * 10**8,
    **{token.token_id: 10_000 * 10**8 for token in SPOT_TOKENS},
    hip3_address(SPOT_USDC_TOKEN_ID, HIP3_DEX_NAME): 5_000 * 10**8,
}
VENUE_SOLVER_UNITS = 100_000_000 * 10**8  # in the venue depository, of every venue currency
# the demo wallet's venue account is more than its own books, as a trader's is: a sub account
# holding perps USDC, and an equity in a vault (locked for a day from the world's first start)
VENUE_SUB_ACCOUNT = ("desk", 250 * 10**8)
VENUE_VAULT = (to_checksum_address(keccak(text="crossdeck demo vault")[12:]), 1_200 * 10**8)

CHAIN_NAMES = {
    ORIGIN_CHAIN_ID: ("base", "Base", "ETH", "Ether"),
    VENUE_EVM_CHAIN_ID: ("hyperevm", "HyperEVM", "HYPE", "HYPE"),
}


class WorldError(RuntimeError):
    """The world could not start (the cause is chained)."""


class World:
    def __init__(
        self,
        *,
        backend: str = "py-evm",
        state_dir: str | Path | None = None,
        speed: float = 1.0,
        webhooks: Mapping[str, str] | None = None,
        webhook_headers: Mapping[str, Mapping[str, str]] | None = None,
        brand: str = "neutral",
        host: str = "127.0.0.1",
        rate_limits: tuple[int, int] | None = None,
        requests_v2: bool = True,
        quote_v2_retired: bool = False,
        router_transition: bool = True,
    ) -> None:
        """`webhooks` maps an API key to its endpoint URL, `webhook_headers` an API key to
        extra headers; `rate_limits` is (anonymous, keyed) requests per minute; without
        `requests_v2` the v2 listing answers 410, retired, as the public one is; with
        `quote_v2_retired` POST /quote/v2 and /execute/permits answer 410 (from 2027-02-23);
        without `router_transition` the older router no longer answers beside router 3.2 and
        /chains names 3.2's alone (`sim.chains.router_transition`)."""
        if brand not in BRANDS:
            raise ValueError(f"brand must be one of {', '.join(BRANDS)}; got {brand!r}")
        if speed < 0:
            raise ValueError(f"speed must be >= 0, got {speed!r}")
        self.backend = backend
        self.brand = BRANDS[brand]
        self.speed = speed
        self.host = host
        self.rate_limits = rate_limits
        self.requests_v2 = requests_v2
        self.quote_v2_retired = quote_v2_retired
        self.router_transition = router_transition
        self.previous_routers: dict[int, str | None] = {}
        self._webhooks = dict(webhooks or {})
        strangers = set(self._webhooks) - set(API_KEYS.values())
        if strangers:  # the keys themselves are secrets: only their number is logged
            log.warning(
                "%d webhook endpoint(s) name an API key this world does not know; "
                "no request can carry it, so they will receive nothing",
                len(strangers),
            )
        self._webhook_headers = {k: dict(v) for k, v in (webhook_headers or {}).items()}
        self._own_state_dir = state_dir is None
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self._state_lock: DirectoryLock | None = None
        """Held while this world runs on a state dir it was given (one world per dir)."""

        self.info: dict[str, Any] = {}
        self.service_url = ""
        self.venue_url = ""
        self.rpc: dict[int, str] = {}
        self.wallet_address = DEMO_WALLET_ADDRESS
        self.wallet_key = DEMO_WALLET_KEY
        self.api_key = DEMO_API_KEY
        self.other_api_key = OTHER_API_KEY

        self.chains: dict[int, ChainNode] = {}
        self.solana: SolanaNode | None = None
        self.svm: dict[int, SolanaNode] = {}  # every SVM chain by id: Solana and Eclipse
        self.bitcoin_node: BitcoinNode | None = None
        self.solana_address = str(DEMO_KEYPAIR.pubkey())
        self.state: ServiceState | None = None
        self.ledger: VenueLedger | None = None
        self.engine: Solver | None = None  # the solver's machinery; `solver` is its address
        self.webhook_sender: WebhookSender | None = None
        self.status_socket: StatusSocketHub | None = None
        self.ws_url = ""
        self._runners: list[web.AppRunner] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop_requested: asyncio.Event | None = None
        self._stop_flag = threading.Event()  # set by stop() even before the loop exists
        self._startup_error: BaseException | None = None

    def __repr__(self) -> str:  # no keys: the api key and wallet key stay out of reprs and logs
        running = self._thread is not None and self._thread.is_alive()
        return (
            f"World(backend={self.backend!r}, brand={self.brand.key!r}, speed={self.speed}, "
            f"service_url={self.service_url!r}, running={running})"
        )

    # ---- public surface ----------------------------------------------------------------

    @property
    def solver(self) -> str:
        """The solver's address (its venue account and operator on both chains)."""
        return self.engine.address if self.engine is not None else ""

    @property
    def venue_depository(self) -> str:
        """The venue account withdrawals pay and venue fills come from (not the solver's)."""
        return VENUE_DEPOSITORY_ADDRESS

    @property
    def faults(self) -> Any:
        """The service's `FaultInjector` (thread-safe): `world.faults.inject("503", 2)`."""
        assert self.state is not None, "the world is not running"
        return self.state.faults

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        assert self._loop is not None, "the world is not running"
        return self._loop

    def call(self, fn: Callable[[], Awaitable[T]], timeout: float | None = 60.0) -> T:
        """Run `fn()` (a coroutine function) inside the world's loop and return its result."""
        return self._submit(fn).result(timeout)

    def _submit(self, fn: Callable[[], Awaitable[T]]) -> concurrent.futures.Future[T]:
        async def run() -> T:
            return await fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop)

    def set_webhook(self, api_key: str, url: str, headers: Mapping[str, str] | None = None) -> None:
        """Point `api_key`'s one webhook endpoint at `url` (replacing any earlier one)."""

        async def apply() -> None:
            assert self.webhook_sender is not None
            self.webhook_sender.set_endpoint(api_key, url, headers)

        self.call(apply)

    def wait_idle(self, timeout: float = 60.0) -> None:
        """Block until the solver has no fill, refund or sweep running and every queued
        webhook has been delivered or given up."""

        async def idle() -> None:
            assert self.engine is not None and self.webhook_sender is not None
            await self.engine.idle()
            await self.webhook_sender.wait_idle()

        self.call(idle, timeout)

    # ---- starting and stopping ---------------------------------------------------------

    def start_blocking(self, timeout: float = 120.0) -> dict[str, Any]:
        """Start the world in its thread; return `info` once every server answers."""
        if self._thread is not None:
            raise RuntimeError("this World has already been started")
        self._thread = threading.Thread(target=self._run, name="crossdeck-world", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            self.stop()
            raise WorldError(f"the world did not start within {timeout} s")
        if self._startup_error is not None:
            self._thread.join(30)
            raise WorldError(f"the world failed to start: {self._startup_error}") from (
                self._startup_error
            )
        return self.info

    def stop(self, timeout: float = 60.0) -> None:
        """Shut everything down (idempotent): solver, webhooks, servers, chains, databases."""
        self._stop_flag.set()
        thread, loop, stop = self._thread, self._loop, self._stop_requested
        if thread is None or not thread.is_alive():
            return
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed between check and call
                loop.call_soon_threadsafe(stop.set)
        thread.join(timeout)
        if thread.is_alive():
            log.error("the world did not stop within %s s", timeout)

    async def __aenter__(self) -> World:
        await asyncio.to_thread(self.start_blocking)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> World:
        self.start_blocking()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            # join the threads of to_thread (a chain still being built when another failed to
            # start): close() alone lets them outlive the world
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()

    async def _main(self) -> None:
        self._stop_requested = asyncio.Event()
        if self._stop_flag.is_set():  # stop() ran before the event existed
            self._stop_requested.set()
        try:
            await self._start()
        except BaseException as exc:
            while isinstance(exc, BaseExceptionGroup):  # from the chains' task group
                exc = exc.exceptions[0]
            self._startup_error = exc
            log.error("world startup failed: %s", exc)
            await self._shutdown()
            self._ready.set()
            return
        self._ready.set()
        await self._stop_requested.wait()
        await self._shutdown()

    async def _start(self) -> None:
        if self.state_dir is None:
            self.state_dir = Path(tempfile.mkdtemp(prefix="crossdeck-world-"))
        self.state_dir.mkdir(parents=True, exist_ok=True)
        if not self._own_state_dir:
            self._state_lock = DirectoryLock(self.state_dir, "a demo world")
            self._state_lock.acquire()
            claim_state_dir(self.state_dir, self.backend)

        # A task group: when one chain fails to start, the other is cancelled (and stopped).
        async with asyncio.TaskGroup() as chains_started:
            for chain_id in CHAIN_IDS:
                chains_started.create_task(self._start_chain(chain_id))
            for setup in SVM_SETUPS:
                chains_started.create_task(self._start_svm(setup))
            chains_started.create_task(self._start_bitcoin())
            self._open_stores()

        self.webhook_sender = WebhookSender(self._webhooks, self._webhook_headers)
        await self.webhook_sender.start()
        assert self.state is not None and self.ledger is not None
        self.state.subscribe(self._on_status_change)
        directory = ChainDirectory(
            [
                self._evm_chain(self.chains[cid], self.previous_routers.get(cid))
                for cid in CHAIN_IDS
            ],
            venue=VenueSide(
                solver_address=SOLVER_ADDRESS,
                depository=VENUE_DEPOSITORY_ADDRESS,
                balance=self.ledger.spendable,
            ),
            others=self._non_evm_chains(),
        )
        quotes = QuoteEngine(self.state, directory, self.brand)
        config = ServiceConfig(
            brand=self.brand,
            requests_v2=self.requests_v2,
            quote_v2_retired=self.quote_v2_retired,
        )
        if self.rate_limits is not None:
            config = dataclasses.replace(
                config,
                anonymous_per_minute=self.rate_limits[0],
                keyed_per_minute=self.rate_limits[1],
            )
        self.service_url = await self._serve(make_service_app(self.state, quotes, config))
        self.venue_url = await self._serve(make_venue_app(self.ledger, self.brand))
        self.status_socket = StatusSocketHub(known_key=self.state.api_keys.name_for)
        self.ws_url = "ws" + (await self._serve(make_status_socket_app(self.status_socket)))[4:]
        self.state.subscribe(self._push_to_sockets)

        self.engine = Solver(
            self.state,
            self.chains,
            self.ledger,
            operator_key=SOLVER_KEY,
            venue_depository=VENUE_DEPOSITORY_ADDRESS,
            speed=self.speed,
            solana=self.solana,
            bitcoin=self.bitcoin,
            svm=[node for node in self.svm.values() if node is not self.solana],
        )
        await self.engine.start(self._scanned())
        self.state.reindexer = self.engine.reindex
        self.rpc = {cid: self.chains[cid].rpc_url for cid in CHAIN_IDS}
        for chain_id, node in self.svm.items():
            self.rpc[chain_id] = node.rpc_url
        assert self.bitcoin_node is not None
        self.rpc[BITCOIN_CHAIN_ID] = self.bitcoin_node.url
        self.info = {
            "service_url": self.service_url,
            "service_name": self.brand.service_name,
            "venue_url": self.venue_url,
            "venue_name": self.brand.venue_name,
            "ws_url": self.ws_url,
            "rpc": {str(cid): url for cid, url in self.rpc.items()},
            "wallet": {
                "address": DEMO_WALLET_ADDRESS,
                "private_key": DEMO_WALLET_KEY,
                "solana_address": self.solana_address,
                "solana_private_key": keypair_base58(DEMO_KEYPAIR),
                "bitcoin_address": BITCOIN_DEMO_ADDRESS,
                "bitcoin_private_key": BITCOIN_DEMO_KEY.wif(),
            },
            "api_key": DEMO_API_KEY,
            "solver": self.solver,
            "venue_depository": VENUE_DEPOSITORY_ADDRESS,
        }

    def _open_stores(self) -> None:
        """The service's and the venue's SQLite state; a fresh venue gets its demo balances."""
        assert self.state_dir is not None
        self.state = ServiceState(self.state_dir / "service.sqlite3")
        for name, secret in API_KEYS.items():
            self.state.register_api_key(name, secret)
        self.ledger = VenueLedger(self.state_dir / "venue.sqlite3")
        # a restarted world keeps its balances
        if not self.ledger.exists(DEMO_WALLET_ADDRESS):
            for currency, amount in VENUE_WALLET.items():
                self.ledger.credit(DEMO_WALLET_ADDRESS, currency, amount)
            name, units = VENUE_SUB_ACCOUNT
            sub = self.ledger.add_sub_account(DEMO_WALLET_ADDRESS, name)
            self.ledger.credit(sub, PERPS_USDC_ADDRESS, units)
            vault, equity = VENUE_VAULT
            locked = self.ledger.now_ms() + 24 * 3600 * 1000
            self.ledger.set_vault_equity(DEMO_WALLET_ADDRESS, vault, equity, locked)
        if self.ledger.exists(VENUE_DEPOSITORY_ADDRESS):
            return
        for currency in CURRENCIES:
            self.ledger.credit(VENUE_DEPOSITORY_ADDRESS, currency, VENUE_SOLVER_UNITS)

    async def _start_chain(self, chain_id: int) -> None:
        funded = {
            DEMO_WALLET_ADDRESS: (WALLET_NATIVE_WEI, WALLET_USDC_UNITS),
            RELAYER_ADDRESS: (RELAYER_NATIVE_WEI, 0),
        }
        state_file = None
        if not self._own_state_dir:  # a temporary world need not outlive itself
            assert self.state_dir is not None
            state_file = chain_state_file(self.state_dir, chain_id, self.backend)
        self.chains[chain_id] = await start_chain(
            chain_id,
            backend=self.backend,
            funded=funded,
            operator_key=SOLVER_KEY,
            state_file=state_file,
        )
        self.previous_routers[chain_id] = await set_router_transition(
            self.chains[chain_id], transition=self.router_transition
        )

    async def _start_svm(self, setup: SvmSetup) -> None:
        state_file = None
        if not self._own_state_dir:
            assert self.state_dir is not None
            state_file = self.state_dir / svm_state_file(setup.chain_id)
        node = await start_solana(state_file=state_file, setup=setup)
        self.svm[setup.chain_id] = node
        if setup is SOLANA:
            self.solana = node

    async def _start_bitcoin(self) -> None:
        state_file = None
        if not self._own_state_dir:
            assert self.state_dir is not None
            state_file = self.state_dir / BITCOIN_STATE_FILE
        self.bitcoin_node = await start_bitcoin(
            state_file=state_file, host=self.host, speed=self.speed
        )

    @property
    def bitcoin(self) -> BitcoinChain | None:
        """The world's Bitcoin chain (its UTXOs, mempool, blocks and the solver's payments)."""
        return self.bitcoin_node.chain if self.bitcoin_node is not None else None

    def _non_evm_chains(self) -> list[NonEvmChain]:
        assert self.bitcoin_node is not None
        svm = [
            NonEvmChain(
                node.chain_id,
                node.setup.name,
                node.setup.display_name,
                "svm",
                svm_currencies(
                    node.chain_id,
                    str(node.setup.usdc_mint),
                    node.setup.native_symbol,
                    node.setup.native_name,
                ),
                depository=str(node.setup.program.program_id),
                solver_address=str(SOLVER_KEYPAIR.pubkey()),
                rpc_url=node.rpc_url,
                ws_url=node.ws_url,
                lookup_table=str(LOOKUP_TABLE),
            )
            for node in (self.svm[setup.chain_id] for setup in SVM_SETUPS)
        ]
        return [
            *svm,
            NonEvmChain(
                BITCOIN_CHAIN_ID,
                "bitcoin",
                "Bitcoin",
                "bvm",
                bitcoin_currencies(),
                depository=BITCOIN_SOLVER_ADDRESS,  # where a Bitcoin deposit is paid
                solver_address=BITCOIN_SOLVER_ADDRESS,
                rpc_url=self.bitcoin_node.url,
                bitcoin=self.bitcoin_node.chain,
            ),
        ]

    @staticmethod
    def _evm_chain(node: ChainNode, previous_router: str | None) -> EvmChain:
        name, display, symbol, native_name = CHAIN_NAMES[node.chain_id]
        return EvmChain(
            node.chain_id,
            name,
            display,
            usdc=node.usdc,
            depository=node.depository,
            router=node.router,
            previous_router=previous_router,
            rpc_url=node.rpc_url,
            native_symbol=symbol,
            native_name=native_name,
            multicall3=node.multicall3,
            relayer_key=RELAYER_KEY,
        )

    async def _serve(self, app: web.Application) -> str:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        self._runners.append(runner)
        site = web.TCPSite(runner, self.host, 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        return f"http://{_url_host(host)}:{port}"

    def _on_status_change(self, change: StatusChange) -> None:
        """Every committed status change becomes one webhook for the request's API key."""
        record = change.record
        name = record.api_key_name
        secret = self.state.api_keys.secret_for(name) if self.state and name else None
        sender, loop = self.webhook_sender, self._loop
        if not secret or sender is None or loop is None or not sender.has_endpoint(secret):
            return
        payload = self.status_payload(record)
        # the change may be made on any thread; the sender lives on the world's loop
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(sender.enqueue, secret, payload)

    def _push_to_sockets(self, change: StatusChange) -> None:
        """Every committed status change is pushed at once to the sockets subscribed to it."""
        hub, loop = self.status_socket, self._loop
        if hub is None or loop is None:
            return
        data = webhook_data(change.record)
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(hub.publish, data)

    def drop_sockets(self) -> int:
        """Close every status socket, as a rolling deploy does; returns how many were open."""
        hub = self.status_socket
        if hub is None:
            return 0
        return self.call(hub.drop_all)

    @staticmethod
    def status_payload(record: RequestRecord) -> dict[str, Any]:
        """The status webhook of `record` as the public service sends it, in both brands
        (``data.referrer`` whenever the request named one)."""
        data = webhook_data(record)
        return build_status_payload(
            request_id=data["requestId"],
            status=data["status"],
            origin_chain_id=data["originChainId"],
            destination_chain_id=data["destinationChainId"],
            in_tx_hashes=data["inTxHashes"],
            tx_hashes=data["txHashes"],
            updated_at_ms=data["updatedAt"],
            deposit_address=data["depositAddress"],
            details=data["details"],
            fail_reason=data["failReason"] if data["status"] in FAILURE_STATUSES else None,
            refund_fail_reason=data["refundFailReason"],
            referrer=data.get("referrer"),
        )

    def _scanned(self) -> dict[int, int] | None:
        """Where the last solver on this state directory stopped scanning each chain."""
        if self._own_state_dir or self.state_dir is None:
            return None
        try:
            saved = json.loads((self.state_dir / SOLVER_FILE).read_text())
            return {int(chain_id): int(block) for chain_id, block in saved["scanned"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # a first start, or an unreadable file: from the head on

    async def _stop_solver(self, engine: Solver) -> None:
        """Let fills and refunds under way finish (briefly), then keep where scanning got to,
        so a restarted world takes up what was paid after it. A temporary world just stops."""
        kept = not self._own_state_dir and self.state_dir is not None
        if kept:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SOLVER_DRAIN_SECONDS):
                    await engine.idle()
        scanned = engine.scanned()
        await engine.stop()
        if kept and self.state_dir is not None and scanned:
            body = {"scanned": {str(k): v for k, v in scanned.items()}}
            (self.state_dir / SOLVER_FILE).write_text(json.dumps(body) + "\n")

    async def _shutdown(self) -> None:
        steps: list[Callable[[], Awaitable[None]]] = []
        if self.engine is not None:
            engine = self.engine
            steps.append(lambda: self._stop_solver(engine))
        if self.webhook_sender is not None:
            sender = self.webhook_sender
            steps.append(lambda: sender.stop(drain=True, drain_timeout=2.0))
        if self.status_socket is not None:  # open sockets would hold their runner's cleanup
            hub = self.status_socket
            steps.append(lambda: _dropped(hub))
        steps += [runner.cleanup for runner in self._runners]
        steps += [node.stop for node in self.chains.values()]
        steps += [node.stop for node in self.svm.values()]
        if self.bitcoin_node is not None:
            steps.append(self.bitcoin_node.stop)
        for step in steps:
            try:
                await step()
            except Exception:
                log.exception("world shutdown step failed")
        self._runners.clear()
        if self.state is not None:
            self.state.close()
        if self.ledger is not None:
            self.ledger.close()
        if self._own_state_dir and self.state_dir is not None:
            shutil.rmtree(self.state_dir, ignore_errors=True)
        if self._state_lock is not None:  # last: the files are closed and written
            self._state_lock.release()


async def _dropped(hub: StatusSocketHub) -> None:
    await hub.drop_all()


STATE_META_FILE = "world-state.json"
# the world's SVM chains, in /chains order: Solana, then Eclipse (a second SVM chain, so that
# every SVM flow is proven on two chain ids)
SVM_SETUPS = (SOLANA, ECLIPSE)
BITCOIN_STATE_FILE = "chain-8253038.bitcoin.json"
SOLVER_FILE = "solver.json"
SOLVER_DRAIN_SECONDS = 10.0


def svm_state_file(chain_id: int) -> str:
    return f"chain-{chain_id}.solana.json"


def chain_state_file(state_dir: Path, chain_id: int, backend: str) -> Path:
    suffix = "pyevm.bin" if backend == "py-evm" else "anvil.json"
    return state_dir / f"chain-{chain_id}.{suffix}"


def claim_state_dir(state_dir: Path, backend: str) -> None:
    """Remember which backend keeps this directory's chains; refuse the other one (its chains
    would start empty under the service's old requests)."""
    meta = state_dir / STATE_META_FILE
    try:
        kept = json.loads(meta.read_text()).get("backend")
    except FileNotFoundError:
        kept = None
    except (OSError, ValueError, AttributeError) as exc:
        raise WorldError(f"{meta} cannot be read ({exc}); start the world fresh") from None
    if kept is not None and kept != backend:
        raise WorldError(
            f"{state_dir} keeps a world whose chains run on {kept}, not {backend}: use "
            f"--chain-backend {kept}, or start the world fresh"
        )
    if kept is None:
        meta.write_text(json.dumps({"backend": backend}) + "\n")


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
