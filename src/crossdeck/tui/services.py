"""The layers the app talks to, built lazily from the settings by the composition root.

Nothing here imports textual, and every layer is imported on first use only, so opening the app
stays quick: the service client (httpx, the models) by the first screen's /chains read, which
starts once the first frame is drawn; the signer's eth-account and the webhook receiver's
aiohttp later still. Clients are made by `crossdeck.compose` (as the CLI's are) the first time
a worker asks for them, inside the app's running loop, and closed by `aclose()`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from crossdeck import compose
from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.compose import Secrets, read_secrets
from crossdeck.config import Settings

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.base.secret import Secret
    from crossdeck.execute.events import SignRequest
    from crossdeck.execute.executor import Executor
    from crossdeck.models import ChainsResponse
    from crossdeck.models.venue import SpotMeta
    from crossdeck.track.receiver import WebhookReceiver
    from crossdeck.track.tracker import Problem, StatusTracker
    from crossdeck.venue.client import VenueClient
    from crossdeck.wallet.signers import EvmSigner

# the app names Secrets and read_secrets through this module; the composition root defines them
__all__ = ["Secrets", "Services", "read_secrets"]

# What the first quote (ctrl+r) builds that the first screen's /chains read did not: the quote
# request's and the quote's pydantic classes (steps, statuses, Solana and Bitcoin data), some
# 40 ms. `warm_up` imports them in the background once the first screen has its data.
QUOTE_MODULES = ("crossdeck.models.quote_request", "crossdeck.models.quote")


class Services:
    def __init__(self, settings: Settings, secrets: Secrets | None = None) -> None:
        self.settings = settings
        self.secrets = secrets
        self._service: ServiceClient | None = None
        self._venue: VenueClient | None = None
        self._signer: EvmSigner | None = None
        self.announce_signer: Callable[[str], None] | None = None
        """Told the browser wallet page's URL (with its token: never logged or drawn)."""
        self.browser_url: str | None = None
        """The browser wallet page's full URL while it serves (the palette copies it)."""
        self.keystore_password: Secret | None = None
        """The keystore's password from the app's dialog, taken by the next `signer()`."""
        self._chains: ChainsResponse | None = None
        self._spot_meta: SpotMeta | None = None
        self._chains_lock = asyncio.Lock()
        self._tracker: StatusTracker | None = None
        self._tracker_client: ServiceClient | None = None
        self._tracker_lock = asyncio.Lock()
        self._on_problem: Callable[[Problem], None] | None = None
        self._receiver: WebhookReceiver | None = None

    def __repr__(self) -> str:
        return f"Services(profile={self.settings.profile!r})"

    # -- secrets -----------------------------------------------------------------------------

    async def load_secrets(self) -> Secrets:
        if self.secrets is None:
            self.secrets = await asyncio.to_thread(read_secrets, self.settings)
        return self.secrets

    @property
    def wallet_address(self) -> str | None:
        return self.secrets.wallet_address if self.secrets else None

    @property
    def solana_address(self) -> str | None:
        """The profile's Solana wallet (the world's, or the keyring's), read once."""
        if not hasattr(self, "_solana_address"):
            from crossdeck.base.errors import CrossdeckError
            from crossdeck.credentials import resolve_solana_address

            try:
                self._solana_address = resolve_solana_address(self.settings)
            except CrossdeckError:
                self._solana_address = None
        return self._solana_address

    @property
    def bitcoin_address(self) -> str | None:
        """The profile's Bitcoin wallet (the world's, or the keyring's), read once."""
        if not hasattr(self, "_bitcoin_address"):
            from crossdeck.base.errors import CrossdeckError
            from crossdeck.credentials import resolve_bitcoin_address

            try:
                self._bitcoin_address = resolve_bitcoin_address(self.settings)
            except CrossdeckError:
                self._bitcoin_address = None
        return self._bitcoin_address

    # -- clients -----------------------------------------------------------------------------

    @property
    def _api_key(self) -> Secret | None:
        return self.secrets.api_key if self.secrets else None

    @property
    def service(self) -> ServiceClient:
        if self._service is None:
            self._service = compose.service_client(self.settings, self._api_key)
        return self._service

    @property
    def venue(self) -> VenueClient:
        if self._venue is None:
            self._venue = compose.venue_client(self.settings)
        return self._venue

    @property
    def signer_kind(self) -> str:
        return self.settings.signer.kind

    @property
    def signer_words(self) -> str:
        """Who will sign, in words (the confirm dialog, Settings): the open signer's own."""
        if self._signer is not None:
            return self._signer.source.words()
        try:
            return compose.signer_words(self.settings, self.wallet_address)
        except CrossdeckError as exc:
            return f"unusable signer: {exc.message}"

    def _announce(self, url: str) -> None:
        self.browser_url = url
        if self.announce_signer is not None:
            self.announce_signer(url)

    async def signer(self) -> EvmSigner:
        """The signer the settings choose, opened for a run (the keyring key, a keystore
        unlocked with `keystore_password` or its password file, the browser wallet's page, or a
        read-only address). It must be the address the app quotes for."""
        if self._signer is None:
            password, self.keystore_password = self.keystore_password, None
            opened = await compose.open_signer(self.settings, self._announce, password)
            known = self.wallet_address
            if known and opened.address.lower() != known.lower():
                await opened.aclose()
                self.browser_url = None
                raise InputError(
                    f"the signer is {opened.address}, not {known}, the address this app quotes for",
                    hint="connect that account in the wallet, or choose the signer again in "
                    "Settings",
                )
            self._signer = opened
        return self._signer

    async def learn_signer_address(self) -> str:
        """A browser wallet's address, before any run: its page serves until the wallet
        connects, then stops."""
        signer = await compose.open_signer(self.settings, self._announce)
        try:
            if self.secrets is not None:
                self.secrets.wallet_address = signer.address
            return signer.address
        finally:
            await signer.aclose()
            self.browser_url = None

    async def close_signer(self) -> None:
        """Let the signer go at a run's end: the browser page stops serving, a keystore's key
        is dropped; the next run opens it again."""
        signer, self._signer = self._signer, None
        self.browser_url = None
        if signer is not None:
            await signer.aclose()

    async def use_signer(self, chosen: dict[str, Any]) -> None:
        """Sign with another signer from now on (the Settings screen): its settings section
        replaced, the open signer let go, the wallet address read again. A keystore that is
        not there (or is no keystore) is refused first, with an error naming its path, and
        the signer in use is kept."""
        from crossdeck.config import SignerSettings, parse_section

        section = parse_section(SignerSettings, chosen, where="signer")
        switched = dataclasses.replace(self.settings, signer=section)
        if section.kind == "keystore":
            from crossdeck.credentials import resolve_wallet_address

            await asyncio.to_thread(resolve_wallet_address, switched)  # reads the file
        await self.close_signer()
        self.settings = switched
        if self.secrets is not None:
            self.secrets.wallet_address = await asyncio.to_thread(
                compose.wallet_address, self.settings
            )

    async def executor(self, confirm: Callable[[SignRequest], Awaitable[bool]]) -> Executor:
        """A new executor for one run (its journal and chain gateways are its own; close it
        with `close_executor`). Imported in a thread: eth-account is heavy."""
        signer = await self.signer()
        # the app's tracker (polls merged with webhooks) follows the run: one poller, not two;
        # a run started before Live status started it starts it now
        follower = await self.start_tracking()

        def build() -> Executor:
            return compose.executor(
                self.settings,
                service=self.service,
                venue=self.venue,
                signer=signer,
                confirm=confirm,
                follower=follower,
            )

        return await asyncio.to_thread(build)

    async def close_executor(self, executor: Executor) -> None:
        await executor.aclose()
        executor.journal.close()
        await self.close_signer()

    async def warm_up(self) -> None:
        """Import what the first quote needs (`QUOTE_MODULES`), in a thread: the screen stays
        responsive meanwhile, and the first ctrl+r does not wait for the imports."""

        def load() -> None:
            for name in QUOTE_MODULES:
                importlib.import_module(name)

        await asyncio.to_thread(load)

    # -- cached reads ------------------------------------------------------------------------

    async def chains(self, *, refresh: bool = False) -> ChainsResponse:
        async with self._chains_lock:
            if self._chains is None or refresh:
                self._chains = await self.service.chains()
            return self._chains

    @property
    def cached_chains(self) -> ChainsResponse | None:
        return self._chains

    async def spot_meta(self, *, refresh: bool = False) -> SpotMeta:
        if self._spot_meta is None or refresh:
            self._spot_meta = await self.venue.spot_meta()
        return self._spot_meta

    # -- status tracking ---------------------------------------------------------------------

    @property
    def tracker(self) -> StatusTracker | None:
        return self._tracker

    async def start_tracking(
        self, on_problem: Callable[[Problem], None] | None = None
    ) -> StatusTracker:
        """The status tracker (v3 polls, and webhooks when an API key is set), started once;
        its problems go to the latest `on_problem` handed in (whoever starts it first)."""
        if on_problem is not None:
            self._on_problem = on_problem
        async with self._tracker_lock:  # two callers at once must not build two trackers
            if self._tracker is not None:
                return self._tracker
            # the tracker paces itself on 429s, so its client must not sleep them out
            self._tracker_client = compose.service_client(
                self.settings, self._api_key, for_tracker=True
            )
            store = await asyncio.to_thread(compose.status_store, self.settings)
            tracker = compose.status_tracker(
                self.settings, self._tracker_client, store=store, on_problem=self._problem
            )
            tracker.start()
            self._tracker = tracker
            return tracker

    def _problem(self, problem: Problem) -> None:
        if self._on_problem is not None:
            self._on_problem(problem)

    async def start_webhooks(self) -> str:
        """Receive status webhooks (verified with the API key); returns the receiver's URL.
        Raises CrossdeckError when there is no API key to verify them with."""
        if self._receiver is not None:
            return self._receiver.url
        api_key = self._api_key
        if api_key is None:
            raise CrossdeckError(
                "no API key: webhooks are signed with it",
                hint="set one with `crossdeck apikey set` to receive webhooks",
            )
        # aiohttp is a heavy import: in a thread, so the UI does not stall while it loads
        await asyncio.to_thread(importlib.import_module, "crossdeck.track.receiver")
        receiver = compose.webhook_receiver(self.settings, api_key)
        hook = self.settings.webhook
        await receiver.start(hook.host, hook.port)
        self._receiver = receiver
        if self._tracker is not None:
            self._tracker.attach(receiver)
        return receiver.url

    async def aclose(self) -> None:
        await self.close_signer()
        if self._tracker is not None:
            await self._tracker.aclose()
            if self._tracker.store is not None:
                self._tracker.store.close()
            self._tracker = None
        if self._receiver is not None:
            await self._receiver.stop()
            self._receiver = None
        for client in (self._service, self._venue, self._tracker_client):
            if client is not None:
                await client.aclose()
        self._service = self._venue = self._tracker_client = None

    def describe(self) -> dict[str, Any]:
        """Display values for the Settings screen; secrets only as set/unset."""
        settings = self.settings
        return {
            "profile": settings.profile,
            "service": settings.service.url,
            "venue": settings.venue.url,
            "rpc": dict(settings.rpc),
            "wallet": self.wallet_address or "none",
            "api_key": self.secrets.api_key_state if self.secrets else "not read yet",
            "signing_chain_id": settings.signing_chain_id,
            "signer": self.signer_words,
        }
