"""The one describer of what will be signed: amounts in units beside their integers, calldata
decoded by ABI, typed data and POST bodies as JSON, USD to the cent, times in local ISO time;
over hand-built transactions, the recorded public answers and the world's own quotes."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from eth_abi.abi import encode
from eth_utils.address import to_checksum_address
from execute_support import (
    ETH,
    NATIVE,
    PERPS_USDC,
    USDC,
    VENUE_UNIT,
    Kit,
    fund,
    new_address,
    of_type,
    quote_native,
    usdc_address,
)

from crossdeck.execute import AwaitingConfirmation, AwaitingSignature
from crossdeck.execute.describe import (
    Currencies,
    Line,
    label_width,
    message_lines,
    out_leg,
    post_lines,
    quote_sections,
    text_lines,
    time_line,
    transaction_lines,
    typed_data_lines,
)
from crossdeck.execute.guards.calldata import SELECTORS
from crossdeck.history.units import RecordUnits
from crossdeck.models import ChainsResponse, PaymentDetails, RequestsPage
from crossdeck.models.display import Unit, local_time, native_text, units_text, usd

REALDATA = Path("/work/shared/realdata")
DEPOSITORY = to_checksum_address("0x4cd00e387622c35bddb9b4c962c136462338bc31")
TOKEN = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
WALLET = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
ORDER = "0x" + "ab" * 32
CHAINS = ChainsResponse.model_validate(
    {
        "chains": [
            {
                "id": 8453,
                "name": "base",
                "displayName": "Base",
                "currency": {"symbol": "ETH", "address": NATIVE, "decimals": 18},
                "erc20Currencies": [{"symbol": "USDC", "address": TOKEN, "decimals": 6}],
                "protocol": {"v2": {"chainId": "base", "depository": DEPOSITORY}},
            }
        ]
    }
)


def _call(name: str, types: list[str], args: list[object]) -> str:
    return SELECTORS[name] + encode(types, args).hex()


def _tx(to: str, data: str, value: int = 0) -> dict[str, object]:
    return {
        "chainId": 8453,
        "nonce": 7,
        "to": to,
        "value": value,
        "data": data,
        "gas": 60_000,
        "maxFeePerGas": 2_000_000_000,
        "maxPriorityFeePerGas": 1_000_000,
    }


def _by_label(lines: list[Line]) -> dict[str, Line]:
    return {line.label: line for line in lines}


def test_figures_in_units_and_cents() -> None:
    assert units_text(10_000_000, Unit("USDC", 6)) == "10 USDC (10000000)"
    assert units_text(1_500_000, Unit("USDC", 6)) == "1.5 USDC (1500000)"
    assert units_text(42, None) == "42 (smallest unit, currency unknown)"
    assert native_text(10**16, Unit("ETH", 18)) == "0.01 ETH (10000000000000000 wei)"
    assert usd("10.000000") == "$10.00"
    assert usd("3000.005") == "$3,000.01"
    assert usd("-7.550001") == "-$7.55"
    assert usd("-0.001") == "$0.00"  # no minus sign on a figure that rounds to nothing
    assert usd(None) == "-" and usd("n/a") == "n/a"


def test_times_in_local_iso_beside_the_unix_milliseconds() -> None:
    millis = 1795459715688
    text = local_time(millis)
    moment = datetime.fromisoformat(text)
    assert moment.utcoffset() is not None  # says its offset: local time, not a bare clock
    assert round(moment.timestamp() * 1000) == millis
    line = time_line("time", millis)
    assert line.value == f"{text} ({millis})" and line.raw == str(millis)
    assert time_line("time", None).value == "-"


def test_an_approve_reads_in_the_tokens_units_to_the_depository() -> None:
    data = _call("approve", ["address", "uint256"], [DEPOSITORY, 10 * USDC])
    payment = PaymentDetails(chain_id="base", depository=DEPOSITORY, currency=TOKEN, amount=10**7)
    lines = _by_label(
        transaction_lines(
            _tx(TOKEN, data), sender=WALLET, payment=payment, currencies=Currencies(None, CHAINS)
        )
    )
    assert lines["call"].value == f"approve 10 USDC (10000000) to the depository {DEPOSITORY}"
    assert lines["to"].value == f"the payment token {TOKEN}"
    assert lines["chain"].value == "Base (8453)"
    assert lines["value"].value == "0 ETH (0 wei)"
    assert lines["data"].raw == data and lines["data"].kind == "calldata"
    # the most the gas can cost, in the chain's currency
    assert "at most 0.00012 ETH (120000000000000 wei) of gas" in lines["max fee"].value


def test_deposits_are_decoded_by_their_abi() -> None:
    currencies = Currencies(None, CHAINS)
    native = _call("depositNative", ["address", "bytes32"], [WALLET, bytes.fromhex("ab" * 32)])
    lines = _by_label(
        transaction_lines(_tx(DEPOSITORY, native, 10**16), sender=WALLET, currencies=currencies)
    )
    assert lines["call"].value == (
        f"deposit 0.01 ETH (10000000000000000 wei) into the depository {DEPOSITORY} for "
        f"depositor {WALLET}, order {ORDER}"
    )
    assert "selector" not in " ".join(line.value for line in lines.values())
    erc20 = _call(
        "depositErc20",
        ["address", "address", "uint256", "bytes32"],
        [WALLET, TOKEN, 25 * USDC, bytes.fromhex("ab" * 32)],
    )
    lines = _by_label(
        transaction_lines(_tx(DEPOSITORY, erc20), sender=WALLET, currencies=currencies)
    )
    assert lines["call"].value.startswith("deposit 25 USDC (25000000) of token ")
    # a call it cannot read says so (the guards refuse it), and a plain transfer says that
    odd = _by_label(transaction_lines(_tx(DEPOSITORY, "0xe8017952" + "00" * 64), sender=WALLET))
    assert odd["call"].kind == "warning" and "not decoded" in odd["call"].value
    plain = _by_label(transaction_lines(_tx(WALLET, "0x", 5), sender=WALLET))
    assert plain["data"].value == "none (a plain transfer)"
    assert plain["call"].value == f"send 0.000000000000000005 native (5 wei) to {WALLET}"


def test_typed_data_and_post_bodies_are_json() -> None:
    typed = {
        "domain": {"name": "ServiceNonceMapping", "version": "1", "chainId": 1},
        "types": {"NonceMapping": [{"name": "wallet", "type": "address"}]},
        "primaryType": "NonceMapping",
        "message": {"wallet": WALLET, "extra": {"a": [1, True]}},
    }
    lines = typed_data_lines(typed)
    [domain] = [line for line in lines if line.label == "domain"]
    assert domain.kind == "json" and json.loads(domain.value) == typed["domain"]
    assert f'wallet (address) = "{WALLET}"' in [line.value for line in lines]
    assert 'extra = {"a": [1, true]} (not part of the signed type)' in [
        line.value for line in lines
    ]
    body = {"type": "nonce-mapping", "signatureChainId": 1, "ok": None}
    then, shown = post_lines("/authorize", body)
    assert then.value == "POST /authorize with this body:"
    assert json.loads(shown.value) == body and "'" not in shown.text()
    # a multi-line value stands under its first line, past the label column
    text = shown.text(label_width([then, shown]))
    assert text.splitlines()[1].startswith(" " * 5) and '"type": "nonce-mapping"' in text
    assert message_lines("0x" + "ab" * 32)[1].kind == "hash"


def test_a_token_authorisation_says_its_value_in_units() -> None:
    typed = {
        "domain": {"name": "USD Coin", "version": "2", "chainId": 8453, "verifyingContract": TOKEN},
        "types": {
            "ReceiveWithAuthorization": [
                {"name": "to", "type": "address"},
                {"name": "value", "type": "uint256"},
            ]
        },
        "primaryType": "ReceiveWithAuthorization",
        "message": {"to": DEPOSITORY, "value": "25000000"},
    }
    fields = [line.value for line in typed_data_lines(typed, Currencies(None, CHAINS))]
    assert 'value (uint256) = "25000000": 25 USDC (25000000)' in fields
    # without the currencies the figure is shown as signed, and nothing is guessed
    assert 'value (uint256) = "25000000"' in [line.value for line in typed_data_lines(typed)]


def test_legs_are_named_by_the_requests_outcome() -> None:
    assert out_leg("success") == "fill"
    assert out_leg("refund") == out_leg("failure") == "refund"


def test_recorded_request_fees_in_the_requests_currency() -> None:
    """The public answer's v2 record: fees are integers of `data.currency` ('usdc': 3807 is
    $0.0038, as its feesUsd says), shown in units; USD values to the cent beside the value."""
    page = json.loads((REALDATA / "requests/docs-deposit-addresses-2026-04-17-1.json").read_text())
    [record] = RequestsPage.from_wire(page).requests[:1]
    units = RecordUnits(record, lambda _: None)  # the record's own currencyIn names USDC
    assert units.text("data.fees.gas", "3807") == "0.003807 USDC (3807)"
    assert units.text("data.feesUsd.fixed", "0.020000") == "$0.02 (0.020000)"
    assert units.text("data.price", "79902723") is None  # shown as sent
    # without its metadata, the symbol's decimals come from /chains for the origin chain
    wire = record.to_wire()
    del wire["data"]["metadata"]
    bare = type(record).from_wire(wire)
    usdc_on_137 = {
        "id": 137,
        "currency": {"symbol": "POL", "address": NATIVE, "decimals": 18},
        "erc20Currencies": [{"symbol": "USDC", "address": "0x" + "1" * 40, "decimals": 6}],
    }
    chain = ChainsResponse.model_validate({"chains": [usdc_on_137]}).by_id
    assert RecordUnits(bare, chain).text("data.fees.gas", "3807") == "0.003807 USDC (3807)"
    unknown = RecordUnits(bare, lambda _: None).text("data.fees.gas", "3807")
    assert unknown == "3807 (smallest unit of the request's currency, decimals unknown)"


def test_recorded_v3_request_amounts_in_their_currencys_units() -> None:
    """A GET /requests/v3 record: each amount beside its currency object, and the fee
    components in `data.fees.currency` (USDC.e, 6 decimals), in units; USD to the cent."""
    from crossdeck.models.requests_v3 import RequestsPageV3

    name = "requests-v3/docs-migrating-to-requests-v3-2026-07-09-1.json"
    page = json.loads((REALDATA / name).read_text())
    [record] = RequestsPageV3.from_wire(page).requests[:1]
    units = RecordUnits(record, lambda _: None)
    assert units.text("data.fees.quoted.swap.amount", "1999380") == "1.99938 USDC.e (1999380)"
    assert units.text("data.fees.quoted.swap.usd", "-1.999380") == "-$2.00 (-1.999380)"
    origin_in = "data.route.quoted.origin.inputCurrency.amount"
    assert units.text(origin_in, "10000000000") == "10,000 USDC.e (10000000000)"
    assert units.text("data.fees.quoted.swap.amountFormatted", "1.99938") is None


# -- the world's quotes ----------------------------------------------------------------------


async def test_world_usdc_deposit_reads_in_units(py_kit: Kit) -> None:
    kit = py_kit
    world = kit.world
    await fund(world, kit.address, native={8453: ETH}, usdc={8453: 100 * USDC})
    token = usdc_address(world, 8453)
    quote, request = await kit.quote(
        origin_chain_id=8453,
        destination_chain_id=1337,
        origin_currency=token,
        destination_currency=PERPS_USDC,
        amount=str(40 * USDC),
        recipient=kit.address,
    )
    chains = await kit.service.chains()
    text = "\n".join(text_lines(quote_sections(quote, chains, request)))
    assert "you pay     40 USDC (40000000) on " in text
    assert "approve 40 USDC (40000000) to the depository" in text
    kit.answer = False  # declined at the first confirmation: nothing is signed
    events = await kit.run(quote, request=request)
    [asked] = of_type(events, AwaitingConfirmation)
    lines = _by_label(list(asked.what.lines))
    depository = quote.payment_details.depository
    assert lines["call"].value == f"approve 40 USDC (40000000) to the depository {depository}"
    assert lines["to"].value.endswith(token)
    assert " ETH (" in lines["max fee"].value  # the gas in the chain's currency
    assert "selector" not in asked.what.describe()
    assert asked.what.to_json()["lines"][0] == lines["chain"].to_json()


async def test_world_native_deposit_and_withdrawal_read_in_units(py_kit: Kit) -> None:
    kit = py_kit
    world = kit.world
    await fund(world, kit.address, native={8453: 2 * ETH}, venue_perps=100 * VENUE_UNIT)
    quote, request = await quote_native(kit, ETH // 2)
    kit.answer = False
    [asked] = of_type(await kit.run(quote, request=request), AwaitingConfirmation)
    call = _by_label(list(asked.what.lines))["call"].value
    assert call.startswith("deposit 0.5 ETH (500000000000000000 wei) into the depository 0x")
    assert f"for depositor {kit.address}, order {quote.order_id}" in call

    withdrawal, request = await kit.quote(
        origin_chain_id=1337,
        destination_chain_id=8453,
        origin_currency=PERPS_USDC,
        destination_currency=usdc_address(world, 8453),
        amount=str(25 * VENUE_UNIT),
        recipient=new_address(),
        protocol_version="v2",
    )
    [steps] = [s for s in quote_sections(withdrawal) if s.title.startswith("Steps")]
    assert [line.value.split(":")[0] for line in steps.lines if line.label[0].isdigit()] == [
        "signature",
        "venue transfer",
    ]
    kit.answer = True
    kit.asked.clear()
    events = await kit.run(withdrawal, request=request)
    authorize, send = (event.what for event in of_type(events, AwaitingSignature))
    body = [line for line in authorize.lines if line.label == "body"]
    assert body and json.loads(body[0].value)["signatureChainId"] == kit.signing_chain_id
    assert send.title.startswith("Sign the venue transfer (") and "deposit" not in send.title
    assert _by_label(list(send.lines))["transfer"].value.startswith("send 25")
