"""`crossdeck webhook serve|verify|sign`: receive status webhooks, and check or make signatures.

The API key (the HMAC secret, spec 6.3) comes from the profile's keyring entry (or the demo
world), unless `--api-key-env VAR` names an environment variable that holds it. It is never
accepted as an option value, so it does not end up in shell history or the process list.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, BinaryIO

import click

from crossdeck.base.errors import InputError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.base.secret import Secret
from crossdeck.cli.option_types import NON_NEGATIVE, PORT, POSITIVE, SECONDS_OR_ZERO
from crossdeck.cli.support import handles_errors, print_json
from crossdeck.track import webhook_defaults as defaults
from crossdeck.track.hmac_sig import (
    DEFAULT_TOLERANCE_SECONDS,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    signature_headers,
    verify,
)

if TYPE_CHECKING:
    from crossdeck.cli import CliContext
    from crossdeck.track.receiver import ReceivedEvent

API_KEY_ENV_HELP = (
    "Read the API key from this environment variable instead of the keyring "
    "(for example --api-key-env CROSSDECK_API_KEY)."
)


def _api_key(obj: CliContext, env_var: str | None) -> Secret:
    from crossdeck.wallet.errors import NoSecretError

    if env_var:
        value = os.environ.get(env_var, "")
        if not value:
            raise NoSecretError(
                f"environment variable {env_var} is not set or empty",
                hint="export the API key in it, or drop --api-key-env to use the keyring",
            )
        return Secret(value)
    from crossdeck.config import load_settings
    from crossdeck.credentials import resolve_api_key

    key = resolve_api_key(load_settings(obj.profile, obj.world, obj.signer))
    if key is None or not key.get_secret_value():
        raise NoSecretError(
            "no API key is stored for this profile",
            hint="store one in the keyring, or pass --api-key-env VAR",
        )
    return key


def _read_body(body_file: BinaryIO | None) -> bytes:
    # The exact bytes are signed: nothing is stripped, so a trailing newline counts.
    stream = body_file if body_file is not None else sys.stdin.buffer
    return stream.read()


@click.group()
def webhook() -> None:
    pass  # a group: its summary is in crossdeck.cli.COMMANDS


@webhook.command("verify")
@click.option("--timestamp", required=True, help="The X-Signature-Timestamp value (Unix seconds).")
@click.option("--signature", required=True, help="The X-Signature-SHA256 value (lower-case hex).")
@click.option(
    "--body-file",
    type=click.File("rb"),
    help="File with the exact body bytes; standard input when omitted.",
)
@click.option("--api-key-env", metavar="VAR", help=API_KEY_ENV_HELP)
@click.option(
    "--tolerance",
    type=SECONDS_OR_ZERO,  # finite: nan or inf is no replay window
    default=DEFAULT_TOLERANCE_SECONDS,
    show_default=True,
    help="Seconds the timestamp may differ from now.",
)
@click.option("--ignore-time", is_flag=True, help="Check only the signature, not its age.")
@click.pass_obj
@handles_errors
def verify_cmd(
    obj: CliContext,
    timestamp: str,
    signature: str,
    body_file: BinaryIO | None,
    api_key_env: str | None,
    tolerance: float,
    ignore_time: bool,
) -> None:
    """Check a delivery's signature: exit 0 when valid, 1 with the reason when not."""
    key = _api_key(obj, api_key_env)
    body = _read_body(body_file)
    verdict = verify(key, timestamp, body, signature, tolerance=None if ignore_time else tolerance)
    if obj.json:
        print_json({"valid": verdict.ok, "reason": verdict.reason.value, "detail": verdict.detail})
    elif verdict.ok:
        click.echo("valid")
    if not verdict.ok:
        click.echo(f"invalid: {verdict}", err=True)
        sys.exit(int(ExitCode.ERROR))


@webhook.command()
@click.option(
    "--body-file",
    type=click.File("rb"),
    help="File with the exact body bytes; standard input when omitted.",
)
@click.option("--api-key-env", metavar="VAR", help=API_KEY_ENV_HELP)
@click.option(
    "--timestamp",
    type=NON_NEGATIVE,
    help="Unix seconds to sign at; now when omitted.",
)
@click.pass_obj
@handles_errors
def sign(
    obj: CliContext,
    body_file: BinaryIO | None,
    api_key_env: str | None,
    timestamp: int | None,
) -> None:
    """Print the two signature headers for a body, to test a receiver with."""
    key = _api_key(obj, api_key_env)
    headers = signature_headers(key, _read_body(body_file), timestamp=timestamp)
    if obj.json:
        print_json(headers)
    else:
        click.echo(f"{TIMESTAMP_HEADER}: {headers[TIMESTAMP_HEADER]}")
        click.echo(f"{SIGNATURE_HEADER}: {headers[SIGNATURE_HEADER]}")


def _parse_required_headers(specs: tuple[str, ...]) -> dict[str, Secret]:
    required: dict[str, Secret] = {}
    for spec in specs:
        name, sep, env_var = spec.partition("=")
        if not sep or not name.strip() or not env_var.strip():
            raise InputError(
                f"--require-header {spec!r} is not NAME=VAR",
                hint="for example --require-header Authorization=WEBHOOK_AUTH",
            )
        value = os.environ.get(env_var.strip(), "")
        if not value:
            raise InputError(
                f"--require-header {name.strip()}: environment variable {env_var.strip()} "
                "is not set or empty",
                hint="export the exact header value in it (e.g. 'Bearer ...')",
            )
        required[name.strip()] = Secret(value)
    return required


