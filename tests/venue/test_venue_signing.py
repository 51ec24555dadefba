"""SendAsset typed-data builders: spec 4.4 shape, recovery, and parity with the venue SDK."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_account.signers.local import LocalAccount
from hyperliquid.utils.signing import SEND_ASSET_SIGN_TYPES

from crossdeck.models.venue import VenueSignature
from crossdeck.venue.errors import VenueDataError
from crossdeck.venue.signing import (
    EIP712_DOMAIN_TYPE,
    build_send_asset_typed_data,
    sign_domain_name,
    signed_action,
    split_signature,
)
from helpers.typed_data import send_asset_fields

DESTINATION = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
TOKEN = "USDC:0x6d1e7cde53ba9467b783cb7c530ce054"
NONCE = 1732000000123


def send_asset_step(venue: str = "Venue") -> tuple[dict[str, Any], dict[str, Any], str]:
    """(action, eip712Types, eip712PrimaryType) as a quote's deposit item carries them."""
    chain_field = f"{venue[0].lower()}{venue[1:]}Chain"
    primary = f"{venue}Transaction:SendAsset"
    action = {
        "type": "sendAsset",
        "parameters": {
            chain_field: "Mainnet",
            "destination": DESTINATION,
            "sourceDex": "",
            "destinationDex": "spot",
            "token": TOKEN,
            "amount": "12.5",
            "fromSubAccount": "",
            "nonce": NONCE,
        },
    }
    types = {primary: send_asset_fields(chain_field)}
    return action, types, primary


def test_sign_domain_name_comes_from_the_primary_type() -> None:
    assert sign_domain_name("VenueTransaction:SendAsset") == "VenueSignTransaction"
    assert sign_domain_name("HyperliquidTransaction:SendAsset") == "HyperliquidSignTransaction"
    for bad in ("SendAsset", "Transaction:SendAsset", "VenueTransaction:", ""):
        with pytest.raises(VenueDataError):
            sign_domain_name(bad)


def test_typed_data_follows_spec_4_4() -> None:
    action, types, primary = send_asset_step()
    data = build_send_asset_typed_data(action, types, primary, 8453)
    assert data["domain"] == {
        "name": "VenueSignTransaction",
        "version": "1",
        "chainId": 8453,
        "verifyingContract": "0x0000000000000000000000000000000000000000",
    }
    assert data["types"] == {**types, "EIP712Domain": EIP712_DOMAIN_TYPE}
    assert [f["name"] for f in data["types"]["EIP712Domain"]] == [
        "name",
        "version",
        "chainId",
        "verifyingContract",
    ]
    assert data["primaryType"] == primary
    assert data["message"] == {
        **action["parameters"],
        "type": "sendAsset",
        "signatureChainId": "0x2105",
    }
    assert list(data["message"])[-2:] == ["type", "signatureChainId"]
    assert signed_action(action, 8453) == data["message"]


def test_builder_copies_instead_of_sharing_the_quote_data() -> None:
    action, types, primary = send_asset_step()
    before = (copy.deepcopy(action), copy.deepcopy(types))
    data = build_send_asset_typed_data(action, types, primary, 1)
    data["message"]["amount"] = "999"
    data["types"][primary].append({"name": "x", "type": "string"})
    assert (action, types) == before
    assert "EIP712Domain" not in types


def test_built_data_signs_and_recovers_to_the_signer(wallet: LocalAccount) -> None:
    for venue in ("Venue", "Hyperliquid"):
        action, types, primary = send_asset_step(venue)
        for chain_id in (1, 8453, 0x66EEE):
            data = build_send_asset_typed_data(action, types, primary, chain_id)
            signed = Account.sign_typed_data(wallet.key, full_message=data)
            recovered = Account.recover_message(
                encode_typed_data(full_message=data), signature=signed.signature
            )
            assert recovered == wallet.address
            parts = split_signature(signed.signature)
            assert parts.v in (27, 28)
            again = Account.recover_message(
                encode_typed_data(full_message=data),
                vrs=(parts.v, int(parts.r, 16), int(parts.s, 16)),
            )
            assert again == wallet.address


# The venue SDK (hyperliquid-python-sdk, hyperliquid/utils/signing.py) builds user-signed actions
# as below (its domain name is its brand's, so the function is re-stated here from its source;
# the field list is the SDK's own) to check our builder against the public construction.
SDK_SEND_ASSET_SIGN_TYPES = SEND_ASSET_SIGN_TYPES


def sdk_user_signed_payload(primary_type: str, payload_types: list, action: dict) -> dict:
    chain_id = int(action["signatureChainId"], 16)
    return {
        "domain": {
            "name": "HyperliquidSignTransaction",
            "version": "1",
            "chainId": chain_id,
            "verifyingContract": "0x0000000000000000000000000000000000000000",
        },
        "types": {
            primary_type: payload_types,
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
        },
        "primaryType": primary_type,
        "message": action,
    }


