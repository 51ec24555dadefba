"""What the journal says of a run, read and written at its two ends: whether a journalled run
may be resumed (and as what `Run`), and the `Failed` event that closes a run, with the failure
written down and, when something was already signed, the command that continues it."""

from __future__ import annotations

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.execute.errors import (
    ExecutionError,
    NonceTakenError,
    NothingToResume,
    TrackingTimeout,
)
from crossdeck.execute.events import Failed
from crossdeck.execute.guards import GuardRefused
from crossdeck.execute.items import Run
from crossdeck.execute.journal import Journal
from crossdeck.models import Quote, QuoteRequest


def resumable_run(
    journal: Journal, request_id: str, wallet: str, signing_chain_id: int
) -> tuple[Run, str | None]:
    """The journal's run of `request_id`, if `wallet` may resume it; and its final status if
    it already finished. `NothingToResume` or `ExecutionError` saying why not otherwise."""
    record = journal.run(request_id)
    if record is None:
        raise NothingToResume(f"the journal has no run of request {request_id}")
    if record.wallet.lower() != wallet.lower():
        raise NothingToResume(
            f"request {request_id} was run by wallet {record.wallet}, not {wallet}",
            hint="resume it with the profile that started it",
        )
    if record.state == "refused":
        raise NothingToResume(
            f"request {request_id} was refused by a guard; nothing was signed",
            hint="ask for a new quote",
        )
    reverted = journal.reverted(request_id)
    if reverted:
        first = reverted[0]
        raise ExecutionError(
            f"request {request_id} cannot be resumed: transaction {first.tx_hash} "
            f"({first.step_id}) reverted on chain {first.chain_id}",
            hint="nothing was signed or sent; the quote is spent, ask for a new quote",
        )
    expired = journal.expired(request_id)
    if expired:
        raise NothingToResume(
            f"request {request_id} ended: Solana transaction {expired[0].tx_hash} "
            f"({expired[0].step_id}) expired unlanded, so nothing was taken",
            hint="ask for a new quote",
        )
    kept = record.options.get("vm_types") or {}  # the families it was held to at the start
    vm_types = {int(chain): str(vm) for chain, vm in kept.items()}
    request = QuoteRequest.from_body(record.request, vm_types=vm_types) if record.request else None
    chain_id = int(record.options.get("signing_chain_id") or signing_chain_id)
    quote = Quote.from_wire(record.quote)
    run = Run(request_id, quote, request, chain_id, record.options.get("deposit_amount"))
    return run, (str(record.final_status) if record.state == "finished" else None)


def failed(
    journal: Journal, exc: CrossdeckError, owned_id: str | None, request_id: str | None
) -> Failed:
    """The closing event; the journal records the failure of a run the caller owns."""
    if owned_id is not None:
        existing = journal.run(owned_id)
        if existing is not None and existing.state not in ("refused", "tracking"):
            journal.set_run_state(owned_id, "failed", error=str(exc))
    failures = exc.failures if isinstance(exc, GuardRefused) else ()
    error = str(exc)
    if owned_id is not None and not isinstance(exc, TrackingTimeout | NonceTakenError):
        pending = [i for i in journal.items(owned_id) if i.state in ("signed", "sent")]
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


def check_deposit_amount(amount: int, request: QuoteRequest | None) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise InputError(f"deposit amount must be a positive integer, got {amount!r}")
    if request is None or not request.use_deposit_address:
        raise InputError(
            "a deposit amount other than the quoted one applies to deposit-address quotes only",
            hint="quote with --use-deposit-address",
        )