def _event_line(item: ReceivedEvent) -> str:
    data = item.event.data
    received = datetime.fromtimestamp(item.received_at, UTC).strftime("%H:%M:%S.%f")[:-3]
    if data is None:  # the receiver refuses such bodies; kept for type narrowing
        return f"{received} (no data)"
    parts = [
        received,
        f"{data.status!s:<10}",
        str(data.request_id),
        f"{data.origin_chain_id}->{data.destination_chain_id}",
        f"in={','.join(data.in_tx_hashes or []) or '-'}",
        f"out={','.join(data.tx_hashes or []) or '-'}",
    ]
    if data.fail_reason and data.fail_reason != "N/A":
        parts.append(f"failReason={data.fail_reason}")
    if data.refund_fail_reason and data.refund_fail_reason != "N/A":
        parts.append(f"refundFailReason={data.refund_fail_reason}")
    return " ".join(parts)


def _event_json(item: ReceivedEvent) -> dict[str, object]:
    return {
        "receivedAt": int(item.received_at * 1000),
        "signedAt": item.signed_at,
        "event": item.event.to_wire(),
    }


async def _serve(
    key: Secret,
    *,
    host: str,
    port: int,
    path: str,
    required: dict[str, Secret],
    tolerance: float,
    max_body_bytes: int,
    count: int | None,
    as_json: bool,
) -> int:
    from crossdeck.track.receiver import WebhookReceiver

    receiver = WebhookReceiver(
        key,
        path=path,
        required_headers=required,
        tolerance_seconds=tolerance,
        max_body_bytes=max_body_bytes,
    )
    try:
        await receiver.start(host, port)
    except OSError as exc:
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}",
            hint="pick another --port (0 picks a free one)",
        ) from None
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda: asyncio.ensure_future(receiver.stop()))
    click.echo(f"listening on {receiver.url} (Ctrl-C to stop)", err=True)
    printed = 0
    try:
        async for item in receiver.events():
            if as_json:
                print_json(_event_json(item))
            else:
                click.echo(_event_line(item))
            sys.stdout.flush()
            printed += 1
            if count is not None and printed >= count:
                break
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await receiver.stop()
    stats = receiver.stats
    click.echo(
        f"stopped: {stats.accepted} accepted, {stats.duplicates} duplicates, "
        f"{sum(stats.rejected.values())} rejected",
        err=True,
    )
    return printed


@webhook.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option(
    "--port",
    type=PORT,
    default=0,
    show_default=True,
    help="Port to listen on; 0 picks a free one (the URL is printed on stderr).",
)
@click.option(
    "--path",
    default=defaults.DEFAULT_WEBHOOK_PATH,
    show_default=True,
    help="URL path to accept POSTs on (the same default as `watch --webhooks` and the app).",
)
@click.option("--api-key-env", metavar="VAR", help=API_KEY_ENV_HELP)
@click.option(
    "--require-header",
    "require_headers",
    multiple=True,
    metavar="NAME=VAR",
    help="Also require header NAME equal to the value of environment variable VAR "
    "(the custom headers configured with the endpoint, e.g. Authorization). Repeatable.",
)
@click.option(
    "--tolerance",
    type=SECONDS_OR_ZERO,  # finite: nan or inf is no replay window
    default=DEFAULT_TOLERANCE_SECONDS,
    show_default=True,
    help="Seconds a delivery's timestamp may differ from now (replay window).",
)
@click.option(
    "--max-body-bytes",
    type=POSITIVE,
    default=defaults.MAX_BODY_BYTES,
    show_default=True,
    help="Larger deliveries are refused with 413.",
)
@click.option("--count", type=POSITIVE, help="Exit after printing this many events.")
@click.option("--json", "json_", is_flag=True, help="Print events as JSON lines.")
@click.pass_obj
@handles_errors
def serve(
    obj: CliContext,
    host: str,
    port: int,
    path: str,
    api_key_env: str | None,
    require_headers: tuple[str, ...],
    tolerance: float,
    max_body_bytes: int,
    count: int | None,
    json_: bool,
) -> None:
    """Receive status webhooks and print each verified event (text, or JSON lines)."""
    import logging

    if not path.startswith("/"):
        raise InputError(f"--path must start with '/', got {path!r}")
    key = _api_key(obj, api_key_env)
    required = _parse_required_headers(require_headers)
    # Rejected deliveries are reported on stderr, so stdout stays one line per event.
    receiver_log = logging.getLogger("crossdeck.track.receiver")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    receiver_log.addHandler(handler)
    receiver_log.setLevel(logging.INFO)
    try:
        asyncio.run(
            _serve(
                key,
                host=host,
                port=port,
                path=path,
                required=required,
                tolerance=tolerance,
                max_body_bytes=max_body_bytes,
                count=count,
                as_json=json_ or obj.json,
            )
        )
    finally:
        receiver_log.removeHandler(handler)


commands = [webhook]
