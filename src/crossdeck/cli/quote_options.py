"""The quote options of `crossdeck quote`, shared by every command that asks for a quote.

`@quote_options` adds the quote's click options, defined here once for `crossdeck quote` and
`crossdeck bridge` alike, and `quote_fields` turns their values into `QuoteRequest` fields.
"""

from __future__ import annotations

import json
from collections.abc import Callable
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
    from crossdeck.models import ChainsResponse, QuoteRequest
    from crossdeck.models.addresses import Family

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
_BOOL_FIELDS = tuple(_BOOL_OPTIONS)


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


def _note_unlisted(extra: dict[str, Any]) -> None:
    """Say on stderr which --extra fields crossdeck does not know: they are sent as given,
    unchecked, for the service to judge (it adds fields faster than a client ships)."""
    from crossdeck.models import QuoteRequest

    known = {name for name, info in QuoteRequest.model_fields.items()}
    known |= {info.alias for info in QuoteRequest.model_fields.values() if info.alias}
    for key in extra:
        if key not in known:
            click.echo(
                f"note: --extra {key} is not a field crossdeck knows; sent as given "
                f"({json.dumps(extra[key])[:80]}), unchecked",
                err=True,
            )


def _refuse_zero(text: str | None, option: str) -> None:
    """Nothing to move is refused here, before any request (the service would answer 400)."""
    from decimal import Decimal, InvalidOperation

    if text is None:
        return
    try:
        zero = Decimal(text.strip()) == 0
    except InvalidOperation:
        return  # not a number: the amount's own check says so
    if zero:
        raise InputError(f"{option}: {text.strip()} moves nothing", hint="give an amount above 0")


def _dollars(text: str | None, option: str, wire: str) -> str | None:
    """A dollar option ('2', '$0.01') as the wire's 6-decimal USD integer text (the builder's
    rule, which the app's form uses too)."""
    if text is None:
        return None
    from crossdeck.models import QuoteRequestError
    from crossdeck.quoting.builder import usd_units

    try:
        units = usd_units(text, wire)
    except QuoteRequestError as exc:
        raise InputError(
            f"{option}: {exc.message.removeprefix(wire + ': ')}", hint=exc.hint
        ) from None
    return None if units is None else str(units)


def _family_wallet(settings: Settings, chain_id: int, option: str) -> str:
    """The profile's wallet of `chain_id`'s family: its Solana wallet for Solana, else its
    EVM wallet (the venue's accounts are EVM addresses)."""
    from crossdeck.models.addresses import family_of

    return _wallet_of_family(settings, family_of(chain_id), option)


def _wallet_of_family(settings: Settings, family: Family, option: str) -> str:
    from crossdeck.models.addresses import Family

    if family is Family.SOLANA:
        from crossdeck.credentials import resolve_solana_address

        address = resolve_solana_address(settings)
        if address is None:
            raise InputError(
                f"no {option} given and profile {settings.profile!r} has no Solana wallet",
                hint=f"pass {option} or run `crossdeck wallet import-solana`",
            )
        return address
    if family is Family.BITCOIN:
        from crossdeck.credentials import resolve_bitcoin_address

        address = resolve_bitcoin_address(settings)
        if address is None:
            raise InputError(
                f"no {option} given and profile {settings.profile!r} has no Bitcoin wallet",
                hint=f"pass {option} or run `crossdeck wallet import-bitcoin`",
            )
        return address
    return wallet_address(settings, option)


def _other_family_recipient(settings: Settings, origin: int, destination: int) -> str | None:
    """With no --recipient, a route into another chain family pays the profile's own wallet
    of that family, when it has one (the builder's rule, as the app's form has it); else None
    (the user, which the request then refuses by family, naming --recipient)."""
    from crossdeck.quoting.builder import QuoteInput, default_recipient

    def wallet_of(family: Family) -> str | None:
        try:
            return _wallet_of_family(settings, family, "--recipient")
        except InputError:
            return None

    typed = QuoteInput(origin_chain_id=origin, destination_chain_id=destination)
    return default_recipient(typed, None, wallet_of)