def test_public_brand_matches_the_venue_sdk_construction(wallet: LocalAccount) -> None:
    # the SDK's send_asset action, then sign_user_signed_action's two additions
    sdk_action = {
        "type": "sendAsset",
        "destination": DESTINATION,
        "sourceDex": "",
        "destinationDex": "spot",
        "token": TOKEN,
        "amount": "12.5",
        "fromSubAccount": "",
        "nonce": NONCE,
    }
    sdk_action["signatureChainId"] = "0x66eee"
    sdk_action["hyperliquidChain"] = "Mainnet"
    primary = "HyperliquidTransaction:SendAsset"
    sdk = sdk_user_signed_payload(primary, SDK_SEND_ASSET_SIGN_TYPES, sdk_action)

    action, types, _ = send_asset_step("Hyperliquid")
    ours = build_send_asset_typed_data(action, types, primary, 0x66EEE)

    assert ours["domain"] == sdk["domain"]
    assert list(ours["domain"]) == ["name", "version", "chainId", "verifyingContract"]
    assert ours["types"] == sdk["types"]  # same fields in the same order
    assert ours["primaryType"] == sdk["primaryType"]
    assert ours["message"] == sdk["message"]  # same members and values (order is not hashed)
    assert encode_typed_data(full_message=ours) == encode_typed_data(full_message=sdk)
    ours_sig = Account.sign_typed_data(wallet.key, full_message=ours).signature
    sdk_sig = Account.sign_typed_data(wallet.key, full_message=sdk).signature
    assert ours_sig == sdk_sig  # RFC 6979: identical digests sign identically


def test_domain_and_message_chain_ids_agree_and_matter(wallet: LocalAccount) -> None:
    action, types, primary = send_asset_step()
    on_base = build_send_asset_typed_data(action, types, primary, 8453)
    on_one = build_send_asset_typed_data(action, types, primary, 1)
    assert on_base["domain"]["chainId"] == int(on_base["message"]["signatureChainId"], 16)
    assert encode_typed_data(full_message=on_base) != encode_typed_data(full_message=on_one)


def test_builder_refuses_malformed_step_data() -> None:
    action, types, primary = send_asset_step()
    with pytest.raises(VenueDataError, match="primary type"):
        build_send_asset_typed_data(action, types, "OtherTransaction:SendAsset", 1)
    missing = copy.deepcopy(action)
    del missing["parameters"]["token"]
    with pytest.raises(VenueDataError, match="token"):
        build_send_asset_typed_data(missing, types, primary, 1)
    with pytest.raises(VenueDataError, match="parameters"):
        build_send_asset_typed_data({"type": "sendAsset"}, types, primary, 1)
    with pytest.raises(VenueDataError, match="type"):
        build_send_asset_typed_data({"parameters": {}}, types, primary, 1)
    clash = copy.deepcopy(action)
    clash["parameters"]["signatureChainId"] = "0x1"
    with pytest.raises(VenueDataError, match="signatureChainId"):
        build_send_asset_typed_data(clash, types, primary, 1)
    for bad_chain in (0, -1, True):
        with pytest.raises(VenueDataError, match="chain id"):
            build_send_asset_typed_data(action, types, primary, bad_chain)  # type: ignore[arg-type]
    with pytest.raises(VenueDataError):
        build_send_asset_typed_data(action, {primary: ["nope"]}, primary, 1)


def test_a_sent_along_domain_type_is_replaced() -> None:
    action, types, primary = send_asset_step()
    types["EIP712Domain"] = [{"name": "name", "type": "string"}]
    data = build_send_asset_typed_data(action, types, primary, 1)
    assert data["types"]["EIP712Domain"] == EIP712_DOMAIN_TYPE


def test_split_signature_normalises_recovery_ids(wallet: LocalAccount) -> None:
    action, types, primary = send_asset_step()
    data = build_send_asset_typed_data(action, types, primary, 1)
    raw = bytes(Account.sign_typed_data(wallet.key, full_message=data).signature)
    as_27 = split_signature(raw)
    as_hex = split_signature("0x" + raw.hex())
    recovery_id = bytes(raw[:64]) + bytes([raw[64] - 27])
    as_01 = split_signature(recovery_id)
    assert as_27 == as_hex == as_01
    assert as_27.r == "0x" + raw[:32].hex() and len(as_27.r) == 66
    assert as_27.s == "0x" + raw[32:64].hex() and len(as_27.s) == 66
    assert as_27.v == raw[64] and type(as_27.v) is int
    assert as_27.to_wire() == {"r": as_27.r, "s": as_27.s, "v": as_27.v}


def test_split_signature_keeps_leading_zero_bytes() -> None:
    raw = bytes(31) + b"\x01" + bytes(31) + b"\x02" + b"\x1c"
    parts = split_signature(raw)
    assert parts.r == "0x" + "00" * 31 + "01" and parts.s == "0x" + "00" * 31 + "02"
    assert parts.v == 28


@pytest.mark.parametrize(
    "bad",
    [
        b"\x01" * 64 + bytes([35]),  # EIP-155 style v
        b"\x01" * 64 + bytes([2]),
        b"\x01" * 64,  # too short
        "0x" + "01" * 66,  # too long
        "0x123",  # odd hex
        "0xzz",
    ],
)
def test_split_signature_rejects_bad_input(bad: bytes | str) -> None:
    with pytest.raises(VenueDataError):
        split_signature(bad)


def test_venue_signature_model_validates() -> None:
    good = {"r": "0x" + "AB" * 32, "s": "0x" + "cd" * 32, "v": 27}
    sig = VenueSignature.model_validate(good)
    assert sig.r == "0x" + "ab" * 32  # normalised to lower case
    for bad in ({**good, "v": 1}, {**good, "v": True}, {**good, "r": "0x12"}):
        with pytest.raises(ValueError):
            VenueSignature.model_validate(bad)
