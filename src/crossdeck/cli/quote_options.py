"""The quote options of `crossdeck quote`, shared by every command that asks for a quote.

`@quote_options` adds the quote's click options, defined here once for `crossdeck quote` and
`crossdeck bridge` alike. The options only collect: `quote_input` reads their values into the
`QuoteInput` the app's Quote form fills too, and the one builder below both fronts
(`crossdeck.quoting.builder`) makes the request, whose errors name the wire field; here they
are said naming the option. What only the command line takes is resolved here: currency
symbols (through /chains), a txs file, the --extra JSON, the profile's wallets.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

import click

from crossdeck.base.errors import InputError
from crossdeck.cli.option_types import (
    ANY_ADDRESS,
    CHAIN_ID,
    CURRENCY,
    POSITIVE,
    WholeNumber,
    shown,
)
from crossdeck.cli.support import wallet_address

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.config import Settings
    from crossdeck.models import ChainsResponse, QuoteRequest, QuoteRequestError
    from crossdeck.models.addresses import Family
    from crossdeck.quoting.builder import QuoteInput

F = TypeVar("F", bound=Callable[..., Any])

BPS = WholeNumber(minimum=0, maximum=10_000)


# each currency field, its chain field and its option
_CURRENCY_FIELDS = (
    ("origin_currency", "origin_chain_id", "--origin-currency"),
    ("destination_currency", "destination_chain_id", "--destination-currency"),
)
# addresses that stand for symbols while the other fields are checked, before /chains is
# asked: chosen so that no rule refuses what the symbol's currency could pass (the origin is
# native, which --use-deposit-address needs; the destination is not, which --topup-gas needs)
_STAND_INS = {
    "origin_currency": "0x" + "0" * 40,  # the native currency
    "destination_currency": "0x" + "1" * 40,
}
_VENUE_STAND_IN = "0x" + "0" * 32  # perps USDC
# the same on Solana (SOL; wSOL) and Bitcoin (BTC, its only currency)
_FAMILY_STAND_INS = {
    "svm": {
        "origin_currency": "11111111111111111111111111111111",
        "destination_currency": "So11111111111111111111111111111111111111112",
    },
    "bvm": {
        "origin_currency": "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8",
        "destination_currency": "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8",
    },
}


def _stand_in(field: str, chain_id: int) -> str:
    from crossdeck.models import VENUE_CHAIN_ID
    from crossdeck.models.addresses import family_of

    if chain_id == VENUE_CHAIN_ID:
        return _VENUE_STAND_IN
    family = family_of(chain_id)
    return _FAMILY_STAND_INS.get(family.value, _STAND_INS)[field]


_BOOL_OPTIONS = {
    "topup_gas": "--topup-gas/--no-topup-gas",
    "subsidize_fees": "--subsidize-fees/--no-subsidize-fees",
    "use_deposit_address": "--use-deposit-address/--no-use-deposit-address",
    "strict": "--strict/--no-strict",
    "use_permit": "--use-permit/--no-use-permit",
    "refund_on_origin": "--refund-on-origin/--no-refund-on-origin",
}


def _bool_options(func: F) -> F:
    helps = {
        "topup_gas": "Add a destination gas topup for the recipient.",
        "subsidize_fees": "Have the sponsor pay the fees.",
        "use_deposit_address": "Use a deposit address (native-currency bridges only).",
        "strict": "With a deposit address: a strict one, tied to this order.",
        "use_permit": "Pay with an EIP-3009 permit (e.g. USDC).",
        "refund_on_origin": "Always refund on the origin chain.",
    }
    for name, decl in reversed(_BOOL_OPTIONS.items()):
        func = click.option(decl, name, default=None, help=helps[name])(func)
    return func


# the options in the order --help lists them (applied bottom-up, as decorators are)
_OPTIONS: tuple[Callable[[Any], Any], ...] = (
    click.option(
        "--origin-chain", type=CHAIN_ID, required=True, help="Origin chain id (1337 = venue)."
    ),
    click.option(
        "--origin-currency",
        type=CURRENCY,
        required=True,
        help="Currency on the origin chain: its address, or its symbol as `crossdeck chains` "
        "lists it (USDC, ETH; on the venue perps:USDC, spot:USDC).",
    ),
    click.option("--destination-chain", type=CHAIN_ID, required=True, help="Destination chain id."),
    click.option(
        "--destination-currency",
        type=CURRENCY,
        required=True,
        help="Currency at destination: its address or its symbol, as for --origin-currency.",
    ),
    click.option("--amount", help="Amount in the currency's smallest unit (digits only)."),
    click.option(
        "--amount-human",
        help="Amount in human units (e.g. 1.5), converted exactly with the currency's decimals "
        "(the origin currency for EXACT_INPUT, else the destination currency).",
    ),
    click.option(
        "--trade-type",
        type=click.Choice(["EXACT_INPUT", "EXACT_OUTPUT", "EXPECTED_OUTPUT"]),
        default="EXACT_INPUT",
        show_default=True,
    ),
    click.option(
        "--user",
        type=ANY_ADDRESS,
        help="Depositing address, of the origin chain's family. Default: the profile's wallet.",
    ),
    click.option(
        "--recipient",
        type=ANY_ADDRESS,
        help="Receiver at destination: an EVM, Solana (base58) or Bitcoin (bc1…, 1…, 3…) "
        "address, as the destination chain takes. Default: the user.",
    ),
    click.option(
        "--refund-to",
        type=ANY_ADDRESS,
        help="Refund receiver on the origin chain. Default: recipient, else user.",
    ),
    click.option(
        "--protocol-version",
        type=click.Choice(["v2"]),
        help="Protocol version; set to v2 automatically for venue withdrawals (origin 1337).",
    ),
    _bool_options,
    click.option(
        "--topup-gas-amount",
        metavar="DOLLARS",
        help="With --topup-gas: dollars of the destination's gas currency to buy on arrival, "
        "e.g. 2 = $2 (default $2), as the app's form takes it. The wire's integer "
        "(1000000 = $1) only through --extra topupGasAmount='\"2000000\"'.",
    ),
    click.option(
        "--sponsor-component",
        "sponsor_components",
        multiple=True,
        help="Fee component to sponsor (repeatable): execution, swap, app, or the service's own.",
    ),
    click.option(
        "--max-subsidization",
        metavar="DOLLARS",
        help="With --subsidize-fees: the most the sponsor pays, in dollars, e.g. 0.01 = one "
        "cent, as the app's form takes it. The wire's integer only through --extra.",
    ),
    click.option("--permit-expiry", type=POSITIVE, help="Permit validity in seconds."),
    # the Solana-only body fields (solana.md's table)
    click.option(
        "--sponsor-rent",
        is_flag=True,
        default=None,
        help="Solana: have the sponsor pay the rent of accounts the route creates "
        "(sponsoredFeeComponents gains 'rent'; needs --subsidize-fees).",
    ),
    click.option(
        "--deposit-fee-payer",
        type=ANY_ADDRESS,
        help="Solana origin: another account that pays the deposit's fees (a second signer: "
        "`bridge` takes its key with --deposit-fee-payer-keypair).",
    ),
    click.option(
        "--max-route-length", type=POSITIVE, help="Solana: the most hops a swap route may take."
    ),
    click.option(
        "--use-shared-accounts/--no-use-shared-accounts",
        "use_shared_accounts",
        default=None,
        help="Solana: use shared accounts instead of creating token accounts (ATA) per route.",
    ),
    click.option(
        "--include-compute-unit-limit/--no-include-compute-unit-limit",
        "include_compute_unit_limit",
        default=None,
        help="Solana: include a compute-unit-limit instruction in the deposit.",
    ),
    click.option(
        "--slippage-bps", type=BPS, help="Slippage tolerance in basis points (50 = 0.5%)."
    ),
    click.option("--referrer", help="Referrer label."),
    click.option(
        "--call",
        "calls",
        multiple=True,
        metavar="TO,VALUE,DATA",
        help="A call the service makes on the destination chain after the fill (repeatable, "
        "in order): the contract, the value in wei (paid out of the output), the calldata as "
        "0x hex. A call that reverts fails the request, which is refunded.",
    ),
    click.option(
        "--txs-file",
        metavar="FILE",
        help="Calls from a JSON file: an array as the API's txs, "
        '[{"to": "0x…", "value": "0", "data": "0x…"}]; before any --call.',
    ),
    click.option(
        "--extra",
        "extras",
        multiple=True,
        metavar="KEY=JSON",
        help="Any other body field by its wire name, value as JSON (repeatable), "
        "e.g. --extra useFallbacks=true. A field crossdeck does not know is sent as given, "
        "with a note on stderr.",
    ),
)


def quote_options(func: F) -> F:
    """Decorate a click command with every quote option (`crossdeck quote`, `bridge`)."""
    for option in reversed(_OPTIONS):
        func = option(func)
    return func


# -- collecting: the options' values as the builder takes them -------------------------------


def quote_input(options: dict[str, Any], *, user: str | None = None) -> QuoteInput:
    """What the quote options say, as the one quote-request builder takes it (the app's form
    hands it the same `QuoteInput`): read, not judged. A txs file and the --extra JSON are
    read here (each problem names its option); every rule is the builder's. `user` is the
    default depositor (`bridge`: its signer's address); an explicit --user wins."""
    from pathlib import Path

    from crossdeck.cli.call_options import calls_from_options
    from crossdeck.quoting.builder import QuoteInput

    amount, amount_human = options.get("amount"), options.get("amount_human")
    if (amount is None) == (amount_human is None):
        raise InputError("give exactly one of --amount and --amount-human")
    txs_file = options.get("txs_file")
    txs = calls_from_options(
        tuple(options.get("calls") or ()), Path(txs_file) if txs_file is not None else None
    )
    slippage = options.get("slippage_bps")
    return QuoteInput(
        origin_chain_id=options["origin_chain"],
        origin_currency=options["origin_currency"],
        destination_chain_id=options["destination_chain"],
        destination_currency=options["destination_currency"],
        amount=amount_human or "",
        amount_units=amount or "",
        trade_type=options["trade_type"],
        user=options.get("user") or user or "",
        recipient=options.get("recipient") or "",
        refund_to=options.get("refund_to") or "",
        slippage_bps="" if slippage is None else str(slippage),
        topup_gas=options.get("topup_gas"),
        topup_gas_usd=options.get("topup_gas_amount") or "",
        subsidize_fees=options.get("subsidize_fees"),
        sponsored_components=tuple(options.get("sponsor_components") or ()) or None,
        sponsor_rent=bool(options.get("sponsor_rent")),
        max_subsidization_usd=options.get("max_subsidization") or "",
        use_deposit_address=options.get("use_deposit_address"),
        strict=options.get("strict"),
        use_permit=options.get("use_permit"),
        refund_on_origin=options.get("refund_on_origin"),
        permit_expiry=options.get("permit_expiry"),
        deposit_fee_payer=options.get("deposit_fee_payer") or "",
        max_route_length=options.get("max_route_length"),
        use_shared_accounts=options.get("use_shared_accounts"),
        include_compute_unit_limit=options.get("include_compute_unit_limit"),
        protocol_version=options.get("protocol_version"),
        referrer=options.get("referrer") or "",
        txs=tuple(txs),
        extra=_parse_extra(tuple(options.get("extras") or ())),
    )


def _parse_extra(pairs: tuple[str, ...]) -> dict[str, Any]:
    from crossdeck.base.json_depth import MAX_NESTING, nesting_depth

    extra: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--extra {shown(pair)} is not KEY=JSON", hint="e.g. --extra ttl=600")
        from crossdeck.models.quote_request import FIELD_NAME_RULE, is_field_name

        # here, before any note says an unlisted field is sent as given
        if not is_field_name(key):
            raise InputError(f"--extra {shown(key)} is not a field name ({FIELD_NAME_RULE})")
        # before json.loads: its C decoder recurses once per level, and with eth-account
        # imported (recursion limit 100,000) a deep value overflows the C stack
        if nesting_depth(raw) > MAX_NESTING:
            raise InputError(f"--extra {key}: the JSON nests deeper than {MAX_NESTING} levels")
        try:
            extra[key] = json.loads(raw)
        except (ValueError, RecursionError):
            raise InputError(
                f"--extra {key}: {shown(raw)} is not JSON",
                hint="quote strings: --extra referrer='\"me\"'",
            ) from None
    return extra


# -- the profile's wallets, for the builder ----------------------------------------------------


class ProfileWallets:
    """The profile's wallet of each chain family, as the builder asks for it (the depositor,
    the other family's recipient); each read once. Why one is missing is kept, so that a
    request with no depositor says what to pass or run."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.found: dict[Family, str | None] = {}
        self.missing: dict[Family, InputError] = {}

    def __call__(self, family: Family) -> str | None:
        if family not in self.found:
            try:
                self.found[family] = _wallet_of_family(self.settings, family, "--user")
            except InputError as exc:
                self.found[family], self.missing[family] = None, exc
        return self.found[family]


def _wallet_of_family(settings: Settings, family: Family, option: str) -> str:
    from crossdeck.models.addresses import Family

    if family is Family.EVM:
        return wallet_address(settings, option)
    from crossdeck.credentials import resolve_family_address

    name = {Family.SOLANA: "Solana", Family.BITCOIN: "Bitcoin"}[family]
    address = resolve_family_address(settings, family)
    if address is None:
        raise InputError(
            f"no {option} given and profile {settings.profile!r} has no {name} wallet",
            hint=f"pass {option} or run `crossdeck wallet import-{name.lower()}`",
        )
    return address


# -- building: the builder's request, its errors naming the options ---------------------------


@dataclass(frozen=True)
class TypedQuote:
    """A quote as the options ask for it: their `values`, the profile's `wallets` and the
    request checked before any request (`checked`: symbols and a human amount stand in)."""

    values: QuoteInput
    wallets: ProfileWallets
    checked: QuoteRequest

    def with_values(self, values: QuoteInput) -> TypedQuote:
        return replace(self, values=values)


def read_quote(
    settings: Settings, options: dict[str, Any], *, user: str | None = None
) -> TypedQuote:
    """The quote the options ask for, every field checked that needs no /chains (so bad input
    is refused before any request); --extra fields crossdeck does not know are noted."""
    from crossdeck.quoting.builder import check_before_chains

    values = quote_input(options, user=user)
    wallets = ProfileWallets(settings)
    stand_ins = {field: _stand_in(field, chain) for field, chain, _ in _symbols(values)}
    checked = _built(
        values,
        wallets,
        lambda: check_before_chains(values.with_changes(**stand_ins), wallet_of=wallets),
    )
    _note_unlisted(values, checked)
    return TypedQuote(values, wallets, checked)


async def quote_request(
    client: ServiceClient, typed: TypedQuote
) -> tuple[QuoteRequest, ChainsResponse | None]:
    """The checked request, and /chains' answer when it was asked for (currency symbols, the
    amount's decimals, the chains' families), so that the guards shown or run next need not
    ask again. /chains is asked at most once."""
    from crossdeck.cli.currency_symbols import resolve_symbol
    from crossdeck.quoting.builder import build_quote_request, needs_chains

    values = typed.values
    symbols = _symbols(values)
    chains = await client.chains() if symbols or needs_chains(values) else None
    resolved: dict[str, str] = {}
    for field, chain_id, option in symbols:
        assert chains is not None  # asked for above
        symbol = getattr(values, field)
        found = resolve_symbol(chains, chain_id, symbol, option)
        click.echo(
            f"{option} {symbol} is {found.symbol} {found.address} on chain {chain_id}", err=True
        )
        resolved[field] = found.address or symbol  # none: the request refuses the symbol
    values = values.with_changes(**resolved)
    wallets = typed.wallets
    request = _built(
        values, wallets, lambda: build_quote_request(values, chains, wallet_of=wallets)
    )
    return request, chains


def _symbols(values: QuoteInput) -> list[tuple[str, int, str]]:
    """(field, its chain, its option) of each currency typed as a symbol."""
    from crossdeck.cli.currency_symbols import is_symbol

    said = []
    for field, chain_field, option in _CURRENCY_FIELDS:
        text, chain_id = getattr(values, field), getattr(values, chain_field)
        if text and chain_id is not None and is_symbol(text):
            said.append((field, chain_id, option))
    return said


# the option that sets each wire field (the amount's is the one given)
_OPTION_OF_FIELD = {
    "user": "--user",
    "originChainId": "--origin-chain",
    "destinationChainId": "--destination-chain",
    "originCurrency": "--origin-currency",
    "destinationCurrency": "--destination-currency",
    "tradeType": "--trade-type",
    "recipient": "--recipient",
    "refundTo": "--refund-to",
    "protocolVersion": "--protocol-version",
    "topupGas": "--topup-gas",
    "topupGasAmount": "--topup-gas-amount",
    "subsidizeFees": "--subsidize-fees",
    "sponsoredFeeComponents": "--sponsor-component",
    "maxSubsidizationAmount": "--max-subsidization",
    "useDepositAddress": "--use-deposit-address",
    "strict": "--strict",
    "usePermit": "--use-permit",
    "refundOnOrigin": "--refund-on-origin",
    "permitExpiry": "--permit-expiry",
    "depositFeePayer": "--deposit-fee-payer",
    "maxRouteLength": "--max-route-length",
    "useSharedAccounts": "--use-shared-accounts",
    "includeComputeUnitLimit": "--include-compute-unit-limit",
    "slippageTolerance": "--slippage-bps",
    "referrer": "--referrer",
    "txs": "--call/--txs-file",
}

_R = TypeVar("_R")


def _built(values: QuoteInput, wallets: ProfileWallets, build: Callable[[], _R]) -> _R:
    """`build()`, its QuoteRequestError said as an input error naming the option that gave
    the field (a missing depositor says what to pass or run)."""
    from crossdeck.models import QuoteRequestError

    try:
        return build()
    except QuoteRequestError as exc:
        if exc.field == "user" and not values.user and values.origin_chain_id is not None:
            from crossdeck.models.addresses import family_of

            missing = wallets.missing.get(family_of(values.origin_chain_id))
            if missing is not None:  # why the profile has no wallet there
                raise missing from None
        raise _option_error(values, exc) from None


def _option_error(values: QuoteInput, exc: QuoteRequestError) -> InputError:
    from crossdeck.quoting.builder import UNLISTED_CURRENCY_HINT

    if exc.field in values.extra:
        option = f"--extra {exc.field}"
    elif exc.field == "amount":
        option = "--amount-human" if values.amount else "--amount"
    else:
        option = _OPTION_OF_FIELD.get(exc.field, "")
    if not option:
        return exc
    hint = exc.hint
    if hint == UNLISTED_CURRENCY_HINT:  # the builder's words for the app's form
        hint = "`crossdeck chains` lists them; or give --amount in the smallest unit instead"
    return InputError(f"{option}: {exc.message.removeprefix(exc.field + ': ')}", hint=hint)


def _note_unlisted(values: QuoteInput, checked: QuoteRequest) -> None:
    """Say on stderr which --extra fields crossdeck does not know: they are sent as given,
    unchecked, for the service to judge (it adds fields faster than a client ships)."""
    for key in checked.unlisted_fields:
        if key in values.extra:
            click.echo(
                f"note: --extra {key} is not a field crossdeck knows; sent as given "
                f"({json.dumps(values.extra[key])[:80]}), unchecked",
                err=True,
            )
