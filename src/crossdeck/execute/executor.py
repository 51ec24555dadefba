"""`Executor`: runs a quote's steps in order and follows the request to a final status.

    executor = Executor(Collaborators(service, venue, signer, gateways, journal, tracker),
                        confirm=ask_user)
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

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from crossdeck.errors import CrossdeckError, InputError
from crossdeck.execute.errors import (
    ExecutionError,
    GuardRefused,
    NonceTakenError,
    NothingToResume,
    TrackingTimeout,
)
from crossdeck.execute.events import (
    Failed,
    Finished,
    GuardsChecked,
    ItemSkipped,
    Note,
    RunEvent,
    RunStarted,
    SignRequest,
    StatusChanged,
    StepStarted,
)
from crossdeck.execute.follow import Follower, gave_up, until_final
from crossdeck.execute.guards import GuardResult, check_quote, payment_chain, require
from crossdeck.execute.guards.funds import funds_guard, venue_funds_guard
from crossdeck.execute.guards.request import no_request_guard
from crossdeck.execute.items import (
    Collaborators,
    Confirm,
    Item,
    ItemRunner,
    Run,
    RunOptions,
    Workshop,
)
from crossdeck.execute.journal import Journal
from crossdeck.execute.signature_runner import SignatureRunner
from crossdeck.execute.tx_runner import TransactionRunner
from crossdeck.execute.venue_runner import VenueRunner
from crossdeck.models import ChainsResponse, Quote, QuoteRequest
from crossdeck.track.tracker import StatusTracker
from crossdeck.track.updates import Source, StatusUpdate

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.execute.gateways import Gateways
    from crossdeck.venue.client import VenueClient
    from crossdeck.wallet.signer import Signer

__all__ = ["Collaborators", "Executor", "RunOptions", "approve_all"]


async def approve_all(_request: SignRequest) -> bool:
    """A `confirm` for callers that confirmed the whole quote up front (`--yes`)."""
    return True


class Executor:
    def __init__(
        self, parts: Collaborators, *, confirm: Confirm, options: RunOptions | None = None
    ) -> None:
        """`parts.follower` None: the run is followed by a `StatusTracker` of its own (default
        policy), closed with the executor; a follower handed in is the caller's to close."""
        options = options or RunOptions()
        chain_id = options.signing_chain_id
        if isinstance(chain_id, bool) or chain_id <= 0:
            raise InputError(f"signing chain id must be a positive integer, not {chain_id}")
        self._own_tracker = StatusTracker(parts.service) if parts.follower is None else None
        follower = parts.follower or self._own_tracker
        assert follower is not None
        self._shop = Workshop(parts, follower, confirm, options)
        runners: dict[str, ItemRunner] = {
            "transaction": TransactionRunner(self._shop),
            "signature": SignatureRunner(self._shop),
            "venue_deposit": VenueRunner(self._shop),
        }
        self._runners = runners

    # -- the collaborators, by name (tests swap `confirm` and `gateways` between runs) -------

    @property
    def service(self) -> ServiceClient:
        return self._shop.parts.service

    @property
    def venue(self) -> VenueClient:
        return self._shop.parts.venue

    @property
    def signer(self) -> Signer:
        return self._shop.parts.signer

    @property
    def journal(self) -> Journal:
        return self._shop.parts.journal

    @property
    def follower(self) -> Follower:
        return self._shop.follower

    @property
    def gateways(self) -> Gateways:
        return self._shop.parts.gateways

    @gateways.setter
    def gateways(self, gateways: Gateways) -> None:
        self._shop.parts.gateways = gateways

    @property
    def confirm(self) -> Confirm:
        return self._shop.confirm

    @confirm.setter
    def confirm(self, confirm: Confirm) -> None:
        self._shop.confirm = confirm

    def __repr__(self) -> str:
        return f"Executor(wallet={self.signer.address}, journal={self.journal!r})"

    async def aclose(self) -> None:
        await self.gateways.aclose()
        if self._own_tracker is not None:
            await self._own_tracker.aclose()

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
            if request_id is None:
                raise ExecutionError("the quote has no requestId: it cannot be executed")
            if deposit_amount is not None:
                _check_deposit_amount(deposit_amount, request)
            chain_id = self._shop.options.signing_chain_id
            run = Run(request_id, quote.model_copy(deep=True), request, chain_id, deposit_amount)
            await self.chains_for(run.quote)
            results = self._check_whole(run)
            if deposit_amount is None:  # another amount is held to the chain when it is sent
                results += await self.check_funds(run.quote)
            yield GuardsChecked(tuple(results))
            self.journal.start_run(
                request_id,
                wallet=self.signer.address,
                quote=run.quote.to_wire(),
                request=request.to_body() if request is not None else None,
                options={"signing_chain_id": chain_id, "deposit_amount": deposit_amount},
            )
            owned = True
            try:
                require(results)
            except GuardRefused:
                self.journal.set_run_state(request_id, "refused", error="guard refused")
                raise
            yield RunStarted(request_id, self.signer.address, _step_ids(run.quote))
            async for event in self._execute(run):
                yield event
        except CrossdeckError as exc:
            yield self._failed(exc, request_id if owned else None, request_id)

    async def resume(self, request_id: str) -> AsyncIterator[RunEvent]:
        """Continue a journalled run: whatever was already sent or posted is found (by hash, by
        the wallet's nonce on chain, by the venue nonce, by the service's answer) and never
        sent again."""
        owned = False
        try:
            run, finished = self._journalled(request_id)
            owned = True
            yield RunStarted(request_id, self.signer.address, _step_ids(run.quote), resumed=True)
            if finished is not None:
                yield Note(f"request {request_id} already finished: {finished}")
            await self.chains_for(run.quote)
            results = self._check_whole(run)
            yield GuardsChecked(tuple(results))
            require(results)
            self.journal.set_run_state(request_id, "running")
            async for event in self._execute(run):
                yield event
        except CrossdeckError as exc:
            yield self._failed(exc, request_id if owned else None, request_id)

    def _journalled(self, request_id: str) -> tuple[Run, str | None]:
        """The journal's run of `request_id`, if it may be resumed by this wallet; and its final
        status if it already finished."""
        record = self.journal.run(request_id)
        if record is None:
            raise NothingToResume(f"the journal has no run of request {request_id}")
        if record.wallet.lower() != self.signer.address.lower():
            raise NothingToResume(
                f"request {request_id} was run by wallet {record.wallet}, not "
                f"{self.signer.address}",
                hint="resume it with the profile that started it",
            )
        if record.state == "refused":
            raise NothingToResume(
                f"request {request_id} was refused by a guard; nothing was signed",
                hint="ask for a new quote",
            )
        reverted = self.journal.reverted(request_id)
        if reverted:
            first = reverted[0]
            raise ExecutionError(
                f"request {request_id} cannot be resumed: transaction {first.tx_hash} "
                f"({first.step_id}) reverted on chain {first.chain_id}",
                hint="nothing was signed or sent; the quote is spent, ask for a new quote",
            )
        request = QuoteRequest.from_body(record.request) if record.request else None
        chain_id = record.options.get("signing_chain_id") or self._shop.options.signing_chain_id
        run = Run(
            request_id,
            Quote.from_wire(record.quote),
            request,
            int(chain_id),
            record.options.get("deposit_amount"),
        )
        return run, (str(record.final_status) if record.state == "finished" else None)

    # -- the guards --------------------------------------------------------------------------

    async def chains_for(
        self, quote: Quote, known: ChainsResponse | None = None
    ) -> ChainsResponse | None:
        """The /chains answer, asked once: it maps the payment's chain name ("base") to a chain
        id, and names each chain's depository, contracts and solver addresses, which are all a
        quote may pay. Unavailable, the guards refuse the quote saying so. `known`: the answer
        the caller already has (the CLI asks for currency symbols and decimals), kept instead
        of asking again."""
        if self._shop.chains is None and known is not None:
            self._shop.chains = known
        if self._shop.chains is None and quote.steps:
            try:
                self._shop.chains = await self.service.chains()
            except CrossdeckError:
                return None
        return self._shop.chains

    def check(self, quote: Quote, request: QuoteRequest | None = None) -> list[GuardResult]:
        """Every guard over `quote` for this wallet and these RPCs, against the `request` the
        user made (what `run` checks first); for showing the results before asking to execute
        (after `chains_for`)."""
        return check_quote(
            quote,
            wallet=self.signer.address,
            rpc_chain_ids=self._shop.rpc_chain_ids(quote),
            chains=self._shop.chains,
            request=request,
        )

    async def check_funds(self, quote: Quote) -> list[GuardResult]:
        """The `funds` guard: the wallet holds the payment and the most its gas can cost on the
        paying chain (or, for a venue withdrawal, the venue account holds it), before the first
        signature (after `chains_for`)."""
        venue_results = await venue_funds_guard(quote, self.signer.address, self.venue)
        if venue_results:
            return venue_results
        chain_id = payment_chain(quote, self._shop.chains).chain_id
        gateway = self.gateways.get(chain_id) if chain_id is not None else None
        return await funds_guard(quote, self.signer.address, chain_id, gateway)

    def _check_whole(self, run: Run) -> list[GuardResult]:
        results = self.check(run.quote, run.request)
        if run.request is None:
            results.insert(0, no_request_guard(self._shop.options.trust_quote))
        return results

    def _failed(
        self, exc: CrossdeckError, owned_id: str | None, request_id: str | None = None
    ) -> Failed:
        """The closing event; the journal records the failure of a run this call owns."""
        if owned_id is not None:
            existing = self.journal.run(owned_id)
            if existing is not None and existing.state not in ("refused", "tracking"):
                self.journal.set_run_state(owned_id, "failed", error=str(exc))
        failures = exc.failures if isinstance(exc, GuardRefused) else ()
        error = str(exc)
        if owned_id is not None and not isinstance(exc, TrackingTimeout | NonceTakenError):
            pending = [i for i in self.journal.items(owned_id) if i.state in ("signed", "sent")]
            if pending:
                error += (
                    f"; continue with `crossdeck resume {owned_id}`: what was already signed is "
                    "sent again as is (or found), never signed twice"
                )
        return Failed(
            error=error,
            error_type=type(exc).__name__,
            exit_code=int(exc.exit_code),
            request_id=request_id or owned_id,
            failures=failures,
        )

    # -- the run -----------------------------------------------------------------------------

    async def _execute(self, run: Run) -> AsyncIterator[RunEvent]:
        # followed from now on: every status from the first signature on (webhooks too)
        updates = self.follower.follow(run.request_id)
        try:
            step_index = 0
            while step_index < len(run.quote.steps):  # a POST may append steps meanwhile
                step = run.quote.steps[step_index]
                for item_index, data in enumerate(step.items):
                    item = Item(run, step_index, item_index, step, data)
                    async for event in self._item(item):
                        yield event
                step_index += 1
            self.journal.set_run_state(run.request_id, "tracking")
            async for event in self._track(run, updates):
                yield event
        finally:
            close = getattr(updates, "aclose", None)
            if close is not None:
                await close()

    async def _item(self, item: Item) -> AsyncIterator[RunEvent]:
        step, item_index, data = item.step, item.item_index, item.data
        record = self.journal.item(*item.key)
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
        runner = self._runners.get(kind)
        if runner is None:  # the guards refuse these first; this is the last line
            raise GuardRefused(
                [GuardResult("step-kind", False, "unknown item kind", f"step '{step.id}'")]
            )
        if record is not None and record.state == "intent":
            # nothing left the machine: start this item over
            self.journal.forget_intent(*item.key)
            record = None
        async for event in runner.run(item, record):
            yield event

    async def _track(
        self, run: Run, updates: AsyncIterator[StatusUpdate]
    ) -> AsyncIterator[RunEvent]:
        """StatusChanged per update of the follower, then Finished. Everything was sent by now:
        however following ends without a final status, the error is a `TrackingTimeout`
        (exit 10) naming the commands that follow the request on."""
        last = None
        try:
            async for last in until_final(self.follower, run.request_id, updates):
                yield StatusChanged(
                    status=str(last.status),
                    in_tx_hashes=last.in_tx_hashes,
                    tx_hashes=last.tx_hashes,
                    source="webhook" if last.source is Source.WEBHOOK else "poll",
                    fail_reason=last.fail_reason,
                    refund_fail_reason=last.refund_fail_reason,
                )
        except TrackingTimeout as exc:
            raise gave_up(run.request_id, exc.message) from exc
        except CrossdeckError as exc:
            raise gave_up(run.request_id, str(exc)) from exc
        assert last is not None and last.final
        self.journal.set_run_state(run.request_id, "finished", final_status=str(last.status))
        yield Finished(
            request_id=run.request_id,
            status=str(last.status),
            fail_reason=last.fail_reason,
            refund_fail_reason=last.refund_fail_reason,
            in_tx_hashes=last.in_tx_hashes,
            tx_hashes=last.tx_hashes,
        )


def _check_deposit_amount(amount: int, request: QuoteRequest | None) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise InputError(f"deposit amount must be a positive integer, got {amount!r}")
    if request is None or not request.use_deposit_address:
        raise InputError(
            "a deposit amount other than the quoted one applies to deposit-address quotes only",
            hint="quote with --use-deposit-address",
        )


def _step_ids(quote: Quote) -> tuple[str, ...]:
    return tuple(str(step.id) for step in quote.steps)
