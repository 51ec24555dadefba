"""The journalled template every item of a run goes through, whatever its kind.

    intent -> confirm -> sign -> journal the signed bytes -> crash point -> send
    (or, resumed: whatever was journalled as signed or sent is found or sent again as is)

`ItemRunner.run` is that order, once; a runner per kind (`execute.tx_runner`,
`execute.signature_runner`, `execute.venue_runner`, and the Solana and Bitcoin runners through
`execute.polled_runner`, which sends and follows for both) says only what differs: how the item
is checked and described (`prepare`), how it is signed (`sign`), how it is sent (`send`) and
how an item journalled as signed is finished (`finish`). `Workshop` is what they share: the
collaborators, the run's options, the /chains answer and the guards.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from crossdeck.base.concurrently import answer
from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.crash import crash_point
from crossdeck.execute.errors import Declined, ExecutionError
from crossdeck.execute.events import (
    AwaitingConfirmation,
    AwaitingSignature,
    ItemSkipped,
    RunEvent,
    Signed,
    SignRequest,
    StepStarted,
)
from crossdeck.execute.follow import Follower
from crossdeck.execute.gateways import Gateways
from crossdeck.execute.guards import (
    GuardResult,
    check_item,
    check_quote,
    payment_chain,
    refused,
)
from crossdeck.execute.guards.chain import DEFAULT_FEE_CAP_MULTIPLE
from crossdeck.execute.guards.funds import funds_guard, solana_funds_guard, venue_funds_guard
from crossdeck.execute.guards.gas import DEFAULT_GAS_LIMIT_MULTIPLE, quote_gas_guards
from crossdeck.execute.guards.request import no_request_guard
from crossdeck.execute.guards.simulation import simulated_chain, simulation_guard
from crossdeck.execute.guards.venue_words import spot_meta_for
from crossdeck.execute.journal import ItemRecord, Journal
from crossdeck.models import ChainsResponse, Quote, QuoteRequest, StatusV3, Step, StepItem

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.models.venue import SpotMeta
    from crossdeck.venue.client import VenueClient
    from crossdeck.wallet.bitcoin import BitcoinParts
    from crossdeck.wallet.signers import EvmSigner
    from crossdeck.wallet.solana import SolanaParts

Confirm = Callable[[SignRequest], Awaitable[bool]]

GAS_MARGIN_PERCENT = 20


@dataclass
class Collaborators:
    """What an executor works with (built once from the settings by the composition root);
    `follower` is the one status engine (`track.StatusTracker`) the caller runs."""

    service: ServiceClient
    venue: VenueClient
    signer: EvmSigner
    gateways: Gateways
    journal: Journal
    follower: Follower
    solana: SolanaParts | None = None
    """The Solana key and RPC, when the profile has both (`execute.solana_runner`)."""
    bitcoin: BitcoinParts | None = None
    """The Bitcoin key and API, when the profile has both (`execute.bitcoin_runner`)."""


@dataclass(frozen=True)
class RunOptions:
    """How a run checks and signs (the settings an executor is made with)."""

    signing_chain_id: int = 1
    """Goes into the authorize domain and body (4.4 override) and the SendAsset domain and
    signatureChainId."""
    trust_quote: bool = False
    """Run a quote without the request that produced it (`--trust-quote`)."""
    fee_cap_multiple: float = DEFAULT_FEE_CAP_MULTIPLE
    gas_limit_multiple: float = DEFAULT_GAS_LIMIT_MULTIPLE
    bitcoin_fee_multiple: float = 3.0
    """A PSBT's fee rate may be at most this multiple of the node's fastest estimate."""
    service_name: str | None = None
    """The service's name (`service.name`): a NonceMapping domain is it + 'NonceMapping'."""
    gas_margin_percent: int = GAS_MARGIN_PERCENT
    receipt_timeout: float = 120.0
    receipt_poll: float = 0.25


@dataclass
class Run:
    """One run of a quote: the executor's own copy of it (appended steps go in here)."""

    request_id: str
    quote: Quote
    request: QuoteRequest | None
    signing_chain_id: int
    deposit_amount: int | None
    acted: bool = False
    """The client acted on the request in this call (sent, posted, submitted something)."""


@dataclass
class Item:
    """One item of a run's step, where the runners see it."""

    run: Run
    step_index: int
    item_index: int
    step: Step
    data: StepItem

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.run.request_id, self.step_index, self.item_index)

    @property
    def where(self) -> str:
        return f"step '{self.step.id}' item {self.item_index}"


