"""POST /authorize?signature=: NonceMapping signatures tie a venue nonce to a request once.

The typed data is built here from the spec's table (4.4 step 1), not from the service's code.
"""

from __future__ import annotations

from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data

from helpers.typed_data import eip712_domain_fields, nonce_mapping_fields

from .support import BASE_USDC, OTHER_KEY, PERPS_USDC, USER, USER_KEY, Service, body


def nonce_mapping_typed(
    service_name: str, venue: str, post: dict[str, Any], chain_id: int
) -> dict[str, Any]:
    return {
        "types": {
            "EIP712Domain": eip712_domain_fields(),
            "NonceMapping": nonce_mapping_fields(),
        },
        "domain": {
            "name": f"{service_name}NonceMapping",
            "version": "2",
            "chainId": chain_id,
            "verifyingContract": "0x" + "00" * 20,
        },
        "primaryType": "NonceMapping",
        "message": {
            "chainId": venue,
            "wallet": post["wallet"],
            "depositor": post["depositor"],
            "id": post["id"],
            "nonce": post["nonce"],
        },
    }


def sign(key: str, typed: dict[str, Any]) -> str:
    signed = Account.sign_message(encode_typed_data(full_message=typed), private_key=key)
    return "0x" + signed.signature.hex().removeprefix("0x")


async def withdrawal(service: Service) -> tuple[str, dict[str, Any]]:
    quote = await service.ok_quote(
        body(
            originChainId=1337,
            originCurrency=PERPS_USDC,
            destinationChainId=8453,
            destinationCurrency=BASE_USDC,
            amount="1000000000",
            protocolVersion="v2",
        )
    )
    post = quote["steps"][0]["items"][0]["data"]["post"]
    return quote["steps"][0]["requestId"], post


async def post_authorize(service: Service, post_body: Any, signature: str | None):
    params = {"signature": signature} if signature is not None else {}
    return await service.http.post(f"{service.url}/authorize", params=params, json=post_body)


@pytest.mark.parametrize("brand", ["neutral", "public"])
async def test_accepts_the_wallet_signature_and_maps_the_nonce(make_service, brand: str) -> None:
    service = await make_service(brand)
    request_id, post = await withdrawal(service)
    typed = nonce_mapping_typed(
        service.brand.service_name, service.brand.venue_name.lower(), post["body"], 1
    )
    response = await post_authorize(service, post["body"], sign(USER_KEY, typed))
    assert response.status_code == 200, response.text
    assert response.json()["requestId"] == request_id
    mapped = service.state.by_nonce(USER, post["body"]["nonce"])
    assert mapped is not None and mapped.id == request_id and mapped.nonce_authorized


async def test_chain_id_override_both_together_is_accepted(service: Service) -> None:
    _, post = await withdrawal(service)
    moved = {**post["body"], "signatureChainId": 8453}
    typed = nonce_mapping_typed("Service", "venue", moved, 8453)
    response = await post_authorize(service, moved, sign(USER_KEY, typed))
    assert response.status_code == 200, response.text


async def test_domain_chain_id_must_match_the_body(service: Service) -> None:
    _, post = await withdrawal(service)
    typed = nonce_mapping_typed("Service", "venue", post["body"], 8453)  # body says 1
    response = await post_authorize(service, post["body"], sign(USER_KEY, typed))
    assert response.status_code == 401
    assert response.json()["errorCode"] == "UNAUTHORIZED"


async def test_wrong_signer_is_401(service: Service) -> None:
    _, post = await withdrawal(service)
    typed = nonce_mapping_typed("Service", "venue", post["body"], 1)
    response = await post_authorize(service, post["body"], sign(OTHER_KEY, typed))
    assert response.status_code == 401
    answer = response.json()
    assert answer["errorCode"] == "UNAUTHORIZED" and "wallet" in answer["message"]
    assert service.state.by_nonce(USER, post["body"]["nonce"]) is None


async def test_wrong_brand_domain_is_401(service: Service) -> None:
    _, post = await withdrawal(service)
    typed = nonce_mapping_typed("Relay", "hyperliquid", post["body"], 1)
    response = await post_authorize(service, post["body"], sign(USER_KEY, typed))
    assert response.status_code == 401


async def test_replay_is_refused(service: Service) -> None:
    request_id, post = await withdrawal(service)
    signature = sign(USER_KEY, nonce_mapping_typed("Service", "venue", post["body"], 1))
    first = await post_authorize(service, post["body"], signature)
    assert first.status_code == 200
    again = await post_authorize(service, post["body"], signature)
    assert again.status_code == 400
    answer = again.json()
    assert answer["errorCode"] == "NONCE_ALREADY_MAPPED"
    assert answer["errorData"]["requestId"] == request_id


@pytest.mark.parametrize(
    ("signature", "code"),
    [(None, "INVALID_SIGNATURE"), ("", "INVALID_SIGNATURE"), ("0x1234", "INVALID_SIGNATURE")],
    ids=["missing", "empty", "short"],
)
async def test_missing_or_malformed_signature(service: Service, signature, code: str) -> None:
    _, post = await withdrawal(service)
    response = await post_authorize(service, post["body"], signature)
    assert response.status_code == 400
    assert response.json()["errorCode"] == code
    assert "signature" in response.json()["message"]


@pytest.mark.parametrize(
    ("change", "word"),
    [
        ({"nonce": 1}, "nonce"),
        ({"id": "0x" + "77" * 32}, "id"),
        ({"type": "other"}, "type"),
        ({"walletChainId": 1}, "walletChainId"),
        ({"wallet": "0x" + "12" * 20}, "wallet"),
        ({"depositor": "nope"}, "depositor"),
        ({"signatureChainId": "1"}, "signatureChainId"),
    ],
    ids=["nonce", "id", "type", "walletChainId", "wallet", "depositor", "signatureChainId"],
)
async def test_mismatches_are_refused_with_the_field(
    service: Service, change: dict[str, Any], word: str
) -> None:
    _, post = await withdrawal(service)
    changed = {**post["body"], **change}
    typed_body = {
        **changed,
        "signatureChainId": 1,
        "wallet": USER,
        "depositor": USER,
    }
    if word in ("nonce", "id"):
        typed_body = changed
    signature = sign(USER_KEY, nonce_mapping_typed("Service", "venue", typed_body, 1))
    response = await post_authorize(service, changed, signature)
    assert response.status_code == 400, response.text
    assert word in response.json()["message"]
    assert service.state.by_nonce(USER, post["body"]["nonce"]) is None


async def test_evm_request_cannot_be_authorized(service: Service) -> None:
    quote = await service.ok_quote(body())
    post = {
        "type": "nonce-mapping",
        "walletChainId": 1337,
        "wallet": USER,
        "depositor": USER,
        "nonce": 1,
        "id": quote["protocol"]["v2"]["orderId"],
        "signatureChainId": 1,
    }
    signature = sign(USER_KEY, nonce_mapping_typed("Service", "venue", post, 1))
    response = await post_authorize(service, post, signature)
    assert response.status_code == 400
    assert "venue withdrawal" in response.json()["message"]


async def test_malformed_json_body(service: Service) -> None:
    response = await service.http.post(
        f"{service.url}/authorize", params={"signature": "0x" + "11" * 65}, content=b"{{"
    )
    assert response.status_code == 400
    assert response.json()["errorCode"] == "INVALID_INPUT"
