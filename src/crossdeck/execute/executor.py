"""`Executor`: runs a quote's steps in order and follows the request to a final status.

    executor = Executor(service, venue, signer, rpc_urls, journal, confirm=ask_user)
    async for event in executor.run(quote):
        render(event)

Order: steps in order, items in order, only `incomplete` items; a POST answer that carries
`steps` appends them. Guards run over the whole quote before the first signature and again per
item right before it is signed; `confirm(SignRequest)` is awaited before EVERY signature or
transaction, after the request shows exactly what will be signed.

Every item goes intent -> signed -> sent -> done in the journal, the signed bytes written
before they leave the machine, so `resume(request_id)` finishes an interrupted run without
signing a second transaction or posting a second transfer (see `crossdeck.execute.journal`).

Errors never escape `run`/`resume` as exceptions: they end the stream with a `Failed` event
carrying the error's words and exit code (bugs, i.e. non-crossdeck exceptions, still raise).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import ServiceError
from crossdeck.errors import CrossdeckError, InputError
from crossdeck.execute import describe
from crossdeck.execute.crash import crash_point
from crossdeck.execute.errors import (
    Declined,
    ExecutionError,
    GuardRefused,
    NonceTakenError,
    NothingToResume,
    TrackingTimeout,
)
from crossdeck.execute.events import (
    AwaitingConfirmation,
    AwaitingSignature,
    Event,
    Failed,
    Finished,
    GuardsChecked,
    ItemSkipped,
    Note,
    Posted,
    RunStarted,
    Signed,
    SignKind,
    SignRequest,
    StatusChanged,
    StepStarted,
    TxConfirmed,
    TxSent,
    VenueSubmitted,
)
from crossdeck.execute.gateways import GatewayFactory, GatewayPool
from crossdeck.execute.guards import (
    NONCE_MAPPING,
    GuardResult,
    built_domain_guard,
    check_item,
    check_quote,
    payment_chain,
    require,
    rpc_chain_guard,
)
from crossdeck.execute.guards.chain import DEFAULT_FEE_CAP_MULTIPLE, chain_guards
from crossdeck.execute.guards.funds import funds_guard, venue_funds_guard
from crossdeck.execute.guards.request import no_request_guard
from crossdeck.execute.journal import ItemRecord, Journal
from crossdeck.execute.tracking import StatusUpdate as PolledUpdate
from crossdeck.execute.tracking import TrackingPolicy, gave_up, poll_status
from crossdeck.models import (
    ChainsResponse,
    Quote,
    QuoteRequest,
    StatusV3,
    Step,
    StepItem,
    is_final,
)
from crossdeck.venue.client import VenueClient
from crossdeck.venue.errors import VenueError
from crossdeck.venue.signing import build_send_asset_typed_data, split_signature
from crossdeck.wallet.errors import ChainMismatchError, TransactionRevertedError
from crossdeck.wallet.signer import Signer, recover_eip191, recover_typed_data

Confirm = Callable[[SignRequest], Awaitable[bool]]

GAS_MARGIN_PERCENT = 20
DUPLICATE_NONCE = "duplicate nonce"
ALREADY_MAPPED = "NONCE_ALREADY_MAPPED"


async def approve_all(_request: SignRequest) -> bool:
    """A `confirm` for callers that confirmed the whole quote up front (`--yes`)."""
    return True


@dataclass
class _Run:
    request_id: str
    quote: Quote
    request: QuoteRequest | None
    signing_chain_id: int
    deposit_amount: int | None


class Executor:
    def __init__(
        self,
        service: ServiceClient,
        venue: VenueClient,
        signer: Signer,
        gateways: Mapping[int, str] | GatewayFactory | GatewayPool,
        journal: Journal,
        *,
        confirm: Confirm,
        signing_chain_id: int = 1,
        tracking: TrackingPolicy | None = None,
        receipt_timeout: float = 120.0,
        receipt_poll: float = 0.25,
        gas_margin_percent: int = GAS_MARGIN_PERCENT,
        status_stream: Callable[[str], AsyncIterator[Any]] | None = None,
        trust_quote: bool = False,
        fee_cap_multiple: float = DEFAULT_FEE_CAP_MULTIPLE,
    ) -> None:
        """`gateways`: RPC URL per chain id (or a factory/pool of `EvmGateway`s).
        `signing_chain_id` goes into the authorize domain and body (4.4 override) and the
        SendAsset domain and signatureChainId. `status_stream(request_id)` replaces the built-in
        v3 polling: an async iterator of updates with `status`, `in_tx_hashes`, `tx_hashes`,
        `fail_reason`, `refund_fail_reason`, `source` and `final` (e.g.
        `crossdeck.track.StatusTracker.stream`, which merges webhooks); it is opened when the
        run starts and read after the last step."""
        if isinstance(signing_chain_id, bool) or signing_chain_id <= 0:
            raise InputError(f"signing chain id must be a positive integer, not {signing_chain_id}")
        self.service = service
        self.venue = venue
        self.signer = signer
        self.gateways = gateways if isinstance(gateways, GatewayPool) else GatewayPool(gateways)
        self.journal = journal
        self.confirm = confirm
        self.signing_chain_id = signing_chain_id
        self.tracking = tracking or TrackingPolicy()
        self.receipt_timeout = receipt_timeout
        self.receipt_poll = receipt_poll
        self.gas_margin_percent = gas_margin_percent
        self._status_stream = status_stream
        # without the request a quote answers, it can only be checked against itself; the
        # user must say so (--trust-quote) for such a quote to be executed
        self.trust_quote = trust_quote
        self.fee_cap_multiple = fee_cap_multiple
        self._chains: ChainsResponse | None = None

    def __repr__(self) -> str:
        return f"Executor(wallet={self.signer.address}, journal={self.journal!r})"

    async def aclose(self) -> None:
        await self.gateways.aclose()

    # -- entry points ------------------------------------------------------------------------

    async def run(
        self,
        quote: Quote,
        *,
        request: QuoteRequest | None = None,
        deposit_amount: int | None = None,
    ) -> AsyncIterator[Event]:
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
            run = _Run(
                request_id,
                quote.model_copy(deep=True),
                request,
                self.signing_chain_id,
                deposit_amount,
            )
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
                options={
                    "signing_chain_id": run.signing_chain_id,
                    "deposit_amount": deposit_amount,
                },
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

    async def resume(self, request_id: str) -> AsyncIterator[Event]:
        """Continue a journalled run: whatever was already sent or posted is found (by hash, by
        the wallet's nonce on chain, by the venue nonce, by the service's answer) and never
        sent again."""
        owned = False
        try:
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
            run = _Run(
                request_id,
                Quote.from_wire(record.quote),
                request,
                int(record.options.get("signing_chain_id") or self.signing_chain_id),
                record.options.get("deposit_amount"),
            )
            owned = True
            yield RunStarted(request_id, self.signer.address, _step_ids(run.quote), resumed=True)
            if record.state == "finished":
                yield Note(f"request {request_id} already finished: {record.final_status}")
            await self.chains_for(run.quote)
            results = self._check_whole(run)
            yield GuardsChecked(tuple(results))
            require(results)
            self.journal.set_run_state(request_id, "running")
            async for event in self._execute(run):
                yield event
        except CrossdeckError as exc:
            yield self._failed(exc, request_id if owned else None, request_id)

    # -- the run -----------------------------------------------------------------------------

    def _rpc_chain_ids(self, quote: Quote) -> frozenset[int]:
        """Chains with an RPC: the configured ones, or those a gateway factory can serve."""
        known = self.gateways.chain_ids
        if known is not None:
            return known
        chains = {
            item.as_transaction().chain_id
            for step in quote.steps
            for item in step.items
            if item.kind_of_data == "transaction"
        }
        return frozenset(c for c in chains if c is not None and self.gateways.get(c) is not None)

    async def chains_for(
        self, quote: Quote, known: ChainsResponse | None = None
    ) -> ChainsResponse | None:
        """The /chains answer, asked once: it maps the payment's chain name ("base") to a chain
        id, and names each chain's depository, contracts and solver addresses, which are all a
        quote may pay. Unavailable, the guards refuse the quote saying so. `known`: the answer
        the caller already has (the CLI asks for currency symbols and decimals), kept instead
        of asking again."""
        if self._chains is None and known is not None:
            self._chains = known
        if self._chains is None and quote.steps:
            try:
                self._chains = await self.service.chains()
            except CrossdeckError:
                return None
        return self._chains

    def check(self, quote: Quote, request: QuoteRequest | None = None) -> list[GuardResult]:
        """Every guard over `quote` for this wallet and these RPCs, against the `request` the
        user made (what `run` checks first); for showing the results before asking to execute
        (after `chains_for`)."""
        return check_quote(
            quote,
            wallet=self.signer.address,
            rpc_chain_ids=self._rpc_chain_ids(quote),
            chains=self._chains,
            request=request,
        )

    async def check_funds(self, quote: Quote) -> list[GuardResult]:
        """The `funds` guard: the wallet holds the payment and the most its gas can cost on the
        paying chain (or, for a venue withdrawal, the venue account holds it), before the first
        signature (after `chains_for`)."""
        venue_results = await venue_funds_guard(quote, self.signer.address, self.venue)
        if venue_results:
            return venue_results
        chain_id = payment_chain(quote, self._chains).chain_id
        gateway = self.gateways.get(chain_id) if chain_id is not None else None
        return await funds_guard(quote, self.signer.address, chain_id, gateway)

    def _check_whole(self, run: _Run) -> list[GuardResult]:
        results = self.check(run.quote, run.request)
        if run.request is None:
            results.insert(0, no_request_guard(self.trust_quote))
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

    async def _execute(self, run: _Run) -> AsyncIterator[Event]:
        # a stream opened now sees every status from the first signature on (webhooks too)
        stream = self._status_stream(run.request_id) if self._status_stream else None
        try:
            step_index = 0
            while step_index < len(run.quote.steps):
                step = run.quote.steps[step_index]
                for item_index, item in enumerate(step.items):
                    async for event in self._item(run, step_index, item_index, step, item):
                        yield event
                step_index += 1
            self.journal.set_run_state(run.request_id, "tracking")
            async for event in self._track(run, stream):
                yield event
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()

    async def _item(
        self, run: _Run, step_index: int, item_index: int, step: Step, item: StepItem
    ) -> AsyncIterator[Event]:
        record = self.journal.item(run.request_id, step_index, item_index)
        if record is not None and record.state == "done":
            yield ItemSkipped(step.id, item_index, "already done")
            return
        if record is not None and record.state == "reverted":  # resume refuses these first
            raise ExecutionError(
                f"transaction {record.tx_hash} ({step.id}) reverted; ask for a new quote"
            )
        if record is None and not item.is_incomplete:
            yield ItemSkipped(step.id, item_index, f"the quote marks it {item.status!r}")
            return
        kind = item.kind_of_data
        yield StepStarted(step.id, step_index, item_index, kind, step.action, step.description)
        if kind == "transaction":
            handler = self._transaction
        elif kind == "signature":
            handler = self._signature
        elif kind == "venue_deposit":
            handler = self._venue_deposit
        else:  # the guards refuse these first; this is the last line
            raise GuardRefused(
                [GuardResult("step-kind", False, "unknown item kind", f"step '{step.id}'")]
            )
        if record is not None and record.state == "intent":
            # nothing left the machine: start this item over
            self.journal.forget_intent(run.request_id, step_index, item_index)
            record = None
        async for event in handler(run, step_index, item_index, step, item, record):
            yield event

    def _item_guards(self, run: _Run, step_index: int, item_index: int) -> list[GuardResult]:
        trusted = [no_request_guard(self.trust_quote)] if run.request is None else []
        return trusted + check_item(
            run.quote,
            step_index,
            item_index,
            wallet=self.signer.address,
            rpc_chain_ids=self._rpc_chain_ids(run.quote),
            chains=self._chains,
            request=run.request,
        )

    async def _confirm(self, request: SignRequest) -> None:
        if not await self.confirm(request):
            raise Declined(request.title)

    # -- EVM transactions --------------------------------------------------------------------

    def _gateway(self, chain_id: int | None, where: str) -> Any:
        gateway = self.gateways.get(chain_id) if chain_id is not None else None
        if gateway is None:
            raise GuardRefused(
                [
                    GuardResult(
                        "rpc-configured",
                        False,
                        f"no RPC is configured for chain {chain_id} (set rpc.{chain_id})",
                        where,
                    )
                ]
            )
        return gateway

    async def _rpc_guard(self, gateway: Any, chain_id: int, where: str) -> GuardResult:
        try:
            actual = await gateway.chain_id()
        except ChainMismatchError as exc:
            return GuardResult("rpc-chain-id", False, exc.message, where)
        return rpc_chain_guard(chain_id, actual, where)

    async def _transaction(
        self,
        run: _Run,
        step_index: int,
        item_index: int,
        step: Step,
        item: StepItem,
        record: ItemRecord | None,
    ) -> AsyncIterator[Event]:
        tx = item.as_transaction()
        where = f"step '{step.id}' item {item_index}"
        gateway = self._gateway(tx.chain_id, where)
        assert tx.chain_id is not None
        chain_id = tx.chain_id
        address = self.signer.address
        if record is not None:  # signed or sent before a crash
            async for event in self._reconcile_tx(
                run, step_index, step, item_index, record, gateway
            ):
                yield event
            return

        results = self._item_guards(run, step_index, item_index)
        results.append(await self._rpc_guard(gateway, chain_id, where))
        require(results)

        value = tx.value or 0
        payment = run.quote.payment_details
        deposit_address = self._deposit_address_terms(run, tx, step)
        if deposit_address is not None and run.deposit_amount is not None:
            value = run.deposit_amount
            results.append(
                GuardResult(
                    "deposit-amount",
                    True,
                    f"sending {value} to the deposit address where the quote says {tx.value}",
                    where,
                )
            )
        data = tx.data or "0x"
        nonce = await gateway.nonce(address)
        if tx.gas is not None:
            gas = tx.gas
        else:
            estimate = await gateway.estimate_gas(
                {"from": address, "to": tx.to, "value": value, "data": data}
            )
            gas = estimate * (100 + self.gas_margin_percent) // 100
        if tx.max_fee_per_gas is not None and tx.max_priority_fee_per_gas is not None:
            max_fee, priority = tx.max_fee_per_gas, tx.max_priority_fee_per_gas
        else:
            max_fee, priority = await gateway.fee_params()
        unsigned: dict[str, Any] = {
            "chainId": chain_id,
            "nonce": nonce,
            "to": tx.to,
            "value": value,
            "data": data,
            "gas": gas,
            "maxFeePerGas": max_fee,
            "maxPriorityFeePerGas": priority,
        }
        # against the chain itself: its fee market, the wallet's funds, a dry run
        results += await chain_guards(
            gateway, unsigned, address, run.quote, self.fee_cap_multiple, where
        )
        require(results)
        title = (
            f"Send the transfer to your deposit address on chain {chain_id}"
            if deposit_address
            else f"Send a transaction on chain {chain_id} ({step.id})"
        )
        request = SignRequest(
            kind="transaction",
            step_id=step.id,
            item_index=item_index,
            title=title,
            lines=tuple(
                describe.transaction_lines(
                    unsigned, sender=address, payment=payment, deposit_address=deposit_address
                )
            ),
            payload={**unsigned, "from": address},
            guards=tuple(results),
            chain_id=chain_id,
        )
        yield AwaitingConfirmation(request)
        await self._confirm(request)

        key = (run.request_id, step_index, item_index)
        self.journal.record(
            *key, "intent", step_id=step.id, kind="transaction", chain_id=chain_id, from_nonce=nonce
        )
        signed = self.signer.sign_transaction({**unsigned, "from": tx.from_ or address})
        self.journal.record(*key, "signed", raw_tx="0x" + signed.raw.hex(), tx_hash=signed.hash)
        yield Signed(step.id, item_index, "transaction")
        crash_point("after-sign", step.id)

        tx_hash = await gateway.send_raw(signed.raw)
        self.journal.record(*key, "sent", tx_hash=tx_hash)
        yield TxSent(tx_hash, chain_id, nonce, step.id, item_index)
        crash_point("after-send", step.id)
        async for event in self._await_receipt(
            run, step_index, step, item_index, gateway, tx_hash, chain_id
        ):
            yield event

    async def _await_receipt(
        self,
        run: _Run,
        step_index: int,
        step: Step,
        item_index: int,
        gateway: Any,
        tx_hash: str,
        chain_id: int,
    ) -> AsyncIterator[Event]:
        try:
            receipt = await gateway.wait_receipt(
                tx_hash, timeout=self.receipt_timeout, poll=self.receipt_poll
            )
        except TransactionRevertedError as exc:
            # not `done`: resume must never skip past a revert (e.g. to a deposit whose approve
            # reverted); it refuses the whole run instead
            self.journal.record(run.request_id, step_index, item_index, "reverted")
            raise ExecutionError(
                f"transaction {tx_hash} ({step.id}) reverted on chain {chain_id}",
                hint=exc.hint,
            ) from exc
        self.journal.record(run.request_id, step_index, item_index, "done")
        yield TxConfirmed(
            tx_hash, chain_id, receipt.block_number, receipt.gas_used, step.id, item_index
        )
        if step.id != "approve":
            await self._index_transaction(tx_hash, chain_id)

    async def _index_transaction(self, tx_hash: str, chain_id: int) -> None:
        """Tell the service about a deposit as soon as it is mined (as the public SDK does), so
        it need not wait for its own look at the chain. Best-effort: the service finds the
        deposit without it, so no failure (a 404 from a service without the endpoint, a
        timeout) stops the run, and it never holds the run up for long."""
        try:
            async with asyncio.timeout(INDEX_TIMEOUT_SECONDS):
                await self.service.index_transaction(tx_hash, chain_id)
        except (CrossdeckError, TimeoutError):
            pass

    async def _reconcile_tx(
        self,
        run: _Run,
        step_index: int,
        step: Step,
        item_index: int,
        record: ItemRecord,
        gateway: Any,
    ) -> AsyncIterator[Event]:
        """A transaction journalled as signed or sent: find it, or re-send the same bytes."""
        assert record.tx_hash is not None and record.raw_tx is not None
        tx_hash, chain_id = record.tx_hash, record.chain_id or gateway.expected_chain_id
        receipt = await gateway.get_receipt(tx_hash)
        if receipt is None and await gateway.get_transaction(tx_hash) is None:
            used = await gateway.nonce(self.signer.address)
            if record.from_nonce is not None and used > record.from_nonce:
                raise NonceTakenError(
                    f"journalled transaction {tx_hash} is unknown on chain {chain_id}, and "
                    f"the wallet's nonce {record.from_nonce} was used by another transaction",
                    hint="it can never be mined; check the wallet's history and ask for a new "
                    "quote if the deposit did not happen",
                )
            yield Note(
                f"transaction {tx_hash} never reached chain {chain_id}: re-broadcasting the "
                "same signed bytes (same hash, same nonce)"
            )
            sent = await gateway.send_raw(bytes.fromhex(record.raw_tx.removeprefix("0x")))
            if sent.lower() != tx_hash.lower():
                raise ExecutionError(f"the node gave hash {sent} for journalled tx {tx_hash}")
            self.journal.record(run.request_id, record.step_index, item_index, "sent")
            yield TxSent(tx_hash, chain_id, record.from_nonce or 0, step.id, item_index)
        else:
            found = "mined" if receipt is not None else "pending"
            yield Note(f"transaction {tx_hash} is already {found} on chain {chain_id}; not resent")
            self.journal.record(run.request_id, record.step_index, item_index, "sent")
        async for event in self._await_receipt(
            run, step_index, step, item_index, gateway, tx_hash, chain_id
        ):
            yield event

    def _deposit_address_terms(self, run: _Run, tx: Any, step: Step) -> dict[str, Any] | None:
        request = run.request
        payment = run.quote.payment_details
        if request is None or not request.use_deposit_address or payment is None:
            return None
        # the public service names the deposit address on the step (and in the tx `to`); the
        # depository stays the contract behind it. Older answers sent it as the depository.
        deposit_to = step.deposit_address or payment.depository
        if not tx.to or not deposit_to or tx.to.lower() != deposit_to.lower():
            return None
        return {
            "type": "strict" if request.strict else "open",
            "refund_to": request.effective_refund_to(),
            "quoted_amount": tx.value,
        }

    # -- signatures (authorize, permits, any signed POST) -------------------------------------

    async def _signature(
        self,
        run: _Run,
        step_index: int,
        item_index: int,
        step: Step,
        item: StepItem,
        record: ItemRecord | None,
    ) -> AsyncIterator[Event]:
        data = item.as_signature()
        assert data.sign is not None and data.post is not None and data.post.endpoint
        key = (run.request_id, step_index, item_index)
        if record is not None:  # signed (maybe posted) before a crash: post the same again
            assert record.signed is not None
            async for event in self._post_signature(
                run, step_index, step, item_index, record.signed, True
            ):
                yield event
            return

        results = self._item_guards(run, step_index, item_index)
        require(results)
        sign = data.sign
        body = copy.deepcopy(data.post.body or {})
        is_authorize = sign.primary_type == NONCE_MAPPING
        kind: SignKind
        if sign.signature_kind == "eip712":
            typed: dict[str, Any] = {
                "domain": copy.deepcopy(sign.domain or {}),
                "types": copy.deepcopy(sign.types or {}),
                "primaryType": sign.primary_type,
                "message": copy.deepcopy(sign.value or {}),
            }
            if is_authorize:
                # 4.4 chain id override: the domain and the body change together
                typed["domain"]["chainId"] = run.signing_chain_id
                body["signatureChainId"] = run.signing_chain_id
            title = f"Sign {sign.primary_type} ({step.id})"
            lines = describe.typed_data_lines(typed)
            payload = typed
            kind = "typed_data"
        else:
            message = sign.message or ""
            title = f"Sign a personal message ({step.id})"
            lines = describe.message_lines(message)
            payload = {"message": message}
            kind = "message"
        lines.append(f"then POST it to {data.post.endpoint} with this body: {body}")
        request = SignRequest(
            kind=kind,
            step_id=step.id,
            item_index=item_index,
            title=title,
            lines=tuple(lines),
            payload=payload,
            guards=tuple(results),
            chain_id=_int_or_none(payload.get("domain", {}).get("chainId")),
        )
        yield AwaitingSignature(request)
        await self._confirm(request)
        self.journal.record(*key, "intent", step_id=step.id, kind="signature")
        if kind == "typed_data":
            raw = self.signer.sign_typed_data(payload)
            signer = recover_typed_data(payload, raw)
        else:
            raw = self.signer.sign_eip191(payload["message"])
            signer = recover_eip191(payload["message"], raw)
        if signer != self.signer.address:  # a broken signer must not post garbage
            raise ExecutionError(f"the signature recovers to {signer}, not {self.signer.address}")
        signed = {"endpoint": data.post.endpoint, "body": body, "signature": "0x" + raw.hex()}
        self.journal.record(*key, "signed", signed=signed)
        yield Signed(step.id, item_index, kind)
        crash_point("after-sign", step.id)
        async for event in self._post_signature(run, step_index, step, item_index, signed, False):
            yield event

    async def _post_signature(
        self,
        run: _Run,
        step_index: int,
        step: Step,
        item_index: int,
        signed: dict[str, Any],
        again: bool,
    ) -> AsyncIterator[Event]:
        endpoint = signed["endpoint"]
        try:
            response = await self.service.post_signed(endpoint, signed["body"], signed["signature"])
        except ServiceError as exc:
            if not again or not await self._post_took_effect(run, exc):
                raise
            yield ItemSkipped(
                step.id,
                item_index,
                f"{endpoint} already has this signature ({exc.error_code or exc.status}); "
                "not posted again",
            )
            response = {}
        else:
            if _is_authorize(endpoint):
                crash_point("after-authorize", step.id)
        appended = self._append_steps(run, response)
        self.journal.record(run.request_id, step_index, item_index, "done", response=response)
        yield Posted(
            endpoint,
            step.id,
            item_index,
            tuple(str(s.id) for s in appended),
            tuple(s.to_wire() for s in appended),
        )

    async def _post_took_effect(self, run: _Run, exc: ServiceError) -> bool:
        """A re-posted signature was refused: is that because the first post took effect?"""
        data = exc.error_data if isinstance(exc.error_data, dict) else {}
        if exc.error_code == ALREADY_MAPPED:
            return str(data.get("requestId", "")).lower() == run.request_id.lower()
        # refused for another reason: did the deposit the signature authorized happen?
        return await self._deposit_seen(run)

    async def _send_took_effect(self, run: _Run, exc: VenueError) -> bool:
        """A re-posted sendAsset was refused: is that because the first post went through?"""
        if DUPLICATE_NONCE in str(exc.response).lower():
            return True  # the venue consumes a nonce only when the send succeeds
        # The venue forgets nonces once they are too old to be accepted anyway ("more than
        # N h in the past"), so after a long pause only the service can say: it maps the
        # send to the request by nonce and lists it once seen.
        return await self._deposit_seen(run)

    async def _deposit_seen(self, run: _Run) -> bool:
        """The service has seen the request's deposit: it lists an origin tx, or its status
        is one only a deposit leads to. 'failure' alone says nothing (a quote can expire)."""
        try:
            status = await self._fetch_status(run)
        except CrossdeckError:
            return False
        return bool(status.in_tx_hashes) or status.follows_a_deposit

    def _append_steps(self, run: _Run, response: dict[str, Any]) -> tuple[Step, ...]:
        """Append the steps a POST answer carries to the run's quote (and the journal's)."""
        extra = response.get("steps") if isinstance(response, dict) else None
        if not isinstance(extra, list) or not extra:
            return ()
        steps = [Step.from_wire(s) for s in extra if isinstance(s, dict)]
        run.quote.steps.extend(steps)
        self.journal.update_quote(run.request_id, run.quote.to_wire())
        return tuple(steps)

    # -- venue transfers ---------------------------------------------------------------------

    async def _venue_deposit(
        self,
        run: _Run,
        step_index: int,
        item_index: int,
        step: Step,
        item: StepItem,
        record: ItemRecord | None,
    ) -> AsyncIterator[Event]:
        data = item.as_venue_deposit()
        assert data.action is not None and data.eip712_types and data.eip712_primary_type
        key = (run.request_id, step_index, item_index)
        if record is not None:
            assert record.signed is not None
            async for event in self._submit_venue(
                run, step_index, step, item_index, record.signed, True
            ):
                yield event
            return

        results = self._item_guards(run, step_index, item_index)
        typed = build_send_asset_typed_data(
            data.action.to_wire(),
            data.eip712_types,
            data.eip712_primary_type,
            run.signing_chain_id,
        )
        where = f"step '{step.id}' item {item_index}"
        assert data.sign_domain_name is not None
        results.append(built_domain_guard(typed, data.sign_domain_name, where))
        require(results)
        lines = describe.typed_data_lines(typed)
        lines.append(f"then POST it to the venue's /exchange with nonce {data.nonce}")
        request = SignRequest(
            kind="venue_action",
            step_id=step.id,
            item_index=item_index,
            title=f"Sign the venue transfer {data.eip712_primary_type} ({step.id})",
            lines=tuple(lines),
            payload=typed,
            guards=tuple(results),
            chain_id=run.signing_chain_id,
        )
        yield AwaitingSignature(request)
        await self._confirm(request)
        assert data.nonce is not None
        self.journal.record(
            *key, "intent", step_id=step.id, kind="venue_deposit", venue_nonce=data.nonce
        )
        raw = self.signer.sign_typed_data(typed)
        signature = split_signature(raw)
        signed = {"action": typed["message"], "nonce": data.nonce, "signature": signature.to_wire()}
        self.journal.record(*key, "signed", signed=signed)
        yield Signed(step.id, item_index, "venue_action")
        crash_point("after-sign", step.id)
        async for event in self._submit_venue(run, step_index, step, item_index, signed, False):
            yield event

    async def _submit_venue(
        self,
        run: _Run,
        step_index: int,
        step: Step,
        item_index: int,
        signed: dict[str, Any],
        again: bool,
    ) -> AsyncIterator[Event]:
        from crossdeck.models.venue import VenueSignature

        nonce = int(signed["nonce"])
        try:
            await self.venue.exchange(
                signed["action"], nonce, VenueSignature.model_validate(signed["signature"])
            )
        except VenueError as exc:
            if not again:
                raise
            if not await self._send_took_effect(run, exc):
                # the refusal is of this post; the first one, before the interruption, may
                # still have gone through, so "nothing was transferred" would not be true
                exc.hint = (
                    "this transfer was posted before; the service has not seen it yet, so it "
                    f"may have gone through: check `crossdeck status --v3 {run.request_id}` first"
                )
                raise
            yield ItemSkipped(
                step.id,
                item_index,
                f"the venue already applied the transfer with nonce {nonce}; not sent again",
            )
        else:
            crash_point("after-send", step.id)
        self.journal.record(run.request_id, step_index, item_index, "sent", venue_nonce=nonce)
        self.journal.record(run.request_id, step_index, item_index, "done")
        yield VenueSubmitted(nonce, step.id, item_index)

    # -- tracking ----------------------------------------------------------------------------

    async def _fetch_status(self, run: _Run) -> StatusV3:
        endpoint = _v3_check_endpoint(run.quote)
        if endpoint is not None:
            answer = await self.service.check(endpoint)
            if isinstance(answer, StatusV3):
                return answer
        return await self.service.status_v3(run.request_id)

    async def _track(self, run: _Run, stream: AsyncIterator[Any] | None) -> AsyncIterator[Event]:
        """StatusChanged per update (from `status_stream`, else v3 polling), then Finished.

        Everything was sent by now: however tracking ends without a final status, the error is
        a `TrackingTimeout` (exit 10) naming the commands that follow the request on."""
        try:
            async for event in self._follow(run, stream):
                yield event
        except TrackingTimeout as exc:
            raise gave_up(run.request_id, exc.message) from exc
        except CrossdeckError as exc:
            raise gave_up(run.request_id, str(exc)) from exc

    async def _follow(self, run: _Run, stream: AsyncIterator[Any] | None) -> AsyncIterator[Event]:
        if stream is None:
            updates: AsyncIterator[Any] = poll_status(
                lambda: self._fetch_status(run), self.tracking
            )
        else:
            updates = _with_deadline(stream, self.tracking.timeout)
        last: _Seen | None = None
        async for update in updates:
            last = _Seen.of(update)
            yield StatusChanged(
                status=last.status,
                in_tx_hashes=last.in_tx_hashes,
                tx_hashes=last.tx_hashes,
                source=last.source,
                fail_reason=last.fail_reason,
                refund_fail_reason=last.refund_fail_reason,
            )
            if last.final:
                break
        if last is None or not last.final:
            raise TrackingTimeout("the status stream ended before a final status")
        self.journal.set_run_state(run.request_id, "finished", final_status=last.status)
        yield Finished(
            request_id=run.request_id,
            status=last.status,
            fail_reason=last.fail_reason,
            refund_fail_reason=last.refund_fail_reason,
            in_tx_hashes=last.in_tx_hashes,
            tx_hashes=last.tx_hashes,
        )


# the longest a best-effort POST /transactions/index may delay the run
INDEX_TIMEOUT_SECONDS = 1.0


@dataclass(frozen=True)
class _Seen:
    """One status update, from the built-in poller or any `status_stream`."""

    status: str
    in_tx_hashes: tuple[str, ...]
    tx_hashes: tuple[str, ...]
    fail_reason: str | None
    refund_fail_reason: str | None
    source: Any
    final: bool

    @classmethod
    def of(cls, update: Any) -> _Seen:
        if isinstance(update, PolledUpdate):
            body, source, final = update.status, "poll", update.final
        else:  # a richer tracker's update: same names, plus its own source and final flag
            body, source = update, getattr(update, "source", "poll")
            final = bool(getattr(update, "final", False)) or is_final(str(update.status))
        return cls(
            status=str(body.status),
            in_tx_hashes=tuple(body.in_tx_hashes or ()),
            tx_hashes=tuple(body.tx_hashes or ()),
            fail_reason=body.fail_reason,
            refund_fail_reason=body.refund_fail_reason,
            source=str(source),
            final=final,
        )


async def _with_deadline(stream: AsyncIterator[Any], seconds: float) -> AsyncIterator[Any]:
    deadline = asyncio.get_running_loop().time() + seconds
    iterator = aiter(stream)
    while True:
        try:
            # not wait_for: on 3.11 it drops a cancel (the user's) that lands as an update comes
            async with asyncio.timeout_at(deadline):
                update = await anext(iterator)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise TrackingTimeout(
                f"no final status after {seconds:g}s",
                hint="the request goes on; follow it with `crossdeck status --v3 REQUEST_ID`",
            ) from None
        yield update


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


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _is_authorize(endpoint: str) -> bool:
    return httpx.URL(endpoint).path.rstrip("/").endswith("/authorize")


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
