"""`Executor`: runs a quote's steps in order and follows the request to a final status.

    parts = Collaborators(service, venue, signer, gateways, journal, follower)
    executor = Executor(parts, confirm=ask)
    async for event in executor.run(quote):
        render(event)

Order: steps in order, items in order, only `incomplete` items; a POST answer that carries
`steps` appends them. Guards run over the whole quote before the first signature and again per
item right before it is signed; `confirm(SignRequest)` is awaited before EVERY signature or
transaction, after the request shows exactly what will be signed.

Each item goes through one journalled template (`execute.items`: intent -> signed -> sent ->
done, the signed bytes written before they leave the machine) by the runner of its kind
(`tx_runner`, `signature_runner`, `venue_runner`), so `resume(request_id)` finishes an
interrupted run without signing a second transaction or posting a second transfer. The request
is then followed through the `track` engine (`execute.follow`), nudged after each action.

Errors never escape `run`/`resume` as exceptions: they end the stream with a `Failed` event
carrying the error's words and exit code (bugs, i.e. non-crossdeck exceptions, still raise).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.execute.children_at_end import pays_a_deposit_address, settled_children
from crossdeck.execute.events import (
    Finished,
    GuardsChecked,
    Note,
    RunEvent,
    RunStarted,
    SignRequest,
)
from crossdeck.execute.follow import Follower, status_events
from crossdeck.execute.guards import GuardRefused, GuardResult, require
from crossdeck.execute.items import (
    Collaborators,
    Confirm,
    Item,
    ItemRunner,
    Run,
    RunOptions,
    Workshop,
    item_events,
)
from crossdeck.execute.journal import Journal
from crossdeck.execute.run_record import check_deposit_amount, failed, resumable_run
from crossdeck.models import ChainsResponse, Quote, QuoteRequest

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.execute.gateways import Gateways
    from crossdeck.venue.client import VenueClient
    from crossdeck.wallet.signers import EvmSigner, SignerSource

__all__ = ["Collaborators", "Executor", "RunOptions", "approve_all"]


async def approve_all(_request: SignRequest) -> bool:
    """A `confirm` for callers that confirmed the whole quote up front (`--yes`)."""
    return True


class Executor:
    def __init__(
        self, parts: Collaborators, *, confirm: Confirm, options: RunOptions | None = None
    ) -> None:
        """The collaborators, the follower among them, are the caller's to close; the
        executor closes only the gateways it opened."""
        options = options or RunOptions()
        chain_id = options.signing_chain_id
        if isinstance(chain_id, bool) or chain_id <= 0:
            raise InputError(f"signing chain id must be a positive integer, not {chain_id}")
        self._shop = Workshop(parts, parts.follower, confirm, options)
        self._runners = _Runners(self._shop)

    # -- the collaborators, by name ----------------------------------------------------------

    @property
    def service(self) -> ServiceClient:
        return self._shop.parts.service

    @property
    def venue(self) -> VenueClient:
        return self._shop.parts.venue

    @property
    def signer(self) -> EvmSigner:
        return self._shop.parts.signer

    def signer_for(self, quote: Quote) -> SignerSource:
        """Who signs `quote`: the Solana key for a Solana deposit, else the EVM signer."""
        wallet = self._shop.wallet_for(quote)
        if wallet == self.signer.address:
            return self.signer.source  # (the other keys are not even read for an EVM quote)
        for parts in (self._shop.parts.solana, self._shop.parts.bitcoin):
            if parts is not None and wallet == parts.signer.address:
                return parts.signer.source
        return self.signer.source

    @property
    def journal(self) -> Journal:
        return self._shop.parts.journal

    @property
    def gateways(self) -> Gateways:
        return self._shop.parts.gateways

    @property
    def follower(self) -> Follower:
        return self._shop.follower

    def __repr__(self) -> str:
        return f"Executor(wallet={self.signer.address}, journal={self.journal!r})"

    async def aclose(self) -> None:
        await self.gateways.aclose()
        if self._shop.parts.solana is not None:
            await self._shop.parts.solana.aclose()
        if self._shop.parts.bitcoin is not None:
            await self._shop.parts.bitcoin.aclose()

    def _vm_types(self, request: QuoteRequest | None) -> dict[str, str]:
        chains = self._shop.chains
        if chains is None or request is None:
            return {}
        known = chains.vm_types()
        wanted = (request.origin_chain_id, request.destination_chain_id)
        return {str(c): known[c] for c in wanted if c in known}

    # -- entry points ------------------------------------------------------------------------

    async def run(
        self,
        quote: Quote,
        *,
        request: QuoteRequest | None = None,
        deposit_amount: int | None = None,
    ) -> AsyncIterator[RunEvent]:
        """Execute `quote` and track it. `request` (the quote's body) lets a deposit-address
        transfer be described (open/strict, refundTo); `deposit_amount` sends another amount
        than quoted to an open or strict deposit address (strict: short is refunded, excess is
        refunded apart)."""
        request_id = quote.request_id
        owned = False
        try:
            if request_id is None or not quote.steps:
                # a quote that cannot be executed as given (no request to track, nothing to
                # do): refused by the guards that say why, before anything is journalled
                async for event in self._unexecutable(quote, request):
                    yield event
                return
            if deposit_amount is not None:
                check_deposit_amount(deposit_amount, request)
            chain_id = self._shop.options.signing_chain_id
            run = Run(request_id, quote.model_copy(deep=True), request, chain_id, deposit_amount)
            await self.chains_for(run.quote)
            results = self._shop.run_guards(run)
            if deposit_amount is None:  # another amount is held to the chain when it is sent
                results += await self.check_funds(run.quote)
            results += await self._shop.simulation_guards(run.quote)
            yield GuardsChecked(tuple(results))
            self.journal.start_run(
                request_id,
                wallet=self.signer.address,
                quote=run.quote.to_wire(),
                request=request.to_body() if request is not None else None,
                options={
                    "signing_chain_id": chain_id,
                    "deposit_amount": deposit_amount,
                    # the families the request was held to (/chains'), so that `resume` reads
                    # it as it was checked (an SVM chain is not known by its id alone)
                    "vm_types": self._vm_types(request),
                },
            )
            owned = True
            try:
                require(results)
            except GuardRefused:
                self.journal.set_run_state(request_id, "refused", error="guard refused")
                raise
            wallet = self._shop.wallet_for(run.quote) or self.signer.address
            yield RunStarted(request_id, wallet, _step_ids(run.quote))
            # not resumed: the follower subscribes before the first action, so a status socket
            # pushes every change the actions make and their nudges need no read of their own
            async for event in self._execute(run):
                yield event
        except CrossdeckError as exc:
            yield failed(self.journal, exc, request_id if owned else None, request_id)

    async def _unexecutable(
        self, quote: Quote, request: QuoteRequest | None
    ) -> AsyncIterator[RunEvent]:
        """The guards over a quote with no requestId or no steps, then their refusal: the
        request-id and steps guards always fail on such a quote, so this never returns."""
        await self.chains_for(quote)
        results = self._shop.quote_guards(quote, request)
        yield GuardsChecked(tuple(results))
        refused = [r for r in results if not r.ok] or [
            GuardResult("steps", False, "the quote has no steps to execute")
        ]
        raise GuardRefused(refused)

    async def resume(self, request_id: str) -> AsyncIterator[RunEvent]:
        """Continue a journalled run: whatever was already sent or posted is found (by hash, by
        the wallet's nonce on chain, by the venue nonce, by the service's answer) and never
        sent again."""
        owned = False
        try:
            wallet, chain_id = self.signer.address, self._shop.options.signing_chain_id
            run, finished = resumable_run(self.journal, request_id, wallet, chain_id)
            owned = True
            wallet = self._shop.wallet_for(run.quote) or self.signer.address
            yield RunStarted(request_id, wallet, _step_ids(run.quote), resumed=True)
            if finished is not None:
                yield Note(f"request {request_id} already finished: {finished}")
            await self.chains_for(run.quote)
            results = self._shop.run_guards(run)
            yield GuardsChecked(tuple(results))
            require(results)
            self.journal.set_run_state(request_id, "running")
            async for event in self._execute(run, resumed=True):
                yield event
        except CrossdeckError as exc:
            yield failed(self.journal, exc, request_id if owned else None, request_id)

    # -- the guards (also for showing them before asking to execute) -------------------------

    async def chains_for(
        self, quote: Quote, known: ChainsResponse | None = None
    ) -> ChainsResponse | None:
        """The /chains answer, asked once: it maps the payment's chain name ("base") to a chain
        id, and names each chain's depository, contracts and solver addresses, which are all a
        quote may pay. Unavailable, the guards refuse the quote saying so. `known`: the answer
        the caller already has (the CLI asks for currency symbols and decimals)."""
        return await self._shop.chains_for(quote, known)

    def check(self, quote: Quote, request: QuoteRequest | None = None) -> list[GuardResult]:
        """Every guard over `quote` for this wallet and these RPCs, against the `request` the
        user made (what `run` checks first; after `chains_for`)."""
        return self._shop.quote_guards(quote, request)

    async def check_funds(self, quote: Quote) -> list[GuardResult]:
        """The `funds` guard: the wallet holds the payment and the most its gas can cost on the
        paying chain (or, for a venue withdrawal, the venue account holds it), before the first
        signature (after `chains_for`)."""
        return await self._shop.funds_guards(quote)

    # -- the run -----------------------------------------------------------------------------

    async def _execute(self, run: Run, *, resumed: bool = False) -> AsyncIterator[RunEvent]:
        # followed from now on: every status from the first signature on (webhooks too)
        updates = self.follower.follow(run.request_id)
        try:
            step_index = 0
            while step_index < len(run.quote.steps):  # a POST may append steps meanwhile
                step = run.quote.steps[step_index]
                for item_index, data in enumerate(step.items):
                    item = Item(run, step_index, item_index, step, data)
                    async for event in item_events(item, self._runners, self.journal):
                        yield event
                step_index += 1
            self.journal.set_run_state(run.request_id, "tracking")
            if resumed or not run.acted:
                # resumed: what an earlier process sent may have moved the request before this
                # one subscribed, and a status socket pushes only what changes from now on, so
                # one read now (it may already be final, with nothing left to push)
                self.follower.nudge(run.request_id, read=True)
            # everything was sent: however following ends without a final status, it is a
            # TrackingTimeout (exit 10) naming the commands that follow the request on
            async for event in status_events(self.follower, run.request_id, updates):
                if isinstance(event, Finished):
                    event = await self._with_refund(run, event)
                    final = event.status
                    self.journal.set_run_state(run.request_id, "finished", final_status=final)
                    if pays_a_deposit_address(run.quote):  # an excess comes back as a child
                        children, note = await settled_children(self.service, run.request_id)
                        event = replace(event, children=children, children_note=note)
                    from crossdeck.execute.came_back_at_end import read_came_back

                    came = await read_came_back(self.service, run.request_id)
                    event = replace(event, came_back=came)
                yield event
        finally:
            close = getattr(updates, "aclose", None)
            if close is not None:
                await close()

    async def _with_refund(self, run: Run, event: Finished) -> Finished:
        """A refund's Finished says what came back: read from the refund's transaction."""
        if event.status not in ("refund", "fallback") or not event.tx_hashes:
            return event
        from crossdeck.execute.refund import read_refund

        request = run.request
        chains: list[int] = []
        if request is not None:
            chains += [request.origin_chain_id, request.destination_chain_id]
        chains += [
            chain_id
            for step in run.quote.steps
            for item in step.items
            if isinstance(chain_id := getattr(item.data, "chain_id", None), int)
        ]
        refund_to = request.effective_refund_to() if request is not None else None
        details = run.quote.details
        known = [
            info
            for amount in (
                (details.refund_currency, details.currency_in, details.currency_out)
                if details is not None
                else ()
            )
            if amount is not None and (info := amount.currency_info) is not None
        ]
        refund = await read_refund(self.gateways, chains, event.tx_hashes, refund_to, known)
        return dataclasses.replace(event, refund=refund)


def _step_ids(quote: Quote) -> tuple[str, ...]:
    return tuple(str(step.id) for step in quote.steps)


# each kind's runner, by module: a run imports only the runners of the kinds it holds (an EVM
# run never loads the PSBT decoder or the Solana ledger)
_RUNNER_MODULES = {
    "transaction": ("crossdeck.execute.tx_runner", "TransactionRunner"),
    "signature": ("crossdeck.execute.signature_runner", "SignatureRunner"),
    "venue_deposit": ("crossdeck.execute.venue_runner", "VenueRunner"),
    "solana": ("crossdeck.execute.solana_runner", "SolanaRunner"),
    "bitcoin": ("crossdeck.execute.bitcoin_runner", "BitcoinRunner"),
}


class _Runners(Mapping[str, ItemRunner]):
    """The runner of each item kind, made (and its module imported) on first use."""

    def __init__(self, shop: Workshop) -> None:
        self._shop = shop
        self._made: dict[str, ItemRunner] = {}

    def __getitem__(self, kind: str) -> ItemRunner:
        runner = self._made.get(kind)
        if runner is None:
            module, name = _RUNNER_MODULES[kind]  # KeyError: no runner for that kind
            runner = self._made[kind] = getattr(importlib.import_module(module), name)(self._shop)
        return runner

    def __iter__(self) -> Iterator[str]:
        return iter(_RUNNER_MODULES)

    def __len__(self) -> int:
        return len(_RUNNER_MODULES)