@dataclass(frozen=True)
class Prepared:
    """What `prepare` made: the request shown to the user, the intent's journal fields and
    what `sign` and `send` need (the runner's own)."""

    request: SignRequest
    intent: dict[str, Any]
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Workshop:
    """What the runners share with the executor (mutable: tests swap `confirm`, `gateways`)."""

    parts: Collaborators
    follower: Follower
    confirm: Confirm
    options: RunOptions
    chains: ChainsResponse | None = None
    spot_meta: SpotMeta | None = None
    """The venue's spotMeta, read with /chains for a quote that transfers on the venue: the
    names its sendAsset tokens must carry."""

    def rpc_chain_ids(self, quote: Quote) -> frozenset[int]:
        """Chains with an RPC: the configured ones, or those a gateway factory can serve."""
        known = self.parts.gateways.chain_ids
        if known is not None:
            return known
        chains = {tx.chain_id for tx in quote.transactions()}
        gateways = self.parts.gateways
        return frozenset(c for c in chains if c is not None and gateways.get(c) is not None)

    async def chains_for(
        self, quote: Quote, known: ChainsResponse | None = None
    ) -> ChainsResponse | None:
        if self.chains is None and known is not None:
            self.chains = known
        if self.spot_meta is None:
            self.spot_meta = await spot_meta_for(quote, self.parts.venue)
        if self.chains is None and quote.steps:
            try:
                self.chains = await self.parts.service.recent_chains()
            except CrossdeckError:
                return None
        adopt = getattr(self.parts.gateways, "adopt", None)  # a GatewayPool's, not a test's
        if self.chains is not None and adopt is not None:
            adopt(self.chains)  # an RPC for each chain the settings name none for
        return self.chains

    def wallet_for(self, quote: Quote) -> str | None:
        """The address that signs `quote`'s items: the Solana key's for a quote paid with
        Solana items, the Bitcoin key's for one paid with a PSBT, else the EVM signer's."""
        kinds = {item.kind_of_data for step in quote.steps for item in step.items}
        if "bitcoin" in kinds:
            return self.parts.bitcoin.signer.address if self.parts.bitcoin is not None else None
        solana = "solana" in kinds
        if not solana:
            return self.parts.signer.address
        return self.parts.solana.signer.address if self.parts.solana is not None else None

    def quote_guards(self, quote: Quote, request: QuoteRequest | None) -> list[GuardResult]:
        return check_quote(
            quote,
            wallet=self.wallet_for(quote),
            rpc_chain_ids=self.rpc_chain_ids(quote),
            chains=self.chains,
            request=request,
            service_name=self.options.service_name,
            spot_meta=self.spot_meta,
        )

    def run_guards(self, run: Run) -> list[GuardResult]:
        """Every guard over the run's quote (what `run` and `resume` check first)."""
        results = self.quote_guards(run.quote, run.request)
        if run.request is None:
            results.insert(0, no_request_guard(self.options.trust_quote))
        return results

    async def funds_guards(self, quote: Quote) -> list[GuardResult]:
        address, venue = self.parts.signer.address, self.parts.venue
        venue_results = await venue_funds_guard(quote, address, venue)
        if venue_results:
            return venue_results
        chain_id = payment_chain(quote, self.chains).chain_id
        solana = self.parts.solana
        wallet = self.wallet_for(quote)
        if wallet != address:  # (an EVM quote never reads the other families' keys)
            if self.parts.bitcoin is not None and wallet == self.parts.bitcoin.signer.address:
                return []  # the PSBT spends named UTXOs: the runner holds them to the node's
            # an SVM payment, on its chain's RPC (the simulation right before signing is the
            # exact check)
            svm = solana.gateway(chain_id) if solana is not None and chain_id is not None else None
            if solana is None or svm is None:
                return []
            return await solana_funds_guard(quote, solana.signer.address, svm)
        gateway = self.parts.gateways.get(chain_id) if chain_id is not None else None
        gas_multiple = self.options.gas_limit_multiple
        # both read the node and neither reads what the other does: at once
        funds, gas = await asyncio.gather(
            funds_guard(quote, address, chain_id, gateway),
            quote_gas_guards(quote, address, self.parts.gateways, gas_multiple),
            return_exceptions=True,
        )
        return answer(funds) + answer(gas)

    async def simulation_guards(
        self, quote: Quote, start: tuple[int, int] = (0, 0)
    ) -> list[GuardResult]:
        """`balance-changes`: the pending transactions from `start` on, simulated and held to
        the quote, when one of them has calldata the decoders cannot read (else nothing)."""
        chain_id = simulated_chain(quote, start)
        if chain_id is None:
            return []
        gateway = self.parts.gateways.get(chain_id)
        return await simulation_guard(quote, self.parts.signer.address, gateway, start)

    def item_guards(self, item: Item) -> list[GuardResult]:
        run = item.run
        trusted = [no_request_guard(self.options.trust_quote)] if run.request is None else []
        return trusted + check_item(
            run.quote,
            item.step_index,
            item.item_index,
            wallet=self.wallet_for(run.quote),
            rpc_chain_ids=self.rpc_chain_ids(run.quote),
            chains=self.chains,
            request=run.request,
            service_name=self.options.service_name,
            spot_meta=self.spot_meta,
        )

    async def ask(self, request: SignRequest) -> None:
        if not await self.confirm(request):
            raise Declined(request.title)

    async def fetch_status(self, run: Run) -> StatusV3:
        endpoint = _v3_check_endpoint(run.quote)
        if endpoint is not None:
            answer = await self.parts.service.check(endpoint)
            if isinstance(answer, StatusV3):
                return answer
        return await self.parts.service.status_v3(run.request_id)

    async def deposit_seen(self, run: Run) -> bool:
        """The service has seen the request's deposit: it lists an origin tx, or its status
        is one only a deposit leads to. 'failure' alone says nothing (a quote can expire)."""
        try:
            status = await self.fetch_status(run)
        except CrossdeckError:
            return False
        return bool(status.in_tx_hashes) or status.follows_a_deposit

    def acted(self, run: Run) -> None:
        """The client just acted on the request: the follower looks again soon."""
        run.acted = True
        self.follower.nudge(run.request_id)