def quote_fields(
    settings: Settings, options: dict[str, Any], *, user: str | None = None
) -> tuple[dict[str, Any], str | None]:
    """(QuoteRequest fields, --amount-human text or None) from the quote options' values.

    `user` is the default depositor (the profile's wallet); an explicit --user wins.
    """
    from crossdeck.models import required_protocol_version

    amount, amount_human = options.get("amount"), options.get("amount_human")
    if (amount is None) == (amount_human is None):
        raise InputError("give exactly one of --amount and --amount-human")
    _refuse_zero(amount, "--amount")
    _refuse_zero(amount_human, "--amount-human")
    origin_chain = options["origin_chain"]
    destination_chain = options["destination_chain"]
    fields: dict[str, Any] = {
        "user": options.get("user") or user or _family_wallet(settings, origin_chain, "--user"),
        "origin_chain_id": origin_chain,
        "destination_chain_id": options["destination_chain"],
        "origin_currency": options["origin_currency"],
        "destination_currency": options["destination_currency"],
        "trade_type": options["trade_type"],
        "amount": amount,
        "recipient": options.get("recipient")
        or _other_family_recipient(settings, origin_chain, destination_chain),
        "refund_to": options.get("refund_to"),
        "protocol_version": options.get("protocol_version")
        or required_protocol_version(origin_chain),
        "topup_gas_amount": _dollars(
            options.get("topup_gas_amount"), "--topup-gas-amount", "topupGasAmount"
        ),
        "sponsored_fee_components": list(options.get("sponsor_components") or ()) or None,
        "max_subsidization_amount": _dollars(
            options.get("max_subsidization"), "--max-subsidization", "maxSubsidizationAmount"
        ),
        "permit_expiry": options.get("permit_expiry"),
        "deposit_fee_payer": options.get("deposit_fee_payer"),
        "max_route_length": options.get("max_route_length"),
        "use_shared_accounts": options.get("use_shared_accounts"),
        "include_compute_unit_limit": options.get("include_compute_unit_limit"),
        "slippage_tolerance": options.get("slippage_bps"),
        "referrer": options.get("referrer"),
    }
    fields.update({name: options.get(name) for name in _BOOL_FIELDS})
    if options.get("sponsor_rent"):
        components = fields.get("sponsored_fee_components") or []
        fields["sponsored_fee_components"] = [*components, "rent"]
    fields = {k: v for k, v in fields.items() if v is not None}
    from pathlib import Path

    from crossdeck.cli.call_options import calls_from_options

    txs_file = options.get("txs_file")
    txs = calls_from_options(
        tuple(options.get("calls") or ()), Path(txs_file) if txs_file is not None else None
    )
    if txs:
        fields["txs"] = txs
    extra = _parse_extra(tuple(options.get("extras") or ()))
    from pydantic.alias_generators import to_camel, to_snake

    given = set(fields) | {to_camel(k) for k in fields}
    clash = sorted(k for k in extra if k in given or to_snake(k) in given)
    if clash:
        raise InputError(f"--extra sets {clash} which an option already sets; use one of them")
    fields.update(extra)
    _note_unlisted(extra)
    if amount_human is not None:
        fields.pop("amount", None)
    return fields, amount_human


# the option that sets each wire field whose value is held to its chain's family
_OPTION_OF_FIELD = {
    "user": "--user",
    "recipient": "--recipient",
    "refundTo": "--refund-to",
    "originCurrency": "--origin-currency",
    "destinationCurrency": "--destination-currency",
    "depositFeePayer": "--deposit-fee-payer",
}


