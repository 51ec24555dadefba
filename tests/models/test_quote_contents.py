"""Typed access to quote contents: ints for amounts, item kinds, venue parameters, brands."""

from decimal import Decimal

import pytest
from models_support import load
from pydantic import ValidationError

from crossdeck.models import (
    CurrencyAmount,
    ItemKindError,
    Quote,
    SignatureData,
    StepItem,
    TransactionData,
    VenueDepositData,
    classify_item_data,
)


def test_evm_quote_exposes_ints_for_amounts() -> None:
    quote = Quote.from_wire(load("quote_evm.json"))
    tx = quote.steps[1].items[0].as_transaction()
    assert isinstance(tx, TransactionData)
    assert tx.value == 0 and isinstance(tx.value, int)
    assert tx.max_fee_per_gas == 1_500_000_000
    assert tx.max_priority_fee_per_gas == 1_000_000
    assert tx.gas == 180_000
    assert tx.chain_id == 8453
    assert tx.from_ == "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
    details = quote.details
    assert details is not None and details.currency_in is not None
    assert details.currency_in.amount == 10_000_000
    assert details.currency_out is not None and details.currency_out.minimum_amount == 997_000_000
    assert details.currency_out.amount_formatted == "9.985"
    assert details.currency_out.amount_formatted_decimal == Decimal("9.985")
    assert quote.payment_details is not None and quote.payment_details.amount == 10_000_000
    assert quote.payment_details.chain_id == "8453"
    assert quote.request_id == "0x" + "ab" * 32
    assert quote.order_id == "0x" + "cd" * 32
    assert quote.step("approve") is quote.steps[0]
    assert quote.step("nope") is None
    assert quote.fees is not None and quote.fees.relayer_service is not None
    assert quote.fees.relayer_service.amount == 3000


def test_fee_sponsorship_keeps_the_brand_named_component() -> None:
    neutral = Quote.from_wire(load("quote_venue_withdrawal.json"))
    public = Quote.from_wire(load("quote_venue_withdrawal_public.json"))
    for quote, service in ((neutral, "service"), (public, "relay")):
        assert quote.fee_sponsorship is not None
        quoted = quote.fee_sponsorship.quoted
        actual = quote.fee_sponsorship.actual
        assert quoted is not None and actual is not None
        assert quoted.components is not None
        assert set(quoted.components) == {"execution", "swap", service, "app"}
        assert quoted.components[service].sponsored is not None
        assert quoted.components[service].sponsored.amount == 3000
        assert quoted.max_subsidization_amount == 1_000_000
        assert quoted.sponsor_payment is None
        assert actual.sponsor_payment is not None
        assert actual.sponsor_payment.amount == 15000
        assert actual.sponsor_payment.chain_id == 1337
        assert quote.details is not None and quote.details.expanded_price_impact is not None
        assert service in quote.details.expanded_price_impact


@pytest.mark.parametrize(
    ("name", "venue", "chain_field"),
    [
        ("quote_venue_withdrawal.json", "Venue", "venueChain"),
        ("quote_venue_withdrawal_public.json", "Hyperliquid", "hyperliquidChain"),
    ],
)
def test_venue_withdrawal_steps(name: str, venue: str, chain_field: str) -> None:
    quote = Quote.from_wire(load(name))
    assert [s.id for s in quote.steps] == ["authorize", "deposit"]
    auth_item, deposit_item = quote.steps[0].items[0], quote.steps[1].items[0]
    assert auth_item.kind_of_data == "signature"
    assert deposit_item.kind_of_data == "venue_deposit"

    sig = auth_item.as_signature()
    assert isinstance(sig, SignatureData)
    assert sig.sign is not None and sig.sign.signature_kind == "eip712"
    assert sig.sign.primary_type == "NonceMapping"
    assert sig.post is not None and sig.post.endpoint == "/authorize"
    assert sig.post.body is not None and sig.post.body["walletChainId"] == 1337

    dep = deposit_item.as_venue_deposit()
    assert isinstance(dep, VenueDepositData)
    assert dep.venue_name == venue
    assert dep.sign_domain_name == f"{venue}SignTransaction"
    assert dep.action is not None
    action = dep.action
    assert action.type == "sendAsset"
    assert action.chain_field == chain_field
    assert action.chain_value == "Mainnet"
    # parameter order is kept as sent: it matches the signed type's field order
    assert dep.eip712_types is not None and dep.eip712_primary_type is not None
    assert list(action.parameters) == [f["name"] for f in dep.eip712_types[dep.eip712_primary_type]]
    assert action.destination == quote.payment_details.depository  # type: ignore[union-attr]
    assert action.token == "USDC:0x6d1e7cde53ba9467b783cb7c530ce054"
    assert action.amount == "10"
    assert action.source_dex == "" and action.destination_dex == ""
    assert action.from_sub_account == ""
    # the authorize nonce, the item nonce and the action nonce are one number
    assert sig.sign.value is not None
    assert dep.nonce == action.nonce == sig.sign.value["nonce"] == 1732000000123
    assert isinstance(dep.nonce, int)