async def item_events(
    item: Item, runners: Mapping[str, ItemRunner], journal: Journal
) -> AsyncIterator[RunEvent]:
    """One item of a run, from where the journal says it stands: done or marked so by the
    quote, it is skipped; journalled as signed or sent, its runner finishes it; only intended
    (nothing left the machine), it starts over."""
    step, item_index, data = item.step, item.item_index, item.data
    record = journal.item(*item.key)
    if record is not None and record.state == "done":
        yield ItemSkipped(step.id, item_index, "already done")
        return
    if record is not None and record.state == "reverted":  # resume refuses these first
        raise ExecutionError(
            f"transaction {record.tx_hash} ({step.id}) reverted; ask for a new quote"
        )
    if record is None and not data.is_incomplete:
        yield ItemSkipped(step.id, item_index, f"the quote marks it {data.status!r}")
        return
    kind = data.kind_of_data
    yield StepStarted(step.id, item.step_index, item_index, kind, step.action, step.description)
    runner = runners.get(kind)
    if runner is None:  # the guards refuse these first; this is the last line
        raise refused("step-kind", "unknown item kind", f"step '{step.id}'")
    if record is not None and record.state == "intent":
        journal.forget_intent(*item.key)
        record = None
    async for event in runner.run(item, record):
        yield event


class ItemRunner(ABC):
    """One kind of item through the journalled template."""

    def __init__(self, shop: Workshop) -> None:
        self.shop = shop

    @property
    def journal(self) -> Journal:
        return self.shop.parts.journal

    async def run(self, item: Item, record: ItemRecord | None) -> AsyncIterator[RunEvent]:
        if record is not None:  # signed (maybe sent) before an interruption
            async for event in self.finish(item, record):
                yield event
            return
        prepared = await self.prepare(item)
        request = prepared.request
        if request.kind == "transaction":
            yield AwaitingConfirmation(request)
        else:
            yield AwaitingSignature(request)
        await self.shop.ask(request)
        self.journal.record(*item.key, "intent", step_id=item.step.id, **prepared.intent)
        signed = await self.sign(prepared)
        self.journal.record(*item.key, "signed", **signed)
        yield Signed(item.step.id, item.item_index, request.kind)
        crash_point("after-sign", item.step.id)
        async for event in self.send(item, prepared, signed):
            yield event

    @abstractmethod
    async def prepare(self, item: Item) -> Prepared:
        """Guards, then exactly what will be signed; raises `GuardRefused` first."""

    @abstractmethod
    async def sign(self, prepared: Prepared) -> dict[str, Any]:
        """Sign; the journal fields of the `signed` record (written before anything leaves;
        for a wallet that sends itself, the hash it returned, written at once)."""

    @abstractmethod
    def send(
        self, item: Item, prepared: Prepared, signed: dict[str, Any]
    ) -> AsyncIterator[RunEvent]:
        """Send what was just signed."""

    @abstractmethod
    def finish(self, item: Item, record: ItemRecord) -> AsyncIterator[RunEvent]:
        """Resume an item journalled as signed or sent: find it, or send the same again."""


def _v3_check_endpoint(quote: Quote) -> str | None:
    """The first item's check endpoint, moved to /intents/status/v3 (facts.md: the SDK does
    the same; v3 adds failReason and refundFailReason)."""
    for step in quote.steps:
        for item in step.items:
            endpoint = item.check.endpoint if item.check else None
            if not endpoint:
                continue
            url = httpx.URL(endpoint)
            if not url.is_relative_url:
                return None  # the service client resolves absolute ones itself
            path = url.path.rstrip("/")
            if path.endswith("/intents/status"):
                query = f"?{url.query.decode()}" if url.query else ""
                return f"{path}/v3{query}"
            if path.endswith("/intents/status/v3"):
                return endpoint
            return None
    return None
