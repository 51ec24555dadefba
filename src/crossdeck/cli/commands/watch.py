"""`crossdeck watch [REQUEST_ID...] [--webhooks PORT] [--json]`: follow requests to the end.

Every status change of the given requests is printed as it is seen, polled or pushed: one line
each (time, request id, status, source, hashes), or one JSON object per line with `--json`.
The requests and their last-known statuses are kept in `<data dir>/tracking.sqlite3`, so
`crossdeck watch` with no ids picks up the unfinished ones after a Ctrl-C, a timeout or a crash.

Exit codes: 0 when every request succeeded; 9 (FAILED) when one failed; 8 (REFUNDED) when one was
refunded; 4 when the service does not know one; 10 (TIMEOUT) when `--timeout` passed first;
11 (ABORTED) on Ctrl-C. Status requests of all watched requests share one budget (`--rate`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli.option_types import PORT, REQUEST_ID, SECONDS_OR_ZERO, Number
from crossdeck.cli.support import handles_errors, print_json

if TYPE_CHECKING:
    from crossdeck.base.secret import Secret
    from crossdeck.cli import CliContext
    from crossdeck.config import Settings
    from crossdeck.track.tracker import Problem, StatusTracker
    from crossdeck.track.updates import StatusUpdate

DEFAULT_RATE_WITH_KEY = 2.0
DEFAULT_RATE_ANONYMOUS = 1.0


def update_line(update: StatusUpdate, *, stored: bool = False) -> str:
    """The text form of one update: time, request, status, where it came from and how old it
    is; the reasons in words on lines of their own."""
    from crossdeck.cli.status_words import reason_lines
    from crossdeck.models.text import short

    when_ms = update.updated_at_ms
    when = (
        datetime.fromtimestamp(when_ms / 1000, UTC)
        if when_ms is not None
        else datetime.fromtimestamp(update.observed_at, UTC)
    )
    source = f"{update.source.value} (stored)" if stored else update.freshness()
    parts = [
        when.strftime("%H:%M:%S"),
        short(update.request_id, 8, 6),
        f"{update.status!s:<10}",
        f"{source:<8}",
        f"in={','.join(short(h, 8, 6) for h in update.in_tx_hashes) or '-'}",
        f"out={','.join(short(h, 8, 6) for h in update.tx_hashes) or '-'}",
    ]
    if update.fail_reason and update.fail_reason != "N/A":
        parts.append(f"failReason={update.fail_reason}")
    if update.refund_fail_reason and update.refund_fail_reason != "N/A":
        parts.append(f"refundFailReason={update.refund_fail_reason}")
    if update.final:
        parts.append("(final)")
    return "\n".join(
        [" ".join(parts), *reason_lines(update.fail_reason, update.refund_fail_reason)]
    )


def _emit(update: StatusUpdate, as_json: bool, *, stored: bool = False) -> None:
    if as_json:
        body: dict[str, Any] = update.to_json()
        if stored:
            body["stored"] = True
        print_json(body)
    else:
        click.echo(update_line(update, stored=stored))
    sys.stdout.flush()


def _api_key(settings: Settings, *, required: bool) -> Secret | None:
    from crossdeck.credentials import resolve_api_key

    try:
        key = resolve_api_key(settings)
    except CrossdeckError:
        if required:
            raise
        key = None
    if key is not None and not key.get_secret_value():
        key = None
    if key is None and required:
        from crossdeck.wallet.errors import NoSecretError

        raise NoSecretError(
            f"--webhooks needs the API key of profile {settings.profile!r}: it is the "
            "webhook signature's secret",
            hint="store it with `crossdeck apikey set`, or drop --webhooks to poll only",
        )
    return key


def outcome_code(tracker: StatusTracker, request_ids: list[str]) -> ExitCode:
    """The exit code for how the watched requests ended."""
    from crossdeck.models.status import RequestStatus

    codes = set()
    for rid in request_ids:
        latest = tracker.latest(rid)
        if rid in tracker.given_up():
            codes.add(ExitCode.SERVICE_ERROR)
        elif latest is None or not latest.final:
            codes.add(ExitCode.TIMEOUT)
        elif latest.known_status is RequestStatus.FAILURE:
            codes.add(ExitCode.FAILED)
        elif latest.known_status is not None and latest.known_status.is_refunded:
            codes.add(ExitCode.REFUNDED)
    for code in (ExitCode.FAILED, ExitCode.REFUNDED, ExitCode.SERVICE_ERROR, ExitCode.TIMEOUT):
        if code in codes:
            return code
    return ExitCode.OK


def _summary(tracker: StatusTracker, request_ids: list[str]) -> str:
    counts: dict[str, int] = {}
    for rid in request_ids:
        latest = tracker.latest(rid)
        if rid in tracker.given_up():
            label = "unknown to the service"
        elif latest is None or not latest.final:
            label = "still open"
        else:
            label = str(latest.status)
        counts[label] = counts.get(label, 0) + 1
    return ", ".join(f"{n} {label}" for label, n in sorted(counts.items()))


def _on_problem(problem: Problem) -> None:
    from crossdeck.models.text import short

    where = short(problem.request_id, 8, 6) if problem.request_id else "all requests"
    prefix = "gave up" if problem.given_up else "warning"
    click.echo(f"{prefix}: {where}: {problem.message}", err=True)


async def _watch(
    settings: Settings,
    request_ids: list[str],
    *,
    webhook_port: int | None,
    as_json: bool,
    rate: float | None,
    give_up_after: float | None,
) -> ExitCode:
    from crossdeck import compose
    from crossdeck.track.budget import RateBudget

    api_key = _api_key(settings, required=webhook_port is not None)
    with compose.status_store(settings) as store:
        if not request_ids:
            _forget_never_sent(settings, store)
            request_ids = [stored.request_id for stored in store.unfinished()]
            if not request_ids:
                raise InputError(
                    "nothing to watch: no request ids given and none left unfinished",
                    hint="give the request ids to follow (crossdeck watch 0x...)",
                )
            click.echo(f"resuming {len(request_ids)} unfinished request(s)", err=True)
        if rate is None:
            rate = DEFAULT_RATE_WITH_KEY if api_key is not None else DEFAULT_RATE_ANONYMOUS
        # the tracker's budget handles 429s for all requests at once
        client = compose.service_client(settings, api_key, for_tracker=True)
        receiver = None
        if webhook_port is not None:
            receiver = await _start_receiver(settings, api_key, webhook_port)
        tracker = compose.status_tracker(
            settings,
            client,
            store=store,
            budget=RateBudget(rate),
            on_problem=_on_problem,
            api_key=api_key,
        )
        try:
            async with tracker:
                return await _follow(tracker, request_ids, receiver, as_json, give_up_after)
        finally:
            if receiver is not None:
                await receiver.stop()
            await client.aclose()


def _forget_never_sent(settings: Settings, store: Any) -> None:
    """A run that sent nothing (declined, refused) is not followed: the service never heard
    of it, and polling it would only end in a timeout."""
    from crossdeck.execute.journal import Journal
    from crossdeck.execute.unfinished import reconcile

    with Journal.in_data_dir(settings.data_dir) as journal:
        reconcile(journal, store)


async def _start_receiver(settings: Settings, api_key: Secret | None, port: int) -> Any:
    from crossdeck import compose

    assert api_key is not None
    receiver = compose.webhook_receiver(settings, api_key)
    host = settings.webhook.host
    try:
        await receiver.start(host, port)
    except OSError as exc:
        raise InputError(
            f"cannot receive webhooks on {host}:{port}: {exc.strerror or exc}",
            hint="pick another --webhooks port (0 picks a free one)",
        ) from None
    click.echo(f"receiving webhooks at {receiver.url}", err=True)
    return receiver


async def _follow(
    tracker: StatusTracker,
    request_ids: list[str],
    receiver: Any,
    as_json: bool,
    give_up_after: float | None,
) -> ExitCode:
    updates = tracker.updates(until_done=True)
    for rid in request_ids:
        latest = tracker.track(rid)
        if latest is not None:
            _emit(latest, as_json, stored=True)
    if receiver is not None:
        tracker.attach(receiver)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        # only the main thread may handle signals; elsewhere Ctrl-C stays a KeyboardInterrupt
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)

    async def printing() -> None:
        async for update in updates:
            _emit(update, as_json)

    printer = asyncio.create_task(printing())
    stopper = asyncio.create_task(stop.wait())
    try:
        done, _ = await asyncio.wait(
            {printer, stopper}, timeout=give_up_after, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)
        for task in (printer, stopper):
            task.cancel()
        await asyncio.gather(printer, stopper, return_exceptions=True)

    open_ids = [rid for rid in request_ids if rid in tracker.unfinished()]
    click.echo(f"{len(request_ids)} watched: {_summary(tracker, request_ids)}", err=True)
    if printer in done:
        return outcome_code(tracker, request_ids)
    hint = "resume with `crossdeck watch`"
    if stopper in done:
        click.echo(f"stopped; {len(open_ids)} request(s) still open ({hint})", err=True)
        return ExitCode.ABORTED
    click.echo(f"timed out; {len(open_ids)} request(s) still open ({hint})", err=True)
    return ExitCode.TIMEOUT


def follow_requests(
    settings: Settings, request_ids: list[str], *, as_json: bool, timeout: float | None = None
) -> ExitCode:
    """Follow `request_ids` to their final statuses, printing each change (`watch` without
    webhooks; `status --follow`)."""
    from crossdeck.track.updates import normalise_request_id

    ids = list(dict.fromkeys(normalise_request_id(rid) for rid in request_ids))
    limit = settings.tracking.timeout_seconds if timeout is None else timeout
    return asyncio.run(
        _watch(
            settings,
            ids,
            webhook_port=None,
            as_json=as_json,
            rate=None,
            give_up_after=limit or None,
        )
    )


@click.command("watch")
@click.argument("request_ids", nargs=-1, metavar="[REQUEST_ID]...", type=REQUEST_ID)
@click.option(
    "--webhooks",
    "webhook_port",
    type=PORT,
    metavar="PORT",
    help="Also receive the service's status webhooks on this port (0 picks one); polling "
    "pauses for a request while its webhooks arrive.",
)
@click.option("--json", "json_", is_flag=True, help="One JSON object per update and line.")
@click.option(
    "--rate",
    type=Number(minimum=0.01, maximum=1000),
    help=f"Status requests per second for all requests together (default "
    f"{DEFAULT_RATE_WITH_KEY:g} with an API key, {DEFAULT_RATE_ANONYMOUS:g} without).",
)
@click.option(
    "--timeout",
    type=SECONDS_OR_ZERO,
    help="Stop after this many seconds if not all are final (default: the profile's "
    "tracking.timeout_seconds; 0 waits forever).",
)
@click.pass_obj
@handles_errors
def watch(
    obj: CliContext,
    request_ids: tuple[str, ...],
    webhook_port: int | None,
    json_: bool,
    rate: float | None,
    timeout: float | None,
) -> None:
    """With no REQUEST_ID, resumes the requests a previous watch left unfinished."""
    from crossdeck.config import load_settings
    from crossdeck.track.updates import normalise_request_id

    ids = list(dict.fromkeys(normalise_request_id(rid) for rid in request_ids))
    settings = load_settings(obj.profile, obj.world, obj.signer)
    if timeout is None:
        timeout = settings.tracking.timeout_seconds
    code = asyncio.run(
        _watch(
            settings,
            ids,
            webhook_port=webhook_port,
            as_json=json_ or obj.json,
            rate=rate,
            give_up_after=timeout or None,
        )
    )
    sys.exit(int(code))


commands = [watch]