def test_accessors_refuse_the_wrong_kind_clearly() -> None:
    quote = Quote.from_wire(load("quote_venue_withdrawal.json"))
    auth_item = quote.steps[0].items[0]
    with pytest.raises(ItemKindError, match="carries signature data, not transaction data"):
        auth_item.as_transaction()
    with pytest.raises(ItemKindError, match="not venue_deposit"):
        auth_item.as_venue_deposit()
    with pytest.raises(ItemKindError, match="carries venue_deposit data, not signature"):
        quote.steps[1].items[0].as_signature()


def test_accessors_refuse_data_that_was_never_parsed() -> None:
    # built without validation, a transaction-shaped dict is not a TransactionData to hand out
    item = StepItem.model_construct(data={"to": "0x" + "11" * 20, "data": "0x", "chainId": 1})
    assert item.kind_of_data == "transaction"
    with pytest.raises(ItemKindError, match="not transaction data"):
        item.as_transaction()


def test_unknown_item_data_is_representable_not_a_crash() -> None:
    raw = load("step_items_misc.json")
    eip191, solana, bitcoin, unknown = (StepItem.from_wire(r) for r in raw)
    assert eip191.kind_of_data == "signature"
    sign = eip191.as_signature().sign
    assert sign is not None and sign.signature_kind == "eip191"
    assert sign.message is not None and sign.message.startswith("0x")
    # a Solana item is read (models.solana); a Bitcoin one is its PSBT (models.bitcoin)
    assert solana.kind_of_data == "solana"
    assert solana.as_solana().instructions
    with pytest.raises(ItemKindError, match="solana data"):
        solana.as_transaction()
    assert bitcoin.kind_of_data == "bitcoin"
    assert bitcoin.as_bitcoin().psbt.startswith("70736274ff")
    with pytest.raises(ItemKindError, match="bitcoin data"):
        bitcoin.as_transaction()
    assert solana.to_wire() == raw[1]
    assert unknown.kind_of_data == "unknown" and unknown.to_wire() == raw[3]
    assert StepItem.from_wire({"status": "incomplete"}).kind_of_data == "unknown"


def test_classify_item_data_by_keys() -> None:
    assert classify_item_data({"to": "0x", "data": "0x"}) == "transaction"
    assert classify_item_data({"sign": {}}) == "signature"
    assert classify_item_data({"post": {}}) == "signature"
    assert classify_item_data({"action": {"type": "sendAsset", "parameters": {}}}) == (
        "venue_deposit"
    )
    assert classify_item_data({"eip712PrimaryType": "XTransaction:SendAsset"}) == "venue_deposit"
    assert classify_item_data({"psbt": "00"}) == "bitcoin"
    assert classify_item_data({"psbt": 0}) == "unknown"
    assert classify_item_data("0xdead") == "unknown"


def test_malformed_known_kind_is_a_validation_error() -> None:
    with pytest.raises(ValidationError, match="integer string"):
        StepItem.from_wire({"data": {"to": "0x01", "value": "1.5"}})


def test_amount_strings_must_be_integers_and_floats_are_refused() -> None:
    with pytest.raises(ValidationError, match="integer string"):
        CurrencyAmount.from_wire({"amount": "1e6"})
    with pytest.raises(ValidationError, match="integer string"):
        CurrencyAmount.from_wire({"amount": 1.5})
    with pytest.raises(ValidationError, match="boolean"):
        CurrencyAmount.from_wire({"amount": True})
    # a JSON number integer is accepted, and an answer written back out keeps it a number
    # (the public service sends `gas` either way); an int set in Python goes out as a string
    read = CurrencyAmount.from_wire({"amount": 7})
    assert read.amount == 7 and read.to_wire() == {"amount": 7}
    assert CurrencyAmount.from_wire({"amount": "007"}).to_wire() == {"amount": "007"}
    assert CurrencyAmount(amount=7).to_wire() == {"amount": "7"}
    assert read.model_copy(update={"amount": 8}).to_wire() == {"amount": "8"}


def test_amount_formatted_never_becomes_float() -> None:
    ca = CurrencyAmount.from_wire({"amountFormatted": "0.1", "amountUsd": "0.30000000000000004"})
    assert ca.amount_formatted == "0.1"
    assert ca.amount_usd_decimal == Decimal("0.30000000000000004")
    assert CurrencyAmount.from_wire({"amountUsd": "n/a"}).amount_usd_decimal is None


def test_non_object_item_data_is_kept_raw() -> None:
    item = StepItem.from_wire({"status": "incomplete", "data": "0xdeadbeef"})
    assert item.kind_of_data == "unknown"
    assert item.data == "0xdeadbeef"
    assert item.to_wire() == {"status": "incomplete", "data": "0xdeadbeef"}
    with pytest.raises(ItemKindError):
        item.as_signature()


def test_payment_details_chain_id_is_text_even_when_sent_as_number() -> None:
    quote = Quote.from_wire({"protocol": {"v2": {"paymentDetails": {"chainId": 1337}}}})
    assert quote.payment_details is not None and quote.payment_details.chain_id == "1337"
