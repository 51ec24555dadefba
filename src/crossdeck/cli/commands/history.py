"""`crossdeck requests`: request history with every filter, streamed.

The listing comes from GET /requests/v3 where the service offers it, else from the deprecated
GET /requests/v2 (`ServiceClient.list_requests` holds the rule). Which one answered, and the
deprecation notice a v2 answer carries, go to stderr: stdout stays the records alone.

Output goes out row by row as pages arrive: a table by default, `--json` JSON lines (each
record's wire form), `--csv` a header and rows with stable columns. Without `--all`/`--pages`
one page is shown and, when there is more, stderr says how to continue. Every value is checked
before the first request (see `crossdeck.history.filters`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from crossdeck.base.errors import InputError
from crossdeck.cli.option_types import ANY_ADDRESS, parse_whole_number
from crossdeck.cli.support import handles_errors, service_client

if TYPE_CHECKING:
    from crossdeck.base.secret import Secret
    from crossdeck.cli import CliContext
    from crossdeck.config import Settings
    from crossdeck.history import OutputFormat, WalkStats
    from crossdeck.models import RequestsQuery

_FILTER_OPTIONS = (
    "user",
    "hash",
    "origin_chain",
    "destination_chain",
    "chain",
    "id",
    "order_id",
    "status",
    "start",
    "end",
    "start_block",
    "end_block",
    "referrer",
    "deposit_address",
    "private_chains",
    "include_child_requests",
    "include_order_data",
    "include_authenticated_data",
    "sort_by",
    "sort_direction",
    "limit",
    "continuation",
)


def _own_api_key(settings: Settings) -> Secret:
    from crossdeck.credentials import resolve_api_key

    key = resolve_api_key(settings)
    if key is None:
        raise InputError(
            f"--own-api-key: profile {settings.profile!r} has no API key",
            hint="store one with `crossdeck apikey set`, or pass --api-key-filter",
        )
    return key


def _page_limit(all_pages: bool, pages: str | None) -> int | None:
    """How many pages to follow: None = all."""
    if all_pages and pages is not None:
        raise InputError("give either --all or --pages N, not both")
    if all_pages:
        return None
    if pages is None:
        return 1
    try:
        return parse_whole_number(pages, minimum=1)
    except InputError as exc:
        raise InputError(f"--pages: {exc.message}", hint="e.g. --pages 3") from None


def _output_format(obj: CliContext, json_: bool, csv_: bool) -> OutputFormat:
    wants_json = json_ or obj.json
    if wants_json and csv_:
        raise InputError("give either --json or --csv, not both")
    return "jsonl" if wants_json else "csv" if csv_ else "table"


class _Stdout:
    """Lines to stdout, flushed per page so a pipe sees rows as they come; a closed pipe
    (`| head`) ends the listing quietly."""

    def __init__(self) -> None:
        self.closed = False

    def line(self, text: str) -> None:
        if not self.closed:
            try:
                sys.stdout.write(text + "\n")
            except BrokenPipeError:
                self._close()

    def flush(self) -> None:
        if not self.closed:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                self._close()

    def _close(self) -> None:
        self.closed = True
        # keep Python from failing again when it flushes stdout at exit
        with contextlib.suppress(OSError, ValueError):  # stdout may have no file descriptor
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())


async def _stream(
    settings: Settings, query: RequestsQuery, fmt: OutputFormat, max_pages: int | None
) -> None:
    from crossdeck.history import (
        WalkStats,
        describe_filters,
        header_for,
        line_renderer,
        stream_records,
    )

    out = _Stdout()
    render = line_renderer(fmt)
    header = header_for(fmt)
    stats = WalkStats()
    pages_written = 0
    async with service_client(settings) as client:
        async for record in stream_records(client, query, max_pages=max_pages, stats=stats):
            if header is not None:
                out.line(header)
                header = None
            out.line(render(record))
            if stats.pages != pages_written:
                pages_written = stats.pages
                out.flush()
            if out.closed:
                return
    if stats.records == 0:
        if fmt == "csv" and header is not None:
            out.line(header)
        click.echo(f"no requests match ({describe_filters(query)})", err=True)
    out.flush()
    if stats.duplicates:
        click.echo(
            f"note: the service listed {stats.duplicates} request(s) twice (a request updated "
            "while paging moves with sortBy=updatedAt); each was printed once",
            err=True,
        )
    if stats.next_cursor:
        click.echo(
            f"more requests: add --all, or continue with --continuation {stats.next_cursor}",
            err=True,
        )
    _listing_notes(stats, client.listing_fallback)


def _listing_notes(stats: WalkStats, fallback: str | None) -> None:
    """stderr lines saying the listing came from v2 and why, and v2's deprecation notice."""
    if stats.listing == "v2" and fallback:
        click.echo(f"note: listed from GET /requests/v2 ({fallback})", err=True)
    notice = stats.deprecation
    if notice is not None:
        sunset = f" (sunset {notice.sunset_at})" if notice.sunset_at else ""
        guide = f"; see {notice.migration_guide}" if notice.migration_guide else ""
        click.echo(f"deprecation: {notice.text}{sunset}{guide}", err=True)


