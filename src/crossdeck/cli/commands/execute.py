"""`crossdeck resume`, and what it shares with `crossdeck bridge` (`commands.bridge`): the
executor built from the settings, and the events rendered.

Text mode prints the quote in words, the guard results, then one line per event (and every
signature request in full before it is signed). `--json` prints JSON lines instead: first
`{"event": "Quote", ...}`, then one line per executor event. On a terminal (stderr a TTY),
text mode also draws a one-line progress bar on stderr: items done of all items. Exit codes
(`ExitCode`): 0 success, REFUNDED, FAILED, GUARD_REFUSED, TIMEOUT, ABORTED (declined), others
for input/network errors.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any, assert_never

import click

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import prompts
from crossdeck.cli.option_types import REQUEST_ID, SECONDS
from crossdeck.cli.status_words import reason_lines, tracking_note
from crossdeck.cli.support import handles_errors, print_json

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.base.secret import Secret
    from crossdeck.cli import CliContext
    from crossdeck.config import Settings
    from crossdeck.execute import Event, Executor, Journal, SignRequest
    from crossdeck.execute.events import RunEvent
    from crossdeck.wallet.signers import EvmSigner

JSON_HELP = "JSON lines of events (same as the global --json)."


# -- building the executor ---------------------------------------------------------------------


def _settings(obj: CliContext) -> Settings:
    from crossdeck.config import load_settings

    return load_settings(obj.profile, obj.world, obj.signer)


def _announce_page(url: str) -> None:
    """The browser wallet's page, on stderr only (its token is for the user's eyes)."""
    click.echo(
        f"browser wallet: open {url} in the browser that has your wallet "
        "(waiting for it to connect; ctrl+c stops)",
        err=True,
    )


async def _open_signer(settings: Settings) -> EvmSigner:
    from crossdeck import compose

    return await compose.open_signer(settings, _announce_page)


def _executor(
    settings: Settings,
    confirm: Any,
    timeout: float | None,
    signer: EvmSigner,
    *,
    trust_quote: bool = False,
    service: ServiceClient | None = None,
    solana_fee_payer: Secret | None = None,
) -> Executor:
    """The run's executor; `service`: the service client it is to use (and close), when the
    command already made one. The signer stays the caller's to close."""
    from crossdeck import compose
    from crossdeck.cli.support import service_client

    policy = compose.poll_policy(settings, timeout=timeout)  # --timeout checked first
    service = service or service_client(settings)
    return compose.executor(
        settings,
        service=service,
        venue=compose.venue_client(settings),
        signer=signer,
        confirm=confirm,
        follower=compose.status_tracker(settings, service, policy=policy, on_problem=tracking_note),
        trust_quote=trust_quote,
        solana_fee_payer=solana_fee_payer,
    )


async def _close(executor: Executor) -> None:
    from crossdeck.track.tracker import StatusTracker

    await executor.aclose()
    if isinstance(executor.follower, StatusTracker):  # the one `_executor` made
        await executor.follower.aclose()
    await executor.service.aclose()
    await executor.venue.aclose()
    executor.journal.close()


# -- rendering -----------------------------------------------------------------------------