def _needs_families(fields: dict[str, Any]) -> bool:
    """Whether a chain or an address of the request is not plainly EVM, so that /chains'
    vmType must say which family each chain's addresses are of."""
    from crossdeck.models.addresses import WELL_KNOWN_FAMILIES

    chains = (fields.get("origin_chain_id"), fields.get("destination_chain_id"))
    if any(chain in WELL_KNOWN_FAMILIES for chain in chains):
        return True
    texts = [fields.get(name) for name in ("user", "recipient", "refund_to")]
    return any(isinstance(t, str) and not t.startswith("0x") for t in texts)


def build_request(fields: dict[str, Any], chains: ChainsResponse | None) -> QuoteRequest:
    """The request of `fields`, its addresses held to their chains' families as `chains` (the
    /chains answer) says them; an address of the wrong family, or with a bad checksum, is an
    input error naming the option that gave it."""
    from crossdeck.models import QuoteRequest, QuoteRequestError

    vm_types = chains.vm_types() if chains is not None else None
    try:
        return QuoteRequest.build(vm_types=vm_types, **fields)
    except QuoteRequestError as exc:
        option = _OPTION_OF_FIELD.get(exc.field)
        if option is None:
            raise
        raise InputError(f"{option}: {exc.message}", hint=exc.hint) from None


async def complete_quote_fields(
    client: ServiceClient, fields: dict[str, Any], amount_human: str | None
) -> ChainsResponse | None:
    """Resolve the currency symbols (`crossdeck.cli.currency_symbols`) and --amount-human of
    `fields` in place, asking /chains at most once; returns its answer when it was asked, so
    that the guards shown or run next need not ask again.

    Every other field is checked first, so bad input is refused before any request."""
    from crossdeck.cli.currency_symbols import is_symbol, resolve_symbol
    from crossdeck.models import NATIVE_ADDRESS, VENUE_CHAIN_ID

    symbols = [spec for spec in _CURRENCY_FIELDS if is_symbol(fields[spec[0]])]
    if not symbols and amount_human is None:
        return await client.chains() if _needs_families(fields) else None
    stand_ins = {field: _stand_in(field, fields[chain]) for field, chain, _ in symbols}
    build_request({"amount": "0", **fields, **stand_ins}, None)
    chains: ChainsResponse | None = None
    for field, chain, option in symbols:
        chains = chains or await client.chains()
        found = resolve_symbol(chains, fields[chain], fields[field], option)
        click.echo(
            f"{option} {fields[field]} is {found.symbol} {found.address} on chain {fields[chain]}",
            err=True,
        )
        fields[field] = found.address
    if amount_human is None:
        return chains
    exact_input = fields["trade_type"] == "EXACT_INPUT"
    chain_id = fields["origin_chain_id" if exact_input else "destination_chain_id"]
    currency = fields["origin_currency" if exact_input else "destination_currency"]
    native = chain_id != VENUE_CHAIN_ID and currency.lower() == NATIVE_ADDRESS
    if chains is None and not native:
        chains = await client.chains()
    known = None if native else chains  # native EVM currencies have 18 decimals everywhere
    fields["amount"] = str(_human_amount(amount_human, known, chain_id, currency))
    return chains


def _human_amount(text: str, chains: ChainsResponse | None, chain_id: int, address: str) -> int:
    """--amount-human in the currency's smallest unit, with its decimals from /chains, or
    the native EVM currency's 18 when `chains` is None (the builder's rule, as the app's form
    converts its amount)."""
    from crossdeck.models import QuoteRequestError
    from crossdeck.quoting.builder import QuoteInput, amount_units

    typed = QuoteInput(origin_chain_id=chain_id, origin_currency=address, amount=text)
    try:
        return amount_units(typed, chains)
    except QuoteRequestError as exc:
        if exc.field == "amount":
            raise InputError(f"--amount-human: {exc.message}", hint=exc.hint) from None
        raise InputError(
            f"--amount-human: the decimals of currency {address} on chain {chain_id} are "
            "unknown (the service's /chains does not list it)",
            hint="give --amount in the currency's smallest unit instead",
        ) from None
