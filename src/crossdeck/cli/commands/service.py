"""`crossdeck quote`, `crossdeck status`, `crossdeck venue balance`: the service and the venue
from the command line, read-only (nothing is signed here).

Every command prints words by default and the contract's JSON with `--json` (global or local).
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

import click

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli.option_types import (
    REQUEST_ID,
)
from crossdeck.cli.quote_options import quote_options
from crossdeck.cli.support import handles_errors, print_json, service_client

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.cli import CliContext
    from crossdeck.cli.quote_options import TypedQuote
    from crossdeck.config import Settings
    from crossdeck.execute.guards import GuardResult
    from crossdeck.models import ChainsResponse, Quote, QuoteRequest

JSON_HELP = "Print the JSON answer (same as the global --json)."


# -- shared plumbing ---------------------------------------------------------------------------


def _settings(obj: CliContext) -> Settings:
    from crossdeck.config import load_settings

    return load_settings(obj.profile, obj.world, obj.signer)


def _wants_json(obj: CliContext, local: bool) -> bool:
    return bool(local or obj.json)


# -- quote ---------------------------------------------------------------------------------


def render_quote(
    quote: Quote, request: QuoteRequest, chains: ChainsResponse | None = None
) -> list[str]:
    """The quote in words as `crossdeck quote` and `crossdeck bridge` print it: the describer's
    sections (every step item, amounts in units next to their integers), as text; `chains`
    names the chains and currencies."""
    from crossdeck.execute.describe import quote_sections, text_lines

    return text_lines(quote_sections(quote, chains, request))


async def _quote(
    settings: Settings, typed: TypedQuote
) -> tuple[Quote, QuoteRequest, ChainsResponse | None, list[dict[str, Any]]]:
    """`quote_with` a service client of its own; with what a retiring quote endpoint said
    about its end (on stderr once a day, `support.deprecation_notices`)."""
    from crossdeck.cli.support import deprecation_notices

    async with service_client(settings) as client:
        quote, request, chains = await quote_with(client, typed)
        return quote, request, chains, deprecation_notices(client, settings)


async def quote_with(
    client: ServiceClient, typed: TypedQuote
) -> tuple[Quote, QuoteRequest, ChainsResponse | None]:
    """The quote the options ask for, its request, and the /chains answer when one was needed
    for currency symbols or the amount's decimals (so that the guards need not ask again)."""
    from crossdeck.cli.quote_options import quote_request

    request, chains = await quote_request(client, typed)
    return await client.quote(request), request, chains


@click.command("quote")
@quote_options
@click.option("--json", "json_", is_flag=True, help=JSON_HELP)
@click.pass_obj
@handles_errors
def quote_command(obj: CliContext, /, json_: bool, **options: Any) -> None:
    from crossdeck.cli.chain_families import learn_chain_families
    from crossdeck.cli.quote_options import read_quote

    settings = _settings(obj)
    # an SVM chain is any /chains lists as one: its family decides whose wallet is the user
    asyncio.run(
        learn_chain_families(settings, options["origin_chain"], options["destination_chain"])
    )
    typed = read_quote(settings, options)
    quote, request, chains, notices = asyncio.run(_quote(settings, typed))
    if _wants_json(obj, json_):
        # a v2 answer's end, as the service's own v2 listings carry it: a `deprecation` object
        print_json({**quote.to_wire(), **({"deprecation": notices[0]} if notices else {})})
        return
    from crossdeck.cli.quote_verdict import lead_lines, verdict
    from crossdeck.cli.venue_fee import venue_fee_words

    results, chains = asyncio.run(_checks(settings, quote, request, chains))
    extra = asyncio.run(venue_fee_words(settings, request))  # a withdrawal from the venue
    for line in lead_lines(quote, results, chains, extra):  # the verdict first, then the detail
        click.echo(line)
    for line in render_quote(quote, request, chains):
        click.echo(line)
    for result in results:  # what the simulation of undecoded calldata showed
        if result.name == "balance-changes" and result.ok:
            click.echo(f"Simulated    {result.message.partition('): ')[2] or result.message}")
    for line in _check_lines(results):
        click.echo(line)
    passed, _ = verdict(results)
    if not passed:  # a script sees it too: bridge would refuse this quote as it stands
        sys.exit(int(ExitCode.GUARD_REFUSED))