def event_lines(event: RunEvent) -> list[str]:
    """One event in words (text mode)."""
    from crossdeck.execute import events as ev
    from crossdeck.execute.describe import out_leg
    from crossdeck.models.text import short
    from crossdeck.track.updates import age_words

    match event:  # over the closed union: mypy checks every event is said
        case ev.RunStarted():
            verb = "resuming" if event.resumed else "executing"
            steps = ", ".join(event.steps)
            return [f"{verb} request {event.request_id} as {event.wallet}: {steps}"]
        case ev.GuardsChecked():
            # every guard with its verdict: what a passed one checked is worth reading too
            bad = [r for r in event.results if not r.ok]
            total = len(event.results)
            head = f"guards: {len(bad)} FAILED" if bad else f"guards: all {total} checks passed"
            return [head] + [f"  {r}" for r in bad] + [f"  {r}" for r in event.results if r.ok]
        case ev.StepStarted():
            what = event.action or event.description or event.kind
            return [f"step {event.step_id} (item {event.item_index}): {what}"]
        case ev.AwaitingConfirmation() | ev.AwaitingSignature():
            return ["  " + line for line in event.what.describe().splitlines()]
        case ev.Signed():
            return [f"  signed ({event.kind})"]
        case ev.TxSent():
            return [f"  {event.words()}"]
        case ev.TxConfirmed():
            return [f"  {event.words()}"]
        case ev.Posted():
            more = (
                f"; the answer added steps {', '.join(event.appended_steps)}"
                if (event.appended_steps)
                else ""
            )
            return [f"  posted to {event.endpoint}{more}"]
        case ev.VenueSubmitted():
            return [f"  the venue accepted the transfer (nonce {event.nonce})"]
        case ev.ItemSkipped():
            return [f"step {event.step_id} (item {event.item_index}): skipped, {event.reason}"]
        case ev.Note():
            return [f"  note: {event.message}"]
        case ev.StatusChanged():
            ins = ", ".join(short(h, 10, 6) for h in event.in_tx_hashes) or "-"
            outs = ", ".join(short(h, 10, 6) for h in event.tx_hashes) or "-"
            reason = f" ({event.fail_reason})" if event.fail_reason not in (None, "N/A") else ""
            age = f", {age_words(event.updated_at_ms, None, None)}" if event.updated_at_ms else ""
            head = (
                f"status {event.status}{reason} ({event.source}{age}): in {ins}; "
                f"{out_leg(event.status)} {outs}"
            )
            return [head, *reason_lines(event.fail_reason, event.refund_fail_reason)]
        case ev.Finished():
            failed = event.fail_reason not in (None, "N/A")
            reason = f", failReason {event.fail_reason}" if failed else ""
            refund = (
                f", refundFailReason {event.refund_fail_reason}"
                if event.refund_fail_reason not in (None, "N/A")
                else ""
            )
            outs = ", ".join(event.tx_hashes)
            leg = f"; {out_leg(event.status)} {outs}" if outs else ""
            said = [f"finished: {event.status}{reason}{refund}{leg}"]
            said += reason_lines(event.fail_reason, event.refund_fail_reason)
            if event.refund is not None:
                said.append(f"  {event.refund.words()}")
            # money coming back as a child request first, as the app's run screen says it
            said += [f"  child request {child.words()}" for child in event.children]
            if event.children_note:
                said.append(f"  note: {event.children_note}")
            if event.came_back is not None:
                refunded = event.status in ("refund", "fallback")
                said += [f"  {line}" for line in event.came_back.lines(refunded)]
            return said
        case ev.Failed():
            return [f"error: {event.error}"]
        case _:
            assert_never(event)


def _emit(event: RunEvent, as_json: bool) -> None:
    from crossdeck.execute import Failed

    if as_json:
        print_json(event.to_json())
        return
    err = isinstance(event, Failed)
    for line in event_lines(event):
        click.echo(line, err=err)


def _stderr() -> Any:
    return sys.stderr