@click.command("requests")
@click.option(
    "--user",
    metavar="ADDR",
    type=ANY_ADDRESS,
    help="Requests where ADDR is the sender or recipient.",
)
@click.option("--hash", metavar="H", help="Requests with this origin or destination tx hash.")
@click.option("--origin-chain", metavar="N", help="Origin chain id.")
@click.option("--destination-chain", metavar="N", help="Destination chain id.")
@click.option(
    "--chain", metavar="N", help="Requests on chain N in either direction (not with the two above)."
)
@click.option("--id", "id_", metavar="ID", help="One request by its id (0x + 64 hex).")
@click.option("--order-id", metavar="ID", help="The protocol order id of the deposit.")
@click.option("--status", metavar="S", help="success, failure, refund, pending or depositing.")
@click.option(
    "--start", metavar="T", help="Created at or after T: ISO 8601 (UTC if no zone) or Unix seconds."
)
@click.option(
    "--end",
    metavar="T",
    help="Created at or before T (a bare date means the end of that day, UTC).",
)
@click.option("--start-block", metavar="N", help="Origin-chain block, inclusive lower bound.")
@click.option("--end-block", metavar="N", help="Origin-chain block, inclusive upper bound.")
@click.option(
    "--referrer",
    metavar="R",
    help="The referrer given at quote time (/requests/v3 takes it only with your own API key "
    "filter; otherwise this listing asks /requests/v2).",
)
@click.option(
    "--deposit-address",
    metavar="ADDR",
    type=ANY_ADDRESS,
    help="Requests tied to this deposit address.",
)
@click.option(
    "--api-key-filter",
    metavar="K",
    help="Requests created with API key K (prefer --own-api-key: it keeps K out of your "
    "shell history).",
)
@click.option(
    "--own-api-key", is_flag=True, help="Requests created with this profile's own API key."
)
@click.option("--private-chains", metavar="UUIDS", help="Comma-separated private chain UUIDs.")
@click.option(
    "--include-child-requests",
    is_flag=True,
    help="With --id or --deposit-address: also duplicates, retries and refunds.",
)
@click.option(
    "--include-order-data",
    is_flag=True,
    help="Include each request's raw orderData (a /requests/v2 field: asks v2).",
)
@click.option(
    "--include-authenticated-data",
    is_flag=True,
    help="Include fields only the creating API key may see (needs that key).",
)
@click.option("--sort-by", metavar="createdAt|updatedAt", help="Sort key (default createdAt).")
@click.option("--sort-direction", metavar="asc|desc", help="Sort direction.")
@click.option("--limit", metavar="N", help="Requests per page, 1..50 (service default 20).")
@click.option("--all", "all_pages", is_flag=True, help="Follow the cursor to the end (streamed).")
@click.option("--pages", metavar="N", help="Follow the cursor for at most N pages.")
@click.option("--continuation", metavar="CURSOR", help="Start from a cursor printed earlier.")
@click.option("--json", "json_", is_flag=True, help="JSON lines: one record (wire form) per line.")
@click.option("--csv", "csv_", is_flag=True, help="CSV: a header, then one row per request.")
@click.pass_obj
@handles_errors
def requests_command(
    obj: CliContext,
    /,
    json_: bool,
    csv_: bool,
    all_pages: bool,
    pages: str | None,
    id_: str | None,
    api_key_filter: str | None,
    own_api_key: bool,
    **options: Any,
) -> None:
    """One page unless --all or --pages N; rows stream out as pages arrive. Times are ISO 8601
    or Unix seconds. Order: the service's default unless --sort-by/--sort-direction.
    """
    from crossdeck.config import load_settings
    from crossdeck.history import build_query

    fmt = _output_format(obj, json_, csv_)
    max_pages = _page_limit(all_pages, pages)
    if api_key_filter is not None and own_api_key:
        raise InputError("give either --api-key-filter or --own-api-key, not both")
    filters = {name: options[name] for name in _FILTER_OPTIONS if name != "id"}
    query = build_query(id=id_, api_key_filter=api_key_filter, **filters)
    settings = load_settings(obj.profile, obj.world, obj.signer)
    if own_api_key:
        query = query.model_copy(update={"api_key": _own_api_key(settings).get_secret_value()})
    asyncio.run(_stream(settings, query, fmt, max_pages))


commands = [requests_command]