async def _checks(
    settings: Settings, quote: Quote, request: QuoteRequest, chains: ChainsResponse | None
) -> tuple[list[GuardResult], ChainsResponse | None]:
    """The guards `crossdeck bridge` runs before the first signature, for the quote's user:
    against the request, /chains (`chains`, or asked for here) and the quote itself (the
    venue-nonce guard included), and whether the wallet holds the payment and its gas (when
    the paying chain has an RPC); with the /chains answer they used."""
    from crossdeck import compose
    from crossdeck.execute.guards import check_quote
    from crossdeck.execute.guards.funds import quote_time_funds
    from crossdeck.execute.guards.venue_words import spot_meta_for

    if chains is None:
        async with service_client(settings) as client:
            try:
                chains = await client.chains()
            except CrossdeckError:
                chains = None  # the guards that need it refuse, saying so
    pool = compose.gateways(settings)
    if chains is not None:
        pool.adopt(chains)  # /chains' RPC where the settings name none, as bridge does
    for note in pool.notes(quote):
        click.echo(f"note: {note}", err=True)
    rpc = {**settings.rpc, **pool.from_chains}
    async with compose.venue_client(settings) as venue:
        spot_meta = await spot_meta_for(quote, venue)
        results = check_quote(
            quote,
            wallet=request.user,
            rpc_chain_ids=set(rpc),
            chains=chains,
            request=request,
            service_name=settings.service.name,
            spot_meta=spot_meta,
        )
        results += await quote_time_funds(quote, request.user, chains, rpc, venue)
    return results, chains


def _check_lines(results: list[GuardResult]) -> list[str]:
    failed = [r for r in results if not r.ok]
    head = (
        f"Checks       {len(failed)} of {len(results)} FAILED: bridge would refuse this quote"
        if failed
        else f"Checks       all {len(results)} pre-sign checks passed"
    )
    return [head] + [f"  {r}" for r in failed] + [f"  {r}" for r in results if r.ok]


# -- status --------------------------------------------------------------------------------


@click.command("status")
@click.argument("request_id", type=REQUEST_ID)
@click.option("--v3", "v3", is_flag=True, help="Use /intents/status/v3 (adds fail reasons).")
@click.option("--json", "json_", is_flag=True, help=JSON_HELP)
@click.option(
    "--follow",
    is_flag=True,
    help="Follow the request to its final status, one line per change (the status socket, "
    "with polls standing in), as `crossdeck watch` does; its exit codes.",
)
@click.pass_obj
@handles_errors
def status_command(obj: CliContext, request_id: str, v3: bool, json_: bool, follow: bool) -> None:
    settings = _settings(obj)
    if follow:
        from crossdeck.cli.commands.watch import follow_requests

        sys.exit(int(follow_requests(settings, [request_id], as_json=_wants_json(obj, json_))))

    async def fetch() -> Any:
        async with service_client(settings) as client:
            return await (client.status_v3(request_id) if v3 else client.status(request_id))

    from crossdeck.execute.describe import json_text, time_line
    from crossdeck.models.fail_reasons import reason_words

    status = asyncio.run(fetch())
    if _wants_json(obj, json_):
        print_json(status.to_wire())
        return
    click.echo(f"request   {request_id}")
    click.echo(f"status    {status_words(status.status, status.is_final)}")
    click.echo(f"chains    {status.origin_chain_id} -> {status.destination_chain_id}")
    click.echo(f"in txs    {', '.join(status.in_tx_hashes or []) or '-'}")
    click.echo(f"out txs   {', '.join(status.tx_hashes or []) or '-'}")
    if v3:
        click.echo(time_line("updated", status.updated_at).text(9))
        click.echo(f"fail      {reason_words(status.fail_reason) or '-'}")
        click.echo(f"refund    {reason_words(status.refund_fail_reason, refund=True) or '-'}")
    else:
        click.echo(time_line("time", status.time).text(9))
    if status.details is not None:
        click.echo(f"details   {json_text(status.details)}")


def status_words(status: str | None, final: bool) -> str:
    """The status as the service names it today (`/intents/status/v3`, the request history,
    the webhooks): the older endpoint's `fallback` is the others' `refund`, and says so."""
    from crossdeck.models.status import RequestStatus

    if status == RequestStatus.FALLBACK:
        return "refund (final; the older /intents/status calls it fallback)"
    return f"{status or '-'}{' (final)' if final else ''}"


# -- chains --------------------------------------------------------------------------------


@click.command("chains")
@click.argument("chain", required=False)
@click.option("--json", "json_", is_flag=True, help=JSON_HELP)
@click.pass_obj
@handles_errors
def chains_command(obj: CliContext, chain: str | None, json_: bool) -> None:
    """The chains and currencies the service supports (CHAIN: one of them, by id or name); the
    venue's (1337) are labelled perps, spot or HIP-3 <DEX>. A symbol shown here is accepted
    wherever a currency is (--origin-currency USDC)."""
    from crossdeck.cli.chains_listing import chains_text, chains_wire, only_chain

    settings = _settings(obj)

    async def fetch() -> Any:
        async with service_client(settings) as client:
            return await client.chains()

    chains = only_chain(asyncio.run(fetch()), chain)
    if _wants_json(obj, json_):
        print_json(chains_wire(chains))
        return
    for line in chains_text(chains):
        click.echo(line)


commands = [quote_command, status_command, chains_command]
