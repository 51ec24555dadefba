"""`crossdeck bridge`: quote, show, confirm, execute every step and track it to the end.

Text mode prints the quote in words, the guard results, then one line per event (and every
signature request in full before it is signed); `--json` prints `{"event": "Quote", ...}` and
then one line per executor event (`commands.execute` renders both). A Solana transaction over
1232 bytes, refused before anything is asked, is quoted once more for the shortest route.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

import click

from crossdeck.base.errors import InputError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import prompts
from crossdeck.cli.commands.execute import (
    JSON_HELP,
    _close,
    _drain,
    _executor,
    _item_count,
    _open_signer,
    _settings,
)
from crossdeck.cli.option_types import POSITIVE, SECONDS
from crossdeck.cli.quote_options import quote_options
from crossdeck.cli.support import handles_errors, print_json

if TYPE_CHECKING:
    from crossdeck.cli import CliContext
    from crossdeck.cli.quote_options import TypedQuote
    from crossdeck.compose import Confirm
    from crossdeck.config import Settings
    from crossdeck.execute import SignRequest
    from crossdeck.wallet.signers import EvmSigner


def _confirm_added_steps(quote: Any, yes: bool) -> Confirm:
    """The run's `confirm`: the whole quote was shown and confirmed up front; a step that a
    POST answer added was not, so it is asked for separately unless --yes."""
    shown = {(step.id, index) for step in quote.steps for index, _ in enumerate(step.items)}

    async def confirm(what: SignRequest) -> bool:
        if yes or (what.step_id, what.item_index) in shown:
            return True
        return await asyncio.to_thread(
            prompts.confirm, f"The service added step {what.step_id!r}. Sign it?", instead="--yes"
        )

    return confirm


@click.command("bridge")
@quote_options
@click.option("--yes", "-y", is_flag=True, help="Execute without asking (the quote is shown).")
@click.option(
    "--deposit-amount",
    type=POSITIVE,
    help="With --use-deposit-address: send this amount (smallest unit) instead of the quoted "
    "one (open: filled at the quoted rate; strict: short is refunded, excess refunded apart).",
)
@click.option("--timeout", type=SECONDS, help="Stop tracking after this many seconds (exit 10).")
@click.option(
    "--deposit-fee-payer-keypair",
    "fee_payer_keypair",
    metavar="FILE",
    help="Solana origin with --deposit-fee-payer another account: its keypair, which signs the "
    "deposit too (a Solana CLI keypair file or base58 of the 64 bytes; - reads stdin). Read "
    "for this run only, never stored or printed.",
)
@click.option("--json", "json_", is_flag=True, help=JSON_HELP)
@click.pass_obj
@handles_errors
def bridge_command(
    obj: CliContext,
    /,
    yes: bool,
    deposit_amount: int | None,
    timeout: float | None,
    fee_payer_keypair: str | None,
    json_: bool,
    **options: Any,
) -> None:
    """Interrupted runs continue with `crossdeck resume`; nothing is sent twice."""
    from crossdeck.wallet.signers import ReadOnlySigner

    as_json = bool(json_ or obj.json)
    settings = _settings(obj)
    if settings.signer.kind == "read-only" and settings.signer.address:
        refusal = ReadOnlySigner(settings.signer.address).refuse("this transfer")
        refusal.hint = (
            # --from is a global option: it goes before the command, as in cast
            f"`crossdeck --from {settings.signer.address} quote` with the same options shows "
            "it; sign with the keyring key, "
            "--account NAME, --keystore PATH or --browser"
        )
        raise refusal
    if deposit_amount is not None and not options.get("use_deposit_address"):
        raise InputError("--deposit-amount applies with --use-deposit-address only")
    options["fee_payer_keypair"] = fee_payer_keypair
    code = asyncio.run(_bridge(settings, options, yes, as_json, deposit_amount, timeout))
    sys.exit(int(code))


async def _bridge(
    settings: Settings,
    options: dict[str, Any],
    yes: bool,
    as_json: bool,
    deposit_amount: int | None,
    tracking_timeout: float | None,
    opened: EvmSigner | None = None,
) -> ExitCode:
    """The signer is opened first (a keystore unlocked, the browser wallet connected): the
    quote is asked for its address. `opened`: a signer the caller already opened (and closes),
    as `venue withdraw` does to read the account of the browser wallet it connected."""
    if opened is not None:
        return await _bridge_as(
            settings, opened, options, yes, as_json, deposit_amount, tracking_timeout
        )
    signer = await _open_signer(settings)
    try:
        return await _bridge_as(
            settings, signer, options, yes, as_json, deposit_amount, tracking_timeout
        )
    finally:
        await signer.aclose()


async def _bridge_as(
    settings: Settings,
    signer: EvmSigner,
    options: dict[str, Any],
    yes: bool,
    as_json: bool,
    deposit_amount: int | None,
    tracking_timeout: float | None,
) -> ExitCode:
    from crossdeck.cli.chain_families import learn_chain_families
    from crossdeck.cli.fee_payer_key import fee_payer_key
    from crossdeck.cli.quote_options import read_quote
    from crossdeck.models.addresses import Family, family_of, same_address
    from crossdeck.quoting.shortest_route import shortest_route

    # an SVM chain is any /chains lists as one: its family decides whose wallet signs
    await learn_chain_families(settings, options["origin_chain"], options["destination_chain"])
    wallet = signer.address
    origin = family_of(options["origin_chain"])
    if origin is not Family.EVM:
        from crossdeck.credentials import resolve_family_address

        # a Solana or Bitcoin deposit is signed by the profile's key of that family
        # (`wallet import-solana`, `wallet import-bitcoin`)
        wallet = resolve_family_address(settings, origin) or ""
    fee_payer = fee_payer_key(
        options.pop("fee_payer_keypair", None),
        options.get("deposit_fee_payer"),
        wallet,
        from_solana=origin is Family.SOLANA,
    )
    typed = read_quote(settings, options, user=wallet or None)
    if not same_address(typed.checked.user, wallet):
        whose = (
            "this profile's wallet"
            if signer.source.kind in ("keyring", "world")
            else f"the signer's address ({signer.source.kind})"
        )
        raise InputError(
            f"--user {typed.checked.user} is not {whose} {wallet}",
            hint="bridge signs as its signer; use `crossdeck quote` to just look",
        )
    code, refused = await _quote_and_run(
        settings, signer, typed, yes, as_json, deposit_amount, tracking_timeout, fee_payer,
    )  # fmt: skip
    shorter = shortest_route(typed.values, refused)
    if shorter is not None:
        # SOLANA_TX_TOO_LARGE before anything was asked: the service routes a Solana swap
        # over fewer hops when asked (maxRouteLength), so ask once for the shortest route
        click.echo(
            "note: the Solana transaction is over 1232 bytes; asking the service again for "
            "the shortest route (maxRouteLength 1)",
            err=True,
        )
        code, _ = await _quote_and_run(
            settings, signer, typed.with_values(shorter), yes, as_json, deposit_amount,
            tracking_timeout, fee_payer,
        )  # fmt: skip
    return code


async def _quote_and_run(
    settings: Settings,
    signer: EvmSigner,
    typed: TypedQuote,
    yes: bool,
    as_json: bool,
    deposit_amount: int | None,
    tracking_timeout: float | None,
    fee_payer: Any,
) -> tuple[ExitCode, set[str]]:
    """Quote, show, confirm and run once: the exit code, and the guards that refused the run
    before anything was signed (empty when none did)."""
    from crossdeck import compose
    from crossdeck.cli.commands.service import quote_with, render_quote
    from crossdeck.cli.support import deprecation_notices, service_client

    # one service client for the quote and the run (one key read, one connection)
    service = service_client(settings)
    try:
        # the run's modules load while the service works out the quote (a thread: the event
        # loop sends the request and waits; most of a bridge's CPU is imports)
        (quote, request, asked), _ = await asyncio.gather(
            quote_with(service, typed), asyncio.to_thread(compose.load_run_modules)
        )
        notices = deprecation_notices(service, settings)  # stderr, once a day
        confirm = _confirm_added_steps(quote, yes)
        executor = _executor(
            settings, confirm, tracking_timeout, signer, service=service,
            solana_fee_payer=fee_payer,
        )  # fmt: skip
    except BaseException:
        await service.aclose()
        raise
    try:
        # maps the payment's chain name, when it has one, and names chains and currencies
        chains = await executor.chains_for(quote, known=asked)
        for note in getattr(executor.gateways, "notes", lambda _q: [])(quote):
            click.echo(f"note: {note}", err=True)  # which URL a chain's RPC is, when not ours
        if as_json:
            print_json(
                {
                    "event": "Quote",
                    "quote": quote.to_wire(),
                    "signer": executor.signer_for(quote).to_json(),
                    **({"deprecation": notices[0]} if notices else {}),
                }
            )
        if as_json and yes:
            # nothing shows or asks before the run, whose first event is these very checks
            guards = []
        else:
            guards = executor.check(quote, request)
            if deposit_amount is None:
                guards += await executor.check_funds(quote)
        if not as_json:
            for line in render_quote(quote, request, chains):
                click.echo(line)
            if deposit_amount is not None:
                click.echo(f"Deposit      sending {deposit_amount} instead of the quoted amount")
            click.echo(f"Signer       {executor.signer_for(quote).words()}")
            bad = [g for g in guards if not g.ok]
            if bad:
                click.echo(
                    f"Checks       {len(bad)} of {len(guards)} FAILED: this quote is refused"
                )
            else:
                click.echo(f"Checks       all {len(guards)} pre-sign checks passed")
        if all(g.ok for g in guards) and not yes:
            from crossdeck.cli.quote_verdict import summary_line
            from crossdeck.cli.venue_fee import venue_fee_words

            # the quote's detail runs to many lines: what is paid and got, right above the ask
            # (on stderr with it, so it stays there when stdout goes to a file); a withdrawal
            # from the venue names the venue's own first-send fee, which the quote does not price
            extra = await venue_fee_words(settings, request)
            click.echo(f"\n{summary_line(quote, chains, extra)}", err=True)
            go = await asyncio.to_thread(prompts.confirm, "Execute this quote?", instead="--yes")
            if not go:
                click.echo("declined: nothing was signed", err=True)
                return ExitCode.ABORTED, set()
        events = executor.run(quote, request=request, deposit_amount=deposit_amount)
        last: list[Any] = []
        code = await _drain(_watched(events, last), as_json, _item_count(quote.to_wire()))
        refused = {f.name for f in getattr(last[-1], "failures", ()) if not f.ok} if last else set()
        return code, refused
    finally:
        await _close(executor)


async def _watched(events: Any, last: list[Any]) -> Any:
    """`events`, keeping the last one in `last`."""
    async for event in events:
        last[:] = [event]
        yield event


commands = [bridge_command]
