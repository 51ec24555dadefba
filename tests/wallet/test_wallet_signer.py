"""Signer: signatures recover to the signer, the raw-bytes EIP-191 rule, key hygiene."""

from __future__ import annotations

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.wallet.errors import InvalidKeyError
from crossdeck.wallet.signer import (
    Signer,
    new_private_key,
    recover_eip191,
    recover_typed_data,
)
from crossdeck.wallet.typed_data import full_typed_data
from helpers.keys import DEV_KEYS
from helpers.typed_data import eip712_domain_fields, send_asset_fields

KEY = DEV_KEYS[0]
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def send_asset_typed_data() -> dict:
    """A venue SendAsset message in the full EIP-712 form."""
    return {
        "types": {
            "EIP712Domain": eip712_domain_fields(),
            "VenueTransaction:SendAsset": send_asset_fields("hyperliquidChain"),
        },
        "primaryType": "VenueTransaction:SendAsset",
        "domain": {
            "name": "VenueSignTransaction",
            "version": "1",
            "chainId": 0x66EEE,
            "verifyingContract": "0x0000000000000000000000000000000000000000",
        },
        "message": {
            "hyperliquidChain": "Mainnet",
            "destination": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
            "sourceDex": "",
            "destinationDex": "spot",
            "token": "USDC:0x6d1e7cde53ba9467b783cb7c530ce054",
            "amount": "12.5",
            "fromSubAccount": "",
            "nonce": 1_700_000_000_000,
        },
    }


def authorize_sign_data() -> dict:
    """The quote's `sign` shape: `value`, and no EIP712Domain type."""
    return {
        "signatureKind": "eip712",
        "domain": {
            "name": "ServiceNonceMapping",
            "version": "2",
            "chainId": 1,
            "verifyingContract": "0x0000000000000000000000000000000000000000",
        },
        "types": {
            "NonceMapping": [
                {"name": "wallet", "type": "address"},
                {"name": "id", "type": "bytes32"},
                {"name": "nonce", "type": "uint256"},
                {"name": "chainId", "type": "string"},
            ]
        },
        "primaryType": "NonceMapping",
        "value": {
            "wallet": ADDRESS,
            "id": "0x" + "ab" * 32,
            "nonce": 1_700_000_000_000,
            "chainId": "venue",
        },
    }


def test_typed_data_signature_recovers_to_the_signer() -> None:
    signer = Signer(Secret(KEY))
    signature = signer.sign_typed_data(send_asset_typed_data())
    assert len(signature) == 65
    assert signature[-1] in (27, 28)
    assert recover_typed_data(send_asset_typed_data(), signature) == ADDRESS
    assert signer.recover_typed_data(send_asset_typed_data(), signature) == ADDRESS


def test_typed_data_signature_binds_the_message() -> None:
    signer = Signer(Secret(KEY))
    signature = signer.sign_typed_data(send_asset_typed_data())
    tampered = send_asset_typed_data()
    tampered["message"]["amount"] = "125"
    assert recover_typed_data(tampered, signature) != ADDRESS


def test_quote_sign_shape_gets_a_derived_domain_type() -> None:
    data = authorize_sign_data()
    full = full_typed_data(data)
    assert full["message"] == data["value"]
    assert [f["name"] for f in full["types"]["EIP712Domain"]] == [
        "name",
        "version",
        "chainId",
        "verifyingContract",
    ]
    signer = Signer(Secret(KEY))
    signature = signer.sign_typed_data(data)
    # The same message written in full form gives the same digest, hence the same signature.
    assert signature == signer.sign_typed_data(full)
    assert recover_typed_data(full, signature) == ADDRESS


def test_eip191_text_is_signed_as_text() -> None:
    signer = Signer(Secret(KEY))
    signature = signer.sign_eip191("hello venue")
    assert recover_eip191("hello venue", signature) == ADDRESS
    assert Account.recover_message(encode_defunct(text="hello venue"), signature=signature) == (
        ADDRESS
    )


def test_eip191_32_byte_hex_is_signed_as_raw_bytes() -> None:
    signer = Signer(Secret(KEY))
    digest = "0x" + "1f" * 32
    signature = signer.sign_eip191(digest)
    raw = encode_defunct(primitive=bytes.fromhex("1f" * 32))
    assert Account.recover_message(raw, signature=signature) == ADDRESS
    as_text = encode_defunct(text=digest)
    assert Account.recover_message(as_text, signature=signature) != ADDRESS
    # One hex character short is no longer 32 bytes: it is text.
    shorter = digest[:-1]
    assert Account.recover_message(
        encode_defunct(text=shorter), signature=signer.sign_eip191(shorter)
    ) == (ADDRESS)


def test_sign_transaction_recovers_and_accepts_quote_strings() -> None:
    signer = Signer(Secret(KEY))
    tx = {
        "from": ADDRESS.lower(),
        "to": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
        "value": "1000000000000000",
        "data": "0x",
        "gas": 21_000,
        "maxFeePerGas": "3000000000",
        "maxPriorityFeePerGas": "0x3b9aca00",
        "nonce": 0,
        "chainId": 8453,
    }
    signed = signer.sign_transaction(tx)
    assert signed.hash.startswith("0x") and len(signed.hash) == 66
    assert signed.raw[0] == 2  # EIP-1559 envelope
    assert Account.recover_transaction(signed.raw) == ADDRESS


def test_sign_transaction_refuses_someone_elses_tx() -> None:
    signer = Signer(Secret(KEY))
    tx = {
        "from": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "to": ADDRESS,
        "value": 1,
        "gas": 21_000,
        "maxFeePerGas": 2,
        "maxPriorityFeePerGas": 1,
        "nonce": 0,
        "chainId": 8453,
    }
    with pytest.raises(InputError, match="wallet is 0xf39F"):
        signer.sign_transaction(tx)
    del tx["from"], tx["chainId"]
    with pytest.raises(InputError, match="chainId"):
        signer.sign_transaction(tx)


def test_repr_and_errors_never_show_the_key() -> None:
    signer = Signer(Secret(KEY))
    assert KEY[2:] not in repr(signer)
    assert ADDRESS in repr(signer)
    bad = KEY[:-1] + "z"
    with pytest.raises(InvalidKeyError) as info:
        Signer(Secret(bad))
    assert bad[2:20] not in str(info.value)
    with pytest.raises(InvalidKeyError):
        Signer(Secret("0x" + "00" * 32))  # zero is not a valid secp256k1 key


def test_new_private_key_is_fresh_and_usable() -> None:
    first, second = new_private_key(), new_private_key()
    assert first.get_secret_value() != second.get_secret_value()
    assert len(first.get_secret_value()) == 66
    signer = Signer(first)
    assert recover_eip191("x", signer.sign_eip191("x")) == signer.address
