"""`crossdeck venue balance|transfer|withdraw`: the trader's whole venue account.

`balance` reads the account as the venue means it (its mode first, then each book, sub accounts
and vault equities); `transfer` moves USDC between the account's books (or out of a sub account,
or, named with --to-address, to another account) through the venue-action guards; `withdraw` is
a bridge out of the venue (origin chain 1337) from the right book, with a Max that leaves the
first-send fee, offering a move between books first when the book is short.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli.option_types import ADDRESS, CHAIN_ID
from crossdeck.cli.support import handles_errors, print_json, service_client, wallet_address

if TYPE_CHECKING:
    from crossdeck.cli import CliContext
    from crossdeck.config import Settings
    from crossdeck.venue.account import VenueAccount
    from crossdeck.venue.actions import TransferRequest
    from crossdeck.venue.fee import SendFee
    from crossdeck.wallet.signers import EvmSigner

JSON_HELP = "Print the JSON answer (same as the global --json)."
VENUE_CHAIN = 1337


def _settings(obj: CliContext) -> Settings:
    from crossdeck.config import load_settings

    return load_settings(obj.profile, obj.world, obj.signer)


def _wants_json(obj: CliContext, local: bool) -> bool:
    return bool(local or obj.json)


async def _listed_dexes(settings: Settings) -> list[str] | None:
    from crossdeck.venue.currencies import hip3_dexes

    try:
        async with service_client(settings) as service:
            return hip3_dexes(await service.chains())
    except CrossdeckError as exc:  # the venue's own balances do not need the service
        click.echo(
            "note: HIP-3 DEX balances left out: the service's /chains, which names the DEXes, "
            f"could not be read ({exc})",
            err=True,
        )
        return None


async def read(settings: Settings, user: str) -> tuple[VenueAccount, bool]:
    """(the account, whether the HIP-3 DEXes were known)."""
    from crossdeck import compose
    from crossdeck.venue.account import read_account

    listed = await _listed_dexes(settings)
    async with compose.venue_client(settings) as client:
        return await read_account(client, user, listed or []), listed is not None


def _usdc(units: int) -> str:
    """As a wallet shows it ('1,234.5 USDC'); the exact figures are one --json away."""
    from crossdeck.venue.fee import usdc_text

    return usdc_text(units)


def _usdc_exact(units: int) -> str:
    """For a question the user answers: as a wallet shows it, and the exact integer."""
    from crossdeck.venue.fee import usdc_exact_text

    return usdc_exact_text(units)


@click.group("venue")
def venue_group() -> None:
    pass  # a group: its summary is in crossdeck.cli.COMMANDS


@venue_group.command("balance")
@click.argument("address", required=False, type=ADDRESS)
@click.option("--json", "json_", is_flag=True, help=JSON_HELP)
@click.pass_obj
@handles_errors
def venue_balance_command(obj: CliContext, address: str | None, json_: bool) -> None:
    """The venue account of ADDRESS (default: the profile's wallet) as the venue means it: its
    mode (standard, unified, portfolio margin), perps, each HIP-3 DEX /chains lists and spot,
    what can be withdrawn and the Max, sub accounts and vault equities."""
    settings = _settings(obj)
    user = address or wallet_address(settings, "address")
    account, known = asyncio.run(read(settings, user))
    from crossdeck.venue.account_words import account_lines, account_wire

    if _wants_json(obj, json_):
        wire = account_wire(account)
        if not known:
            wire["dexes"] = None  # unknown (/chains unread), not none
        print_json(wire)
        return
    for line in account_lines(account, known):
        click.echo(line)


def _book(text: str, dexes: list[str]) -> str:
    from crossdeck.venue.account import PERPS, SPOT

    if text in (PERPS, SPOT) or text in dexes:
        return text
    raise InputError(
        f"{text!r} is not a book of the venue",
        hint=f"use perps, spot or a HIP-3 DEX: {', '.join(dexes) or 'none listed'}",
    )


def _amount(text: str) -> int:
    from crossdeck.models import parse_units
    from crossdeck.models.venue import USDC_DECIMALS

    try:
        units = parse_units(text, USDC_DECIMALS)
    except InputError as exc:
        raise InputError(f"--amount-human: {exc.message}", hint=exc.hint) from None
    if units <= 0:
        raise InputError("--amount-human: an amount of 0 moves nothing")
    return units


async def transfer_fee(settings: Settings, account: VenueAccount, to_address: str) -> SendFee:
    """The venue's fees on a transfer to another account: this account's first-send fee and the
    destination's activation while it has no account (the venue's preTransferCheck)."""
    from crossdeck import compose
    from crossdeck.venue.fee import read_transfer_fee

    async with compose.venue_client(settings) as client:
        return await read_transfer_fee(client, account.user, to_address, account.first_send_fee)


async def run_transfer(
    settings: Settings,
    request: TransferRequest,
    fee: SendFee,
    yes: bool,
    as_json: bool,
    signer: EvmSigner | None = None,
) -> dict[str, Any]:
    """Guard, show, confirm, sign, recover and post one venue transfer; what was sent.
    `signer`: one already open (the connected browser wallet), else the settings' is made."""
    from crossdeck import compose
    from crossdeck.cli import prompts
    from crossdeck.execute.venue_actions import prepare, submit

    if signer is None:
        signer = await asyncio.to_thread(compose.signer, settings)
    prepared = prepare(request, settings.venue.name, signer.address, fee)  # exit 7 here
    for line in [*prepared.lines, *(f"  guard {result}" for result in prepared.results)]:
        click.echo(line, err=as_json)
    if not yes:
        question = (
            f"Send {_usdc_exact(request.amount)} out of your account to {request.to_address}?"
            if request.leaves_account
            else "Sign this transfer?"
        )
        if not await asyncio.to_thread(prompts.confirm, question, instead="--yes"):
            raise prompts.NoAnswer("declined; nothing was signed")
    async with compose.venue_client(settings) as client:
        await submit(prepared, signer, client)
    message = prepared.typed["message"]
    return {"action": prepared.action.wire, "amount": request.amount, "message": message}


