"""The app and the command line ask for the same quote the same way: for every quote option of
`crossdeck quote` (and `bridge`, which shares them) and every field of the app's Quote form, the
same input gives a byte-identical request body from both fronts.

The command line's side is its real path: click parses the arguments of `crossdeck quote`, then
`read_quote` (the options read into the builder's `QuoteInput`, checked before any request) and
`quote_request` (currency symbols and /chains against the world, then the builder); `bridge`'s
own part is its signer's address as the default depositor and, after a Solana transaction too
large to sign, the shortest route asked for again (`quoting.shortest_route`). The app's side is
the Quote form's (`tui.quote_form.build_quote_request`) for what the form offers, and for what
only the command line offers (the smallest unit, another depositor, the Solana-only fields,
--no-x, a txs file) the builder both fronts share (`quoting.builder`), given the same input the
command line was. Coverage is checked: an option
or a form field no case exercises fails the test."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from crossdeck.api.client import ServiceClient
from crossdeck.base.errors import InputError
from crossdeck.cli.commands.bridge import bridge_command
from crossdeck.cli.commands.service import quote_command
from crossdeck.cli.quote_options import quote_request, read_quote
from crossdeck.config import Settings, load_settings
from crossdeck.models import ChainsResponse, QuoteRequestError
from crossdeck.models.addresses import Family
from crossdeck.quoting import builder
from crossdeck.quoting.builder import QuoteInput
from crossdeck.quoting.shortest_route import shortest_route
from crossdeck.tui.quote_form import QuoteFormValues, build_quote_request

NATIVE = "0x" + "0" * 40
USDC = "0x8464135c8F25Da09e49BC8782676a84730C318bC"  # the world's USDC on 8453 and 999
PERPS = "0x" + "0" * 32
SOL = "11111111111111111111111111111111"
OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
CALL_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
SOLANA = 792703809


@dataclass(frozen=True)
class Case:
    name: str
    cli: list[str]  # the route and amount included
    form: dict[str, Any] | None = None  # the app's form values (None: builder input below)
    builder: dict[str, Any] | None = None  # QuoteInput fields, for what only the CLI offers
    options: tuple[str, ...] = ()  # the click options this case sets (beyond the route)
    fields: tuple[str, ...] = ()  # the form fields this case sets
    files: dict[str, str] = field(default_factory=dict)
    signer: str | None = None  # bridge: its signer's address, the default depositor
    refused: tuple[str, ...] = ()  # bridge: the guards that refused the first run


ETH_TO_USDC = ["--origin-chain", "8453", "--origin-currency", NATIVE,
               "--destination-chain", "999", "--destination-currency", USDC]  # fmt: skip
ETH_ROUTE = {"origin_chain_id": 8453, "origin_currency": NATIVE,
             "destination_chain_id": 999, "destination_currency": USDC}  # fmt: skip
TO_NATIVE = ["--origin-chain", "8453", "--origin-currency", NATIVE,
             "--destination-chain", "999", "--destination-currency", NATIVE]  # fmt: skip
NATIVE_ROUTE = {**ETH_ROUTE, "destination_currency": NATIVE}
FROM_VENUE = ["--origin-chain", "1337", "--origin-currency", PERPS,
              "--destination-chain", "8453", "--destination-currency", USDC]  # fmt: skip
VENUE_ROUTE = {"origin_chain_id": 1337, "origin_currency": PERPS,
               "destination_chain_id": 8453, "destination_currency": USDC}  # fmt: skip
FROM_SOLANA = ["--origin-chain", str(SOLANA), "--origin-currency", SOL,
               "--destination-chain", "8453", "--destination-currency", NATIVE]  # fmt: skip
SOLANA_ROUTE = {"origin_chain_id": SOLANA, "origin_currency": SOL,
                "destination_chain_id": 8453, "destination_currency": NATIVE}  # fmt: skip
QUOTE_OPTIONS = {param.name for param in quote_command.params} - {"json_"}
ROUTE_OPTIONS = ("origin_chain", "origin_currency", "destination_chain", "destination_currency")
ROUTE_FIELDS = tuple(ETH_ROUTE)

CASES = [
    Case("human amount", [*ETH_TO_USDC, "--amount-human", "0.25"],
         form={**ETH_ROUTE, "amount": "0.25"}, options=("amount_human",), fields=("amount",)),
    Case("smallest unit", [*ETH_TO_USDC, "--amount", "250000000000000000"],
         builder={**ETH_ROUTE, "amount_units": "250000000000000000"}, options=("amount",)),
    Case("exact output: the destination's decimals",
         [*ETH_TO_USDC, "--amount-human", "2.5", "--trade-type", "EXACT_OUTPUT"],
         form={**ETH_ROUTE, "amount": "2.5", "trade_type": "EXACT_OUTPUT"},
         options=("trade_type",), fields=("trade_type",)),
    Case("symbols", ["--origin-chain", "8453", "--origin-currency", "ETH",
                     "--destination-chain", "999", "--destination-currency", "USDC",
                     "--amount-human", "1"],
         form={**ETH_ROUTE, "amount": "1"}),
    Case("another depositor", [*ETH_TO_USDC, "--amount-human", "1", "--user", OTHER],
         builder={**ETH_ROUTE, "amount": "1", "user": OTHER}, options=("user",)),
    Case("recipient and refund", [*ETH_TO_USDC, "--amount-human", "1", "--recipient", OTHER,
                                  "--refund-to", OTHER],
         form={**ETH_ROUTE, "amount": "1", "recipient": OTHER, "refund_to": OTHER},
         options=("recipient", "refund_to"), fields=("recipient", "refund_to")),
    Case("venue withdrawal: v2 by itself", [*FROM_VENUE, "--amount-human", "10"],
         form={**VENUE_ROUTE, "amount": "10"}),
    Case("venue withdrawal: v2 asked", [*FROM_VENUE, "--amount-human", "10",
                                        "--protocol-version", "v2"],
         form={**VENUE_ROUTE, "amount": "10", "protocol_version": "v2"},
         options=("protocol_version",), fields=("protocol_version",)),
    Case("gas on arrival", [*ETH_TO_USDC, "--amount-human", "1", "--topup-gas",
                            "--topup-gas-amount", "2.5"],
         form={**ETH_ROUTE, "amount": "1", "topup_gas": True, "topup_gas_usd": "2.5"},
         options=("topup_gas", "topup_gas_amount"), fields=("topup_gas", "topup_gas_usd")),
    Case("no gas on arrival, said", [*ETH_TO_USDC, "--amount-human", "1", "--no-topup-gas"],
         builder={**ETH_ROUTE, "amount": "1", "topup_gas": False}),
    Case("sponsored", [*ETH_TO_USDC, "--amount-human", "1", "--subsidize-fees",
                       "--sponsor-component", "execution", "--sponsor-component", "swap",
                       "--max-subsidization", "$1.25"],
         form={**ETH_ROUTE, "amount": "1", "subsidize_fees": True,
               "sponsored_components": ("execution", "swap"), "max_subsidization_usd": "$1.25"},
         options=("subsidize_fees", "sponsor_components", "max_subsidization"),
         fields=("subsidize_fees", "sponsored_components", "max_subsidization_usd")),
    Case("strict deposit address", [*TO_NATIVE, "--amount-human", "1", "--use-deposit-address",
                                    "--strict", "--refund-to", OTHER],
         form={**NATIVE_ROUTE, "amount": "1", "use_deposit_address": True, "strict": True,
               "refund_to": OTHER},
         options=("use_deposit_address", "strict"), fields=("use_deposit_address", "strict")),
    Case("permit", [*ETH_TO_USDC, "--amount-human", "1", "--use-permit"],
         form={**ETH_ROUTE, "amount": "1", "use_permit": True},
         options=("use_permit",), fields=("use_permit",)),
    Case("permit expiry, refund on origin", [*ETH_TO_USDC, "--amount-human", "1", "--use-permit",
                                             "--permit-expiry", "600", "--refund-on-origin"],
         builder={**ETH_ROUTE, "amount": "1", "use_permit": True, "permit_expiry": 600,
                  "refund_on_origin": True},
         options=("permit_expiry", "refund_on_origin")),
    Case("slippage and referrer", [*ETH_TO_USDC, "--amount-human", "1", "--slippage-bps", "75",
                                   "--referrer", "app-x"],
         form={**ETH_ROUTE, "amount": "1", "slippage_bps": "75", "referrer": "app-x"},
         options=("slippage_bps", "referrer"), fields=("slippage_bps", "referrer")),
    Case("calls", [*ETH_TO_USDC, "--amount-human", "1", "--call", f"{CALL_TO},5,0xabcdef",
                   "--call", f"{CALL_TO},0,0x"],
         form={**ETH_ROUTE, "amount": "1", "calls": f"{CALL_TO},5,0xabcdef; {CALL_TO},0,0x"},
         options=("calls",), fields=("calls",)),
    Case("calls from a file", [*ETH_TO_USDC, "--amount-human", "1", "--txs-file", "{txs}"],
         builder={**ETH_ROUTE, "amount": "1",
                  "txs": ({"to": CALL_TO, "value": "7", "data": "0x1234"},)},
         options=("txs_file",),
         files={"txs": json.dumps([{"to": CALL_TO, "value": "7", "data": "0x1234"}])}),
    Case("an extra field", [*ETH_TO_USDC, "--amount-human", "1", "--extra", "useFallbacks=true"],
         form={**ETH_ROUTE, "amount": "1", "extra": {"useFallbacks": True}},
         options=("extras",), fields=("extra",)),
    Case("Solana: fee payer, route, accounts, compute units, rent",
         [*FROM_SOLANA, "--amount-human", "0.5", "--deposit-fee-payer", "{sol_payer}",
          "--max-route-length", "2", "--use-shared-accounts", "--no-include-compute-unit-limit",
          "--subsidize-fees", "--sponsor-rent"],
         builder={**SOLANA_ROUTE, "amount": "0.5", "deposit_fee_payer": "{sol_payer}",
                  "max_route_length": 2, "use_shared_accounts": True,
                  "include_compute_unit_limit": False, "subsidize_fees": True,
                  "sponsor_rent": True},
         options=("deposit_fee_payer", "max_route_length", "use_shared_accounts",
                  "include_compute_unit_limit", "sponsor_rent")),
    Case("bridge: the signer's address is the depositor",
         [*ETH_TO_USDC, "--amount-human", "1"], form={**ETH_ROUTE, "amount": "1"},
         signer=OTHER),
    Case("bridge: a Solana transaction too large asks again for the shortest route",
         [*FROM_SOLANA, "--amount-human", "0.5", "--max-route-length", "3"],
         builder={**SOLANA_ROUTE, "amount": "0.5", "max_route_length": 1},
         refused=("solana-size",)),
    Case("bridge: the shortest route, asked for by the options already, is not asked again",
         [*FROM_SOLANA, "--amount-human", "0.5", "--max-route-length", "1"],
         builder={**SOLANA_ROUTE, "amount": "0.5", "max_route_length": 1},
         refused=("solana-size",)),
    Case("bridge: another guard's refusal asks nothing again",
         [*FROM_SOLANA, "--amount-human", "0.5", "--max-route-length", "3"],
         builder={**SOLANA_ROUTE, "amount": "0.5", "max_route_length": 3},
         refused=("order-calls",)),
]  # fmt: skip


@pytest.fixture(scope="module")
def settings(world: Any, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    path = tmp_path_factory.mktemp("quoting") / "world.json"
    path.write_text(json.dumps(world.info))
    return load_settings(None, path)


def _filled(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**names) if "{" in value and "}" in value else value
    if isinstance(value, dict):
        return {k: _filled(v, names) for k, v in value.items()}
    return value


async def _cli_body(settings: Settings, world: Any, case: Case, args: list[str]) -> bytes:
    command = bridge_command if case.signer or case.refused else quote_command
    context = command.make_context(command.name or "", list(args))
    options = {k: v for k, v in context.params.items() if k in QUOTE_OPTIONS}
    typed = read_quote(settings, options, user=case.signer)
    if case.refused:
        typed = typed.with_values(shortest_route(typed.values, case.refused) or typed.values)
    async with ServiceClient(world.service_url, api_key=world.api_key) as client:
        request, _ = await quote_request(client, typed)
    return json.dumps(request.to_body()).encode()


async def _app_body(case: Case, world: Any, names: dict[str, str]) -> bytes:
    async with ServiceClient(world.service_url, api_key=world.api_key) as client:
        chains: ChainsResponse = await client.chains()
    if case.form is not None:
        values = QuoteFormValues(**_filled(case.form, names))
        request = build_quote_request(
            values, case.signer or world.wallet_address, chains, solana_wallet=world.solana_address
        )
    else:
        assert case.builder is not None
        wallets = {Family.EVM: world.wallet_address, Family.SOLANA: world.solana_address}
        typed = QuoteInput(**_filled(case.builder, names))
        request = builder.build_quote_request(typed, chains, wallet_of=wallets.get)
    return json.dumps(request.to_body()).encode()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_the_same_input_gives_the_same_body(
    case: Case, settings: Settings, world: Any, tmp_path: Path
) -> None:
    names = {"sol_payer": "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"}
    for name, text in case.files.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        names[name] = str(path)
    cli = await _cli_body(settings, world, case, [_filled(arg, names) for arg in case.cli])
    app = await _app_body(case, world, names)
    assert cli == app, (cli, app)


def test_every_option_and_every_form_field_has_a_case() -> None:
    options = set(QUOTE_OPTIONS)
    covered = {name for case in CASES for name in case.options} | set(ROUTE_OPTIONS)
    assert options - covered == set(), "a quote option no case gives"
    form_fields = {f.name for f in dataclasses.fields(QuoteFormValues)}
    covered_fields = {name for case in CASES for name in case.fields} | set(ROUTE_FIELDS)
    assert form_fields - covered_fields == set(), "a form field no case sets"


def test_bridge_takes_the_quote_options_and_none_that_shapes_the_body() -> None:
    """`bridge` asks with the very options `quote` has (one decorator); its own options run
    the transfer (signing, tracking, output) and never change the request's body."""
    bridge = {param.name for param in bridge_command.params}
    assert QUOTE_OPTIONS <= bridge
    assert bridge - QUOTE_OPTIONS == {
        "yes", "deposit_amount", "timeout", "fee_payer_keypair", "json_"
    }  # fmt: skip


