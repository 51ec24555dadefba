"""The steps of every flow, checked against the spec's shapes (2.2, 4.4) field by field."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from eth_abi import decode
from eth_utils import keccak, to_checksum_address

from helpers.typed_data import nonce_mapping_fields, send_asset_fields

from .support import (
    BASE_DEPOSITORY,
    BASE_USDC,
    HIP3_USDC,
    HYPER_USDC,
    NATIVE,
    PERPS_USDC,
    RECIPIENT,
    SPOT_USDC,
    USER,
    VENUE_DEPOSITORY,
    Service,
    body,
)


def selector(signature: str) -> str:
    return "0x" + keccak(text=signature)[:4].hex()


def decode_call(data: str, signature: str, types: list[str]) -> tuple[Any, ...]:
    assert data.startswith(selector(signature)), (data[:10], signature)
    return decode(types, bytes.fromhex(data[10:]))


def assert_item_common(step: dict[str, Any], request_id: str) -> None:
    assert step["requestId"] == request_id
    assert isinstance(step["action"], str) and isinstance(step["description"], str)
    for item in step["items"]:
        assert item["status"] == "incomplete"
        if step["id"] in ("approve", "authorize"):
            # the service cannot see these done: no check, or a caller that waits on every
            # check (the public SDK) would wait for the request's success before the deposit
            assert "check" not in item
            continue
        assert item["check"] == {
            "endpoint": f"/intents/status?requestId={request_id}",
            "method": "GET",
        }
    if step["id"] == "deposit":
        assert isinstance(step["depositAddress"], str)
    else:
        assert "depositAddress" not in step


def request_id_of(quote: dict[str, Any]) -> str:
    request_id = quote["steps"][0]["requestId"]
    assert len(request_id) == 66 and request_id.startswith("0x")
    int(request_id, 16)
    return request_id


def assert_evm_tx(data: dict[str, Any], *, chain_id: int, to: str, value: int) -> None:
    assert set(data) == {
        "from",
        "to",
        "data",
        "value",
        "maxFeePerGas",
        "maxPriorityFeePerGas",
        "chainId",
        "gas",
    }
    assert data["gas"].isdigit() and int(data["gas"]) >= 21_000
    assert data["from"] == USER
    assert data["to"] == to_checksum_address(to)
    assert data["value"] == str(value)
    assert data["chainId"] == chain_id
    assert int(data["maxFeePerGas"]) >= int(data["maxPriorityFeePerGas"]) > 0


async def test_native_deposit_step(service: Service) -> None:
    quote = await service.ok_quote(body())
    request_id = request_id_of(quote)
    order_id = quote["protocol"]["v2"]["orderId"]
    assert [s["id"] for s in quote["steps"]] == ["deposit"]
    step = quote["steps"][0]
    assert step["kind"] == "transaction"
    assert_item_common(step, request_id)
    data = step["items"][0]["data"]
    assert_evm_tx(data, chain_id=8453, to=BASE_DEPOSITORY, value=10**18)
    depositor, tag = decode_call(
        data["data"], "depositNative(address,bytes32)", ["address", "bytes32"]
    )
    assert depositor.lower() == USER.lower()
    assert "0x" + tag.hex() == order_id
    assert quote["protocol"]["v2"]["paymentDetails"] == {
        "chainId": "base",  # the protocol's chain name, as /chains protocol.v2.chainId
        "depository": to_checksum_address(BASE_DEPOSITORY),
        "currency": NATIVE,
        "amount": str(10**18),
    }
    order = quote["protocol"]["v2"]["orderData"]
    assert order["inputs"][0]["payment"] == {
        "chainId": "base",
        "currency": NATIVE,
        "amount": str(10**18),
        "weight": "1",
    }
    assert order["output"]["chainId"] == "hyperevm"
    assert step["depositAddress"] == ""
    assert order_id != request_id
    stored = service.state.get(request_id)
    assert stored.status == "waiting" and stored.order_id == order_id


async def test_erc20_with_short_allowance_gets_approve_then_deposit(service: Service) -> None:
    amount = 25_000_000
    service.reader.set_allowance(8453, BASE_USDC, USER, BASE_DEPOSITORY, amount - 1)
    quote = await service.ok_quote(body(originCurrency=BASE_USDC, amount=str(amount)))
    request_id = request_id_of(quote)
    assert [s["id"] for s in quote["steps"]] == ["approve", "deposit"]
    approve, deposit = quote["steps"]
    for step in quote["steps"]:
        assert step["kind"] == "transaction"
        assert_item_common(step, request_id)
    approve_data = approve["items"][0]["data"]
    assert_evm_tx(approve_data, chain_id=8453, to=BASE_USDC, value=0)
    spender, allowed = decode_call(
        approve_data["data"], "approve(address,uint256)", ["address", "uint256"]
    )
    assert spender.lower() == BASE_DEPOSITORY and allowed == amount
    deposit_data = deposit["items"][0]["data"]
    assert_evm_tx(deposit_data, chain_id=8453, to=BASE_DEPOSITORY, value=0)
    depositor, token, value, tag = decode_call(
        deposit_data["data"],
        "depositErc20(address,address,uint256,bytes32)",
        ["address", "address", "uint256", "bytes32"],
    )
    assert (depositor.lower(), token.lower(), value) == (USER.lower(), BASE_USDC, amount)
    assert "0x" + tag.hex() == quote["protocol"]["v2"]["orderId"]
    assert quote["protocol"]["v2"]["paymentDetails"]["currency"] == to_checksum_address(BASE_USDC)


async def test_erc20_with_enough_allowance_skips_approve(service: Service) -> None:
    amount = 25_000_000
    service.reader.set_allowance(8453, BASE_USDC, USER, BASE_DEPOSITORY, amount)
    quote = await service.ok_quote(body(originCurrency=BASE_USDC, amount=str(amount)))
    assert [s["id"] for s in quote["steps"]] == ["deposit"]


async def test_venue_deposit_is_an_ordinary_evm_deposit(service: Service) -> None:
    quote = await service.ok_quote(
        body(
            originCurrency=BASE_USDC,
            destinationChainId=1337,
            destinationCurrency=SPOT_USDC,
            amount="10000000",
            recipient=RECIPIENT,
        )
    )
    assert [s["id"] for s in quote["steps"]] == ["approve", "deposit"]
    assert quote["protocol"]["v2"]["paymentDetails"]["depository"] == to_checksum_address(
        BASE_DEPOSITORY
    )
    record = service.state.get(request_id_of(quote))
    assert record.destination_chain_id == 1337 and record.recipient == RECIPIENT


@pytest.mark.parametrize("brand", ["neutral", "public"])
@pytest.mark.parametrize(
    ("currency", "token", "dex"),
    [
        (PERPS_USDC, f"USDC:{SPOT_USDC}", ""),
        (SPOT_USDC, f"USDC:{SPOT_USDC}", "spot"),
        (HIP3_USDC, f"USDC:{SPOT_USDC}", "xyz"),
    ],
    ids=["perps", "spot", "hip3"],
)
async def test_venue_withdrawal_steps_exactly_as_4_4(
    make_service, brand: str, currency: str, token: str, dex: str
) -> None:
    service = await make_service(brand)
    b = service.brand
    amount = 1_234_500_000  # 12.345 USDC at 8 decimals
    quote = await service.ok_quote(
        body(
            originChainId=1337,
            originCurrency=currency,
            destinationChainId=8453,
            destinationCurrency=BASE_USDC,
            amount=str(amount),
            protocolVersion="v2",
        )
    )
    request_id = request_id_of(quote)
    order_id = quote["protocol"]["v2"]["orderId"]
    assert [(s["id"], s["kind"]) for s in quote["steps"]] == [
        ("authorize", "signature"),
        ("deposit", "transaction"),
    ]
    authorize, deposit = quote["steps"]
    assert_item_common(authorize, request_id)
    assert_item_common(deposit, request_id)

    auth = authorize["items"][0]["data"]
    sign, post = auth["sign"], auth["post"]
    nonce = sign["value"]["nonce"]
    assert isinstance(nonce, int) and nonce > 0
    assert sign == {
        "signatureKind": "eip712",
        "domain": {
            "name": f"{b.service_name}NonceMapping",
            "version": "2",
            "chainId": 1,
            "verifyingContract": "0x0000000000000000000000000000000000000000",
        },
        "types": {"NonceMapping": nonce_mapping_fields()},
        "value": {
            "chainId": b.venue_name.lower(),
            "wallet": USER,
            "depositor": USER,
            "nonce": nonce,
            "id": order_id,
        },
        "primaryType": "NonceMapping",
    }
    assert post == {
        "endpoint": "/authorize",
        "method": "POST",
        "body": {
            "type": "nonce-mapping",
            "walletChainId": 1337,
            "wallet": USER,
            "depositor": USER,
            "nonce": nonce,
            "id": order_id,
            "signatureChainId": 1,
        },
    }

    chain_field = ("venueChain", "hyperliquidChain")[brand == "public"]
    primary = ("VenueTransaction:SendAsset", "HyperliquidTransaction:SendAsset")[brand == "public"]
    data = deposit["items"][0]["data"]
    assert data["nonce"] == nonce
    assert data["action"] == {
        "type": "sendAsset",
        "parameters": {
            chain_field: "Mainnet",
            "destination": to_checksum_address(VENUE_DEPOSITORY),
            "sourceDex": dex,
            "destinationDex": dex,
            "token": token,
            "amount": "12.345000",  # at least 6 places, as the public service writes it
            "fromSubAccount": "",
            "nonce": nonce,
        },
    }
    assert Decimal(data["action"]["parameters"]["amount"]) == Decimal(
        quote["details"]["currencyIn"]["amountFormatted"]
    )
    assert data["eip712PrimaryType"] == primary
    assert data["eip712Types"] == {primary: send_asset_fields(chain_field)}
    assert data["check"] == deposit["items"][0]["check"]
    assert quote["protocol"]["v2"]["paymentDetails"] == {
        "chainId": b.venue_name.lower(),  # the venue chain's protocol name
        "depository": to_checksum_address(VENUE_DEPOSITORY),
        "currency": currency,
        "amount": str(amount),
    }
    record = service.state.get(request_id)
    assert record.venue_nonce == nonce
    assert service.state.by_venue_nonce(nonce).id == request_id


async def test_venue_nonces_are_unique_and_increasing(service: Service) -> None:
    nonces = []
    for _ in range(5):  # the fake clock does not move: nonces must still differ
        quote = await service.ok_quote(
            body(
                originChainId=1337,
                originCurrency=PERPS_USDC,
                destinationChainId=999,
                destinationCurrency=HYPER_USDC,
                amount="500000000",
                protocolVersion="v2",
            )
        )
        nonces.append(quote["steps"][1]["items"][0]["data"]["nonce"])
    assert nonces == sorted(set(nonces)) and len(nonces) == 5
    assert nonces[0] >= service.clock.ms


async def test_permit_step(service: Service) -> None:
    amount = 7_000_000
    quote = await service.ok_quote(
        body(originCurrency=BASE_USDC, amount=str(amount), usePermit=True, permitExpiry=900)
    )
    request_id = request_id_of(quote)
    assert [(s["id"], s["kind"]) for s in quote["steps"]] == [("deposit", "signature")]
    step = quote["steps"][0]
    assert_item_common(step, request_id)
    data = step["items"][0]["data"]
    sign = data["sign"]
    assert sign["signatureKind"] == "eip712"
    assert sign["primaryType"] == "ReceiveWithAuthorization"
    assert sign["domain"] == {
        "name": "USD Coin",
        "version": "2",
        "chainId": 8453,
        "verifyingContract": to_checksum_address(BASE_USDC),
    }
    assert [f["name"] for f in sign["types"]["ReceiveWithAuthorization"]] == [
        "from",
        "to",
        "value",
        "validAfter",
        "validBefore",
        "nonce",
    ]
    value = sign["value"]
    assert value["from"] == USER
    assert value["to"] == to_checksum_address(BASE_DEPOSITORY)
    assert value["value"] == str(amount)
    assert value["validAfter"] == 0
    assert value["validBefore"] == service.clock.ms // 1000 + 900
    assert len(value["nonce"]) == 66
    assert data["post"] == {
        "endpoint": "/execute/permits",
        "method": "POST",
        "body": {"kind": "eip3009", "requestId": request_id},
    }
    # A permit deposit costs the user no gas.
    assert quote["fees"]["gas"]["amount"] == "0"


async def test_permit_default_expiry_is_ten_minutes(service: Service) -> None:
    quote = await service.ok_quote(body(originCurrency=BASE_USDC, amount="7000000", usePermit=True))
    value = quote["steps"][0]["items"][0]["data"]["sign"]["value"]
    assert value["validBefore"] == service.clock.ms // 1000 + 600


@pytest.mark.parametrize("strict", [False, True])
async def test_deposit_address_flow(service: Service, strict: bool) -> None:
    refund = "0x" + "ef" * 20
    extra = {"strict": True, "refundTo": refund} if strict else {}
    quote = await service.ok_quote(body(useDepositAddress=True, **extra))
    request_id = request_id_of(quote)
    record = service.state.get(request_id)
    deposit_address = record.deposit_address
    assert deposit_address is not None
    assert deposit_address.type == ("strict" if strict else "open")
    assert deposit_address.depositor == USER
    # The service holds the key of the address.
    assert service.state.deposit_account(request_id).address == deposit_address.address
    assert [s["id"] for s in quote["steps"]] == ["deposit"]
    data = quote["steps"][0]["items"][0]["data"]
    assert_evm_tx(data, chain_id=8453, to=deposit_address.address, value=10**18)
    assert data["data"] == "0x"
    # paymentDetails keeps naming the depository; the address to pay is the step's
    # depositAddress and its tx's to, as the public service sends them
    assert quote["protocol"]["v2"]["paymentDetails"]["depository"] == to_checksum_address(
        BASE_DEPOSITORY
    )
    assert quote["steps"][0]["depositAddress"] == deposit_address.address
    assert service.state.by_deposit_address(deposit_address.address)[0].id == request_id
    if strict:
        assert record.refund_to == refund
    # Two quotes never share a deposit address.
    again = await service.ok_quote(body(useDepositAddress=True, **extra))
    assert service.state.get(request_id_of(again)).deposit_address.address != (
        deposit_address.address
    )