class _Progress:
    """A one-line progress bar on stderr, for a terminal only: items finished of all items
    (those a POST answer appends included) and what the current one is doing, e.g.
    `[██████████░░░░░░░░░░] 1/2 items · deposit: sent, waiting for the receipt`.

    It is cleared before each event's lines are printed and drawn again after them, so the
    lines read as without it; it stays cleared while a prompt may be waiting (a signature or
    transaction about to be confirmed) and once the run has ended."""

    WIDTH = 20

    def __init__(self, stream: Any, total: int | None) -> None:
        self.stream = stream
        self.total = total
        self.finished: set[tuple[str | None, int]] = set()
        self.doing = "starting"
        self.shown = False

    @classmethod
    def for_stderr(cls, as_json: bool, total: int | None) -> _Progress | None:
        stream = _stderr()
        if as_json or not stream.isatty():
            return None
        return cls(stream, total)

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False

    def line(self) -> str:
        done = len(self.finished)
        if self.total:
            filled = min(self.WIDTH, self.WIDTH * done // self.total)
            bar = "█" * filled + "░" * (self.WIDTH - filled)
            count = f"[{bar}] {done}/{self.total} items"
        else:
            count = f"{done} items done"
        return f"{count} · {self.doing}"

    def after(self, event: Event) -> None:
        """Take in `event` (already printed) and draw the bar again if the run goes on."""
        from crossdeck.execute import events as ev

        if isinstance(event, ev.Finished | ev.Failed):
            return
        if isinstance(event, ev.AwaitingConfirmation | ev.AwaitingSignature):
            self.doing = f"{event.what.step_id}: waiting for your confirmation"
            return  # a prompt may come next: leave its line to it
        if isinstance(event, ev.StepStarted):
            self.doing = f"{event.step_id}: {event.action or event.kind}"
        elif isinstance(event, ev.Signed):
            self.doing = f"{event.step_id}: signed"
        elif isinstance(event, ev.TxSent):
            self.doing = f"{event.step_id}: sent, waiting for the receipt"
        elif isinstance(event, ev.TxConfirmed | ev.Posted | ev.VenueSubmitted | ev.ItemSkipped):
            self.finished.add((event.step_id, event.item_index))
            self.doing = f"{event.step_id}: done"
            if isinstance(event, ev.Posted) and self.total is not None:
                self.total += sum(len(step.get("items") or ()) for step in event.appended)
        elif isinstance(event, ev.StatusChanged):
            self.doing = f"tracking: {event.status}"
        import shutil  # (a terminal's progress line only: ~4 ms a command otherwise)

        columns = shutil.get_terminal_size().columns
        text = self.line()
        if len(text) >= columns:
            text = text[: max(columns - 2, 0)] + "…"
        self.stream.write(text)
        self.stream.flush()
        self.shown = True


def _item_count(quote_wire: dict[str, Any] | None) -> int | None:
    if not isinstance(quote_wire, dict):
        return None
    return sum(len(step.get("items") or ()) for step in quote_wire.get("steps") or ())


async def _drain(events: Any, as_json: bool, total_items: int | None = None) -> ExitCode:
    """Print every event; on a terminal, text mode adds a progress bar on stderr."""
    from crossdeck.execute import exit_code_of

    progress = _Progress.for_stderr(as_json, total_items)
    last = None
    try:
        async for event in events:
            if progress is not None:
                progress.clear()
            _emit(event, as_json)
            if progress is not None:
                progress.after(event)
            last = event
    finally:
        if progress is not None:
            progress.clear()
    return exit_code_of(last)


# -- resume --------------------------------------------------------------------------------


@click.command("resume")
@click.argument("request_id", required=False, type=REQUEST_ID)
@click.option("--list", "list_", is_flag=True, help="List the journalled runs instead.")
@click.option("--yes", "-y", is_flag=True, help="Sign what is left without asking.")
@click.option(
    "--trust-quote",
    is_flag=True,
    help="Execute a journalled quote that has no request to hold it to (runs from before "
    "requests were journalled): it is then checked only against itself and /chains.",
)
@click.option("--timeout", type=SECONDS, help="Stop tracking after this many seconds (exit 10).")
@click.option("--json", "json_", is_flag=True, help=JSON_HELP)
@click.pass_obj
@handles_errors
def resume_command(
    obj: CliContext,
    request_id: str | None,
    list_: bool,
    yes: bool,
    trust_quote: bool,
    timeout: float | None,
    json_: bool,
) -> None:
    """What was already sent or posted is found (by transaction hash, by the wallet's nonce on
    chain, by the venue nonce, by the service's answer) and never sent again.
    """
    from crossdeck.execute import NothingToResume, approve_all

    as_json = bool(json_ or obj.json)
    settings = _settings(obj)
    if list_:
        with _reconciled_journal(settings) as journal:
            runs = journal.runs()
        for run in runs:
            if as_json:
                print_json(
                    {
                        "requestId": run.request_id,
                        "wallet": run.wallet,
                        "state": run.state,
                        "sent": run.sent,
                        "unfinished": run.unfinished,
                        "finalStatus": run.final_status,
                        "error": run.error,
                    }
                )
            else:
                final = f" ({run.final_status})" if run.final_status else ""
                click.echo(f"{run.request_id}  {run.label}{final}  {run.wallet}")
        return
    if request_id is None:
        with _reconciled_journal(settings) as journal:
            latest = journal.latest_unfinished()
        if latest is None:
            raise NothingToResume(
                f"no unfinished run in the journal of {settings.data_dir}",
                hint="`crossdeck resume --list` shows every run",
            )
        request_id = latest.request_id

    async def ask(what: SignRequest) -> bool:
        # re-sending what was already signed asks nothing; a new signature is asked for (what
        # it signs was just printed with the event that announced it)
        return await asyncio.to_thread(prompts.confirm, f"{what.title}?", instead="--yes")

    async def main() -> ExitCode:
        signer = await _open_signer(settings)
        try:
            executor = _executor(
                settings, approve_all if yes else ask, timeout, signer, trust_quote=trust_quote
            )
            try:
                record = executor.journal.run(request_id)
                total = _item_count(record.quote) if record is not None else None
                if not as_json:
                    click.echo(f"signer: {signer.source.words()}", err=True)
                return await _drain(executor.resume(request_id), as_json, total)
            finally:
                await _close(executor)
        finally:
            await signer.aclose()

    sys.exit(int(asyncio.run(main())))


def _reconciled_journal(settings: Settings) -> Journal:
    """The journal, told first what Live status and `crossdeck watch` saw (a request they saw
    end is finished here too; a run that sent nothing is not followed there)."""
    from crossdeck.execute import Journal
    from crossdeck.execute.unfinished import reconcile
    from crossdeck.track.store import StatusStore

    journal = Journal.in_data_dir(settings.data_dir)
    with StatusStore.in_data_dir(settings.data_dir) as store:
        reconcile(journal, store)
    return journal


commands = [resume_command]