@venue_group.command("transfer")
@click.option(
    "--from", "source", required=True, help="The book it leaves: perps, spot or a HIP-3 DEX."
)
@click.option(
    "--to", "destination", required=True, help="The book it lands on: perps, spot or a HIP-3 DEX."
)
@click.option("--amount-human", "amount_text", required=True, help="USDC to move, e.g. 10 or 2.5.")
@click.option("--to-address", type=ADDRESS, help="Send to this other account (it leaves yours).")
@click.option("--from-sub-account", type=ADDRESS, help="Move out of this sub account of yours.")
@click.option("--yes", "-y", is_flag=True, help="Sign without asking (the transfer is shown).")
@click.option("--json", "json_", is_flag=True, help=JSON_HELP)
@click.pass_obj
@handles_errors
def venue_transfer_command(
    obj: CliContext,
    source: str,
    destination: str,
    amount_text: str,
    to_address: str | None,
    from_sub_account: str | None,
    yes: bool,
    json_: bool,
) -> None:
    """Move USDC between the venue account's books (perps, spot, a HIP-3 DEX), out of a sub
    account, or (with --to-address) to another account; shown in words and held by the guards
    before anything is signed."""
    from crossdeck.venue.actions import TransferRequest

    settings = _settings(obj)
    user = wallet_address(settings, "address")
    amount = _amount(amount_text)
    account, _ = asyncio.run(read(settings, user))
    dexes = sorted(account.dexes)
    if from_sub_account:  # refused before anything is built unless it is this wallet's
        from_sub_account = account.sub_account(from_sub_account)
    request = TransferRequest(
        user=user,
        source=_book(source, dexes),
        destination=_book(destination, dexes),
        amount=amount,
        unified=account.unified,
        to_address=to_address,
        from_sub_account=from_sub_account,
    )
    from crossdeck.venue.fee import NO_FEE

    fee = NO_FEE
    if request.leaves_account and request.to_address:
        fee = asyncio.run(transfer_fee(settings, account, request.to_address))
    as_json = _wants_json(obj, json_)
    answer = asyncio.run(run_transfer(settings, request, fee, yes, as_json))
    if as_json:
        print_json({**answer, "fee": fee.total, "newAccountFee": fee.new_account})
    else:
        click.echo("done: the venue accepted the transfer")


def _origin_currency(book: str) -> str:
    from crossdeck.venue.account import PERPS, SPOT
    from crossdeck.venue.currencies import PERPS_USDC_ADDRESS, SPOT_USDC_TOKEN_ID, hip3_address

    if book == PERPS:
        return PERPS_USDC_ADDRESS
    if book == SPOT:
        return SPOT_USDC_TOKEN_ID
    return hip3_address(SPOT_USDC_TOKEN_ID, book)