REFUSED = [
    # (command line arguments beyond the route, the same as builder input, the wire field)
    (["--amount-human", "0.00"], {"amount": "0.00"}, "amount", "--amount-human: 0.00 moves"),
    (["--amount", "0"], {"amount_units": "0"}, "amount", "--amount: 0 moves nothing"),
    (["--amount", "1", "--referrer", "x", "--extra", 'referrer="y"'],
     {"amount_units": "1", "referrer": "x", "extra": {"referrer": "y"}}, "referrer",
     "--extra referrer: an extra field sets what a field already sets"),
    (["--amount", "1", "--max-route-length", "2", "--extra", "max_route_length=3"],
     {"amount_units": "1", "max_route_length": 2, "extra": {"max_route_length": 3}},
     "max_route_length", "already sets"),
    (["--amount", "1", "--recipient", SOL], {"amount_units": "1", "recipient": SOL},
     "recipient", "is a Solana address, but chain 999 takes an EVM address"),
    (["--amount", "1", "--topup-gas-amount", "2"], {"amount_units": "1", "topup_gas_usd": "2"},
     "topupGasAmount", "--topup-gas-amount: applies only with topupGas=true"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "typed", "wire", "said"), REFUSED)
def test_the_same_bad_input_is_refused_by_both_naming_the_same_field(
    settings: Settings, world: Any, args: list[str], typed: dict[str, Any], wire: str, said: str
) -> None:
    """Before any request: the command line names the option, the builder (the app's form)
    the wire field of the same rule."""
    context = quote_command.make_context("quote", [*ETH_TO_USDC, *args])
    options = {k: v for k, v in context.params.items() if k in QUOTE_OPTIONS}
    with pytest.raises(InputError) as cli:
        read_quote(settings, options)
    assert said in cli.value.message, cli.value.message
    assert cli.value.message.startswith("--"), "the option is named first"
    wallets = {Family.EVM: world.wallet_address}.get
    with pytest.raises(QuoteRequestError) as app:
        builder.check_before_chains(QuoteInput(**ETH_ROUTE, **typed), wallet_of=wallets)
    assert app.value.field == wire
