"""The composition root: the one place that builds crossdeck's clients from the settings.

The CLI's commands and the app ask here for the service client, the venue client, the signer,
the chains' gateways, the journal, the status tracker and the executor, so each is made one way
with one reading of each setting (`max_retries` has its one default, in `config`).
Secrets come in resolved (`read_secrets`, `read_api_key`); nothing here prompts or prints.

Every import of a client package is inside the function that needs it: `crossdeck --help` and
the app's first frame must not pay for httpx, eth-account, web3 or aiohttp before they are used.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.base.secret import Secret
from crossdeck.config import Settings

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.execute.events import SignRequest
    from crossdeck.execute.executor import Executor
    from crossdeck.execute.follow import Follower
    from crossdeck.execute.gateways import GatewayPool
    from crossdeck.execute.journal import Journal
    from crossdeck.portfolio import ChainBalanceReader
    from crossdeck.retry import RetryPolicy
    from crossdeck.track.budget import RateBudget
    from crossdeck.track.policy import PollPolicy
    from crossdeck.track.receiver import WebhookReceiver
    from crossdeck.track.store import StatusStore
    from crossdeck.track.tracker import Problem, StatusTracker
    from crossdeck.venue.client import VenueClient
    from crossdeck.wallet.bitcoin import BitcoinParts
    from crossdeck.wallet.signers import EvmSigner
    from crossdeck.wallet.solana import SolanaParts

Confirm = Callable[["SignRequest"], Awaitable[bool]]


# -- secrets -------------------------------------------------------------------------------------


class Secrets:
    """What the keyring (or the world file) said, read once."""

    def __init__(
        self,
        api_key: Secret | None,
        wallet_address: str | None,
        api_key_problem: str | None = None,
    ) -> None:
        self.api_key = api_key
        self.wallet_address = wallet_address
        self.api_key_problem = api_key_problem

    def __repr__(self) -> str:  # never the key itself
        return (
            f"Secrets(api_key={'set' if self.api_key else 'unset'}, "
            f"wallet_address={self.wallet_address!r})"
        )

    @property
    def api_key_state(self) -> str:
        if self.api_key_problem:
            return f"unknown ({self.api_key_problem})"
        return "set" if self.api_key is not None else "unset"


def read_api_key(settings: Settings) -> tuple[Secret | None, str | None]:
    """The profile's API key, or None and why it could not be read (a broken keyring). The key
    only raises rate limits, so a read goes on without it; the caller says so."""
    from crossdeck.credentials import resolve_api_key

    try:
        key = resolve_api_key(settings)
    except CrossdeckError as exc:
        return None, exc.message
    if key is not None and not key.get_secret_value():
        key = None  # an empty entry is no key
    return key, None


def read_secrets(settings: Settings) -> Secrets:
    """The API key and wallet address of the profile (blocking: call it in a thread)."""
    from crossdeck.credentials import resolve_wallet_address

    api_key, problem = read_api_key(settings)
    try:
        address = resolve_wallet_address(settings)
    except CrossdeckError:
        address = None
    return Secrets(api_key, address, problem)


# -- clients -------------------------------------------------------------------------------------


def retry_policy(settings: Settings, *, venue: bool = False) -> RetryPolicy:
    """How often a request to the service (or the venue) is tried: once plus its section's
    `max_retries`."""
    from crossdeck.retry import RetryPolicy

    section = settings.venue if venue else settings.service
    return RetryPolicy(max_attempts=section.max_retries + 1)


def service_client(
    settings: Settings, api_key: Secret | None, *, for_tracker: bool = False
) -> ServiceClient:
    """The transfer service's client. `for_tracker`: one that never sleeps out a 429 itself,
    because the status tracker paces every request it makes at once (its budget). An access
    token (`credentials.resolve_access_token`) is sent instead of `api_key`, never with it."""
    from crossdeck.api.client import ServiceClient
    from crossdeck.credentials import resolve_access_token
    from crossdeck.retry import NO_RETRY

    section = settings.service
    return ServiceClient(
        section.url,
        api_key=api_key,
        access_token=resolve_access_token(settings),
        quote_api=section.quote_api,
        timeout=section.timeout_seconds,
        retry=NO_RETRY if for_tracker else retry_policy(settings),
    )


def venue_client(settings: Settings) -> VenueClient:
    from crossdeck.venue.client import VenueClient

    return VenueClient(
        settings.venue.url,
        timeout=settings.venue.timeout_seconds,
        retry=retry_policy(settings, venue=True),
    )


def portfolio_readers(settings: Settings, venue: VenueClient) -> dict[str, ChainBalanceReader]:
    """The balance reader of each chain family a portfolio reads (`crossdeck balances`, the
    Portfolio screen): EVM and Solana chains over their RPC (the config's `rpc`, else
    /chains'), the venue over its client."""
    from crossdeck.portfolio.evm_reader import EvmChainReader
    from crossdeck.portfolio.svm_reader import SvmChainReader
    from crossdeck.portfolio.venue_reader import VenueChainReader

    rpc = {cid: str(url) for cid, url in settings.rpc.items()}
    return {
        "evm": EvmChainReader(rpc),
        "svm": SvmChainReader(rpc),
        "venue": VenueChainReader(venue),
    }


def portfolio_owners(settings: Settings, address: str | None = None) -> dict[str, str]:
    """Whose portfolio, per chain family: `address` alone (an EVM one holds on the EVM chains
    and the venue, a Solana one on Solana), else a read-only signer's address alone (`--from`),
    else the profile's wallet on each family it has an address for (blocking: reads the
    keyring). Empty when there is none."""
    from crossdeck.credentials import resolve_solana_address, resolve_wallet_address
    from crossdeck.models.addresses import Family, guess_family

    if address is None and settings.signer.kind == "read-only" and settings.signer.address:
        # `--from ADDR`: that address only; the profile's own Solana wallet is another
        # person's as far as these totals go
        address = settings.signer.address
    if address is not None:
        family = Family.EVM if address.startswith("0x") else guess_family(address)
        if family is Family.EVM:
            return {"evm": address, "venue": address}
        if family is Family.SOLANA:
            return {"svm": address}
        raise InputError(
            f"{address}: balances are read for EVM and Solana addresses, not this one",
            hint="pass an EVM (0x…) or Solana address",
        )
    owners: dict[str, str] = {}
    evm = resolve_wallet_address(settings)
    if evm:
        owners.update(evm=evm, venue=evm)
    try:
        solana = resolve_solana_address(settings)
    except CrossdeckError:
        solana = None  # a keyring without the Solana key: the other chains still show
    if solana:
        owners["svm"] = solana
    return owners


def signer(settings: Settings, password: Secret | None = None) -> EvmSigner:
    """The signer the settings choose, for the signers that need no event loop: a read-only
    address (`--from`), a Foundry keystore (unlocked with its password file, or a prompt on
    the terminal; `password`: the keystore's, when the app asked for it), the world's demo key
    under --world, else the profile's keyring key. The browser wallet is opened with
    `open_signer`. Blocking: call it in a thread from a loop."""
    from crossdeck.credentials import resolve_wallet_key
    from crossdeck.wallet.signer import Signer
    from crossdeck.wallet.signers import KeySigner, ReadOnlySigner, SignerKind

    chosen = settings.signer
    if chosen.kind == "read-only":
        if not chosen.address:
            raise InputError("a read-only signer needs its address", hint="pass --from ADDRESS")
        return ReadOnlySigner(chosen.address)
    if chosen.kind == "browser":
        raise InputError("the browser wallet is opened with open_signer (it serves a page)")
    key = Signer(resolve_wallet_key(settings, password))
    kind: SignerKind = "keyring"
    where = ""
    if chosen.kind == "keystore":
        from crossdeck.credentials import keystore_file

        kind, where = "keystore", str(keystore_file(settings)[0])
    elif settings.world is not None:
        kind, where = "world", str(settings.world.file)
    _expect_address(settings, key.address)
    return KeySigner(key, kind, where)


def wallet_address(settings: Settings) -> str | None:
    """The address the settings' signer signs as, when known without a key (blocking)."""
    from crossdeck.credentials import resolve_wallet_address

    try:
        return resolve_wallet_address(settings)
    except CrossdeckError:
        return None


def signer_words(settings: Settings, address: str | None) -> str:
    """Who will sign, in the words of `SignerSource.words`, before the signer is opened (the
    app's confirm dialog and Settings; a browser wallet's address is known once it connected)."""
    from crossdeck.wallet.signers import SignerKind, SignerSource

    chosen = settings.signer
    kind: SignerKind = chosen.kind
    where = ""
    if kind == "keyring" and settings.world is not None:
        kind, where = "world", str(settings.world.file)
    elif kind == "keystore":
        from crossdeck.credentials import keystore_file

        where = str(keystore_file(settings)[0])
    if address is None:
        return {
            "browser": "your browser wallet (it connects when a run starts): confirm there",
            "keystore": f"the keystore {where}",
        }.get(kind, "no wallet")
    return SignerSource(kind, address, where).words()


def _expect_address(settings: Settings, address: str) -> None:
    """`--from` beside a signer names the address it must sign as (as in cast)."""
    expected = settings.signer.address
    if settings.signer.kind != "read-only" and expected and expected.lower() != address.lower():
        raise InputError(
            f"the signer is {address}, not {expected} (--from)",
            hint="drop --from, or choose the signer of that address",
        )


async def open_signer(
    settings: Settings,
    announce: Callable[[str], None] | None = None,
    password: Secret | None = None,
) -> EvmSigner:
    """The signer the settings choose, ready to sign. The browser wallet serves its page on
    127.0.0.1, `announce`s its URL (with its token: show it to the user only, never log it),
    opens it in the system browser unless told not to, and returns once the wallet has
    connected; the others are `signer`'s, built in a thread."""
    import asyncio

    if settings.signer.kind != "browser":
        return await asyncio.to_thread(signer, settings, password)
    from crossdeck.wallet.browser import BrowserSigner

    chosen = settings.signer
    browser = await BrowserSigner.start(
        port=chosen.browser_port,
        announce=announce,
        open_browser=chosen.browser_open,
    )
    try:
        _expect_address(settings, browser.address)
    except InputError:
        await browser.aclose()
        raise
    return browser


def gateways(settings: Settings) -> GatewayPool:
    """One EVM gateway per configured chain, each made on first use."""
    from crossdeck.execute.gateways import GatewayPool
    from crossdeck.models.addresses import Family, family_of

    # EVM chains only (by what is known of the id without /chains; an SVM chain's RPC in the
    # pool is never asked for: the executor asks it only for the chains /chains says are EVM):
    # an SVM chain's RPC is the SVM gateway's (`solana_parts`), Bitcoin's API the Bitcoin
    # gateway's (`bitcoin_parts`)
    evm = {k: v for k, v in settings.rpc.items() if family_of(k) is Family.EVM}
    return GatewayPool(evm, reuse_reads_for=READS_REUSED_FOR)


READS_REUSED_FOR = 1.0
"""Seconds a run's gateways give a balance or gas estimate once more (`EvmGateway`): the checks
before the first signature and that signature's own, milliseconds apart, ask the node once."""


def solana_parts(settings: Settings, *, fee_payer: Secret | None = None) -> SolanaParts | None:
    """The SVM key and the RPC of each chain (the settings' `rpc` by chain id: the runner asks
    it only for chains /chains lists as SVM) when the profile has a key, else None;
    `fee_payer`: the key of a depositFeePayer given for this run
    (`bridge --deposit-fee-payer-keypair`), held in memory."""
    from crossdeck.credentials import resolve_solana_key

    key = resolve_solana_key(settings)
    if key is None:
        return None
    from crossdeck.wallet.solana import SolanaKeySigner, SolanaParts

    kind = "world" if settings.world is not None else "keyring"
    payer = SolanaKeySigner(fee_payer) if fee_payer is not None else None
    rpc = {chain_id: str(url) for chain_id, url in settings.rpc.items()}
    return SolanaParts(SolanaKeySigner(key, kind), rpc, payer)


def bitcoin_parts(settings: Settings) -> BitcoinParts | None:
    """The Bitcoin key and Esplora-style API when the profile has both, else None."""
    from crossdeck.credentials import resolve_bitcoin_key
    from crossdeck.models.addresses import BITCOIN_CHAIN_ID

    url = settings.rpc.get(BITCOIN_CHAIN_ID)
    if url is None:
        return None
    key = resolve_bitcoin_key(settings)
    if key is None:
        return None
    from crossdeck.wallet.bitcoin import BitcoinKeySigner, BitcoinParts, EsploraGateway

    kind = "world" if settings.world is not None else "keyring"
    return BitcoinParts(BitcoinKeySigner(key, kind), EsploraGateway(url))


def journal(settings: Settings) -> Journal:
    from crossdeck.execute.journal import Journal

    return Journal.in_data_dir(settings.data_dir)


def status_store(settings: Settings) -> StatusStore:
    from crossdeck.track.store import StatusStore

    return StatusStore.in_data_dir(settings.data_dir)


def poll_policy(settings: Settings, *, timeout: float | None = None) -> PollPolicy:
    """The one polling policy, from `settings.tracking`; `timeout` replaces how long a run
    follows its request (`--timeout`)."""
    from crossdeck.track.policy import PollPolicy

    if timeout is None:
        return PollPolicy.from_settings(settings.tracking)
    if timeout <= 0:
        raise InputError("--timeout must be a positive number of seconds")
    return PollPolicy.from_settings(settings.tracking, timeout=timeout)


def status_tracker(
    settings: Settings,
    client: ServiceClient,
    *,
    store: StatusStore | None = None,
    budget: RateBudget | None = None,
    policy: PollPolicy | None = None,
    on_problem: Callable[[Problem], None] | None = None,
    api_key: Secret | None = None,
) -> StatusTracker:
    """A status tracker over `client` (polls; webhooks when a receiver is attached), and the
    service's status websocket when `tracking.websocket` is on and has a URL (`api_key`, else
    the client's, goes in its `?apiKey=`)."""
    from crossdeck.track.tracker import StatusTracker

    tracker = StatusTracker(
        client,
        store=store,
        budget=budget,
        policy=policy or poll_policy(settings),
        on_problem=on_problem,
    )
    tracking = settings.tracking
    if tracking.websocket and tracking.websocket_url:
        # the client's own key: no second keyring read (a file keyring may ask its password)
        key = api_key if api_key is not None else client.api_key
        tracker.use_socket(tracking.websocket_url, api_key=key)
    return tracker


def webhook_receiver(settings: Settings, api_key: Secret) -> WebhookReceiver:
    """A receiver of status webhooks, verified with the API key (imports aiohttp); started by
    the caller on `settings.webhook.host` and a port."""
    from crossdeck.track.receiver import WebhookReceiver

    return WebhookReceiver(api_key, path=settings.webhook.path)


def signing_chain_id(settings: Settings, signer: EvmSigner) -> int:
    """The chain id the venue's and the authorize signatures name: the setting, or the chain
    the browser wallet is on when it connected (a wallet signs typed data only for its active
    chain; the seed's chain-id override, 4.4, lets the domain name any)."""
    active = getattr(signer, "active_chain_id", None)
    return active if isinstance(active, int) and active > 0 else settings.signing_chain_id


def executor(
    settings: Settings,
    *,
    service: ServiceClient,
    venue: VenueClient,
    signer: EvmSigner,
    confirm: Confirm,
    follower: Follower,
    trust_quote: bool = False,
    solana_fee_payer: Secret | None = None,
) -> Executor:
    """An executor for one run: its gateways and journal are its own (`Executor.aclose` and
    `executor.journal.close()`); the clients, the signer and the follower are the caller's."""
    from crossdeck.execute.executor import Collaborators, Executor, RunOptions

    parts = Collaborators(
        service,
        venue,
        signer,
        gateways(settings),
        journal(settings),
        follower=follower,
        solana=solana_parts(settings, fee_payer=solana_fee_payer),
        bitcoin=bitcoin_parts(settings),
    )
    options = RunOptions(
        signing_chain_id=signing_chain_id(settings, signer),
        trust_quote=trust_quote,
        fee_cap_multiple=settings.guards.fee_cap_multiple,
        gas_limit_multiple=settings.guards.gas_limit_multiple,
        bitcoin_fee_multiple=settings.guards.bitcoin_fee_multiple,
        service_name=settings.service.name,
    )
    return Executor(parts, confirm=confirm, options=options)


# what a run imports after its quote (the executor, its EVM runner, the status tracker and its
# socket, the venue client, the final record's reader), in the order a run needs them
RUN_MODULES = (
    "crossdeck.execute.executor",
    "crossdeck.track.tracker",
    "crossdeck.venue.client",
    "crossdeck.execute.tx_runner",
    "crossdeck.execute.came_back_at_end",
    "crossdeck.history.came_back",
)


def load_run_modules() -> None:
    """Import RUN_MODULES (from a thread while the quote is awaited: the imports take the CPU
    the wait leaves idle). Only time is at stake: a module not loaded here loads when used."""
    import importlib

    for name in RUN_MODULES:
        importlib.import_module(name)