@venue_group.command("withdraw")
@click.option("--to-chain", "chain", type=CHAIN_ID, required=True, help="Destination chain id.")
@click.option(
    "--to-currency", "currency", default="USDC", show_default=True, help="Currency received there."
)
@click.option("--amount-human", "amount_text", help="USDC to withdraw, e.g. 25.")
@click.option(
    "--max", "max_", is_flag=True, help="All the venue lets leave, less the first-send fee."
)
@click.option(
    "--from", "source", help="The book it leaves (default: spot for a unified account, else perps)."
)
@click.option("--recipient", help="Who receives it (default: the wallet).")
@click.option("--yes", "-y", is_flag=True, help="Execute without asking (the quote is shown).")
@click.option("--json", "json_", is_flag=True, help=JSON_HELP)
@click.pass_context
@handles_errors
def venue_withdraw_command(
    ctx: click.Context,
    chain: int,
    currency: str,
    amount_text: str | None,
    max_: bool,
    source: str | None,
    recipient: str | None,
    yes: bool,
    json_: bool,
) -> None:
    """Withdraw USDC from the venue to CHAIN through the service (a bridge from chain 1337):
    from the book the account's mode calls for, --max leaving the first-send fee; a book too
    short is offered a move from another book first."""
    from crossdeck.cli.commands.bridge import bridge_command

    obj: CliContext = ctx.obj
    if max_ == (amount_text is not None):
        raise InputError("give one of --amount-human and --max")
    settings = _settings(obj)
    ask = _Withdrawal(chain, currency, amount_text, source, recipient, yes, json_)
    if settings.signer.kind == "browser":
        # its address is known once the page connects: one connection reads the account, moves
        # between books and signs the bridge (a second would mean a second page to open)
        sys.exit(int(asyncio.run(_withdraw_in_browser(ctx, settings, ask))))
    args = asyncio.run(_plan(settings, wallet_address(settings, "address"), ask))
    with bridge_command.make_context("bridge", args, parent=ctx.parent) as sub:
        sub.obj = obj
        bridge_command.invoke(sub)
    sys.exit(0)


@dataclass(frozen=True)
class _Withdrawal:
    """What `venue withdraw` was asked (amount_text None: --max)."""

    chain: int
    currency: str
    amount_text: str | None
    source: str | None
    recipient: str | None
    yes: bool
    json_: bool


async def _withdraw_in_browser(
    ctx: click.Context, settings: Settings, ask: _Withdrawal
) -> ExitCode:
    from crossdeck.cli.commands.bridge import _bridge, bridge_command
    from crossdeck.cli.commands.execute import _open_signer

    signer = await _open_signer(settings)  # the page announced, returns once it connected
    try:
        args = await _plan(settings, signer.address, ask, signer)
        with bridge_command.make_context("bridge", args, parent=ctx.parent) as sub:
            options = dict(sub.params)
        yes, json_ = options.pop("yes"), options.pop("json_")
        for done in ("deposit_amount", "timeout", "fee_payer_keypair"):
            options.pop(done)  # never given by a withdrawal
        as_json = bool(json_ or ctx.obj.json)
        return await _bridge(settings, options, yes, as_json, None, None, opened=signer)
    finally:
        await signer.aclose()


async def _plan(
    settings: Settings, user: str, ask: _Withdrawal, signer: EvmSigner | None = None
) -> list[str]:
    """Read `user`'s account, say what leaves which book, move a short book's shortfall from
    another (asked first unless --yes): the bridge's arguments."""
    from crossdeck.cli import prompts
    from crossdeck.venue.account import PERPS, book_words
    from crossdeck.venue.actions import TransferRequest

    account, _ = await read(settings, user)
    book = _book(ask.source, sorted(account.dexes)) if ask.source else account.withdraw_book
    fee = account.first_send_fee
    amount = account.max_send(book) if ask.amount_text is None else _amount(ask.amount_text)
    click.echo(
        f"withdrawing {_usdc(amount)} from {book_words(book)} ({account.mode_words} account); "
        f"withdrawable there {_usdc(account.withdrawable(book))}, first-send fee {_usdc(fee)}",
        err=True,  # stdout is the bridge's
    )
    if amount <= 0:
        raise InputError(
            f"nothing can leave {book_words(book)}: it holds {_usdc(account.withdrawable(book))}"
            f" and the first-send fee is {_usdc(fee)}"
        )
    short = amount + fee - account.withdrawable(book)
    if short > 0:
        donors = [
            b for b, units in account.books().items()
            if b != book and units >= short and not account.unified
        ]  # fmt: skip
        if not donors:
            raise InputError(
                f"{book_words(book)} holds {_usdc(account.withdrawable(book))}: "
                f"{_usdc(amount)} and the first-send fee {_usdc(fee)} do not fit",
                hint="withdraw less (--max shows what fits) or move USDC to this book first",
            )
        donor = PERPS if PERPS in donors else donors[0]
        question = (
            f"{book_words(book)} is {_usdc(short)} short: move it from {book_words(donor)} first?"
        )
        if not ask.yes and not await asyncio.to_thread(prompts.confirm, question, instead="--yes"):
            raise prompts.NoAnswer("declined; nothing was signed")
        from crossdeck.venue.fee import NO_FEE

        request = TransferRequest(user, donor, book, short, unified=account.unified)
        await run_transfer(settings, request, NO_FEE, True, True, signer)
        click.echo(f"moved {_usdc(short)} from {book_words(donor)} to {book_words(book)}", err=True)
    args = [
        "--origin-chain", str(VENUE_CHAIN), "--origin-currency", _origin_currency(book),
        "--destination-chain", str(ask.chain), "--destination-currency", ask.currency,
        "--amount", str(amount),
    ]  # fmt: skip
    if ask.recipient:
        args += ["--recipient", ask.recipient]
    if ask.yes:
        args.append("--yes")
    if ask.json_:
        args.append("--json")
    return args


commands = [venue_group]
