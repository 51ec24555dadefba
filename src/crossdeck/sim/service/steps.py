"""Builders of the quote's ``steps`` (spec 2.2 and 4.4).

Each item has ``status: "incomplete"``; each step carries the ``requestId``; deposit steps also
carry ``depositAddress`` ("" unless the step pays a deposit address), as the public service
sends them (its approve and authorize steps have none).

``check: {endpoint: "/intents/status?requestId=<id>", method: "GET"}`` (the contract's form; the
public service also writes ``/intents/status/v3?...``) is only on the items
whose completion the service itself sees: the deposit (its tx or venue transfer lands in the
request) and the permit (the service submits it). The approve item and the venue 'authorize'
item carry none, as in the public answers: a caller (the public TypeScript SDK does) waits on
every check it finds until the request succeeds, which these items alone never bring about.

EVM transaction items carry ``gas``, the gas limit, as a digit string.

Signature steps carry ``sign`` (``signatureKind`` 'eip712', ``domain``, ``types``,
``primaryType``, ``value``) and ``post`` (``endpoint``, ``method``, ``body``). ``types`` holds only
the primary type's struct (no ``EIP712Domain``), as the public service sends it: a signer derives
the domain type from the domain's members (eth-account and viem both do).
"""

from __future__ import annotations

from typing import Any

from eth_utils.address import to_checksum_address

from crossdeck.sim.brand import Brand
from crossdeck.sim.service.directory import encode_call
from crossdeck.sim.service.money import format_units

ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"
VENUE_CHAIN_VALUE = "Mainnet"

NONCE_MAPPING_TYPES = [
    {"name": "chainId", "type": "string"},
    {"name": "wallet", "type": "address"},
    {"name": "depositor", "type": "address"},
    {"name": "id", "type": "bytes32"},
    {"name": "nonce", "type": "uint256"},
]

RECEIVE_WITH_AUTHORIZATION_TYPES = [
    {"name": "from", "type": "address"},
    {"name": "to", "type": "address"},
    {"name": "value", "type": "uint256"},
    {"name": "validAfter", "type": "uint256"},
    {"name": "validBefore", "type": "uint256"},
    {"name": "nonce", "type": "bytes32"},
]


def check(request_id: str) -> dict[str, str]:
    return {"endpoint": f"/intents/status?requestId={request_id}", "method": "GET"}


def item(request_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """An item the service sees complete: the request moves on when it is done."""
    return {"status": "incomplete", "data": data, "check": check(request_id)}


def unchecked_item(data: dict[str, Any]) -> dict[str, Any]:
    """An item whose completion the service cannot see (an approval, a signature it only
    stores): no check, so a caller moves to the next step once it is done."""
    return {"status": "incomplete", "data": data}


def step(
    step_id: str,
    action: str,
    description: str,
    kind: str,
    request_id: str,
    items: list[dict[str, Any]],
    deposit_address: str | None = None,
) -> dict[str, Any]:
    out = {
        "id": step_id,
        "action": action,
        "description": description,
        "kind": kind,
        "items": items,
        "requestId": request_id,
    }
    if deposit_address is not None:  # deposit steps only, as the public service writes them
        out["depositAddress"] = deposit_address
    return out


def evm_tx(
    *,
    from_: str,
    to: str,
    data: bytes | str,
    value: int,
    chain_id: int,
    max_fee: int,
    priority_fee: int,
    gas: int,
) -> dict[str, Any]:
    return {
        "from": to_checksum_address(from_),
        "to": to_checksum_address(to),
        "data": data if isinstance(data, str) else "0x" + data.hex(),
        "value": str(value),
        "chainId": chain_id,
        "gas": str(gas),
        "maxFeePerGas": str(max_fee),
        "maxPriorityFeePerGas": str(priority_fee),
    }


def order_id_bytes(order_id: str) -> bytes:
    return bytes.fromhex(order_id.removeprefix("0x"))


def deposit_native_calldata(user: str, order_id: str) -> bytes:
    return encode_call(
        "depositNative(address,bytes32)",
        ["address", "bytes32"],
        [to_checksum_address(user), order_id_bytes(order_id)],
    )


def deposit_erc20_calldata(user: str, token: str, amount: int, order_id: str) -> bytes:
    return encode_call(
        "depositErc20(address,address,uint256,bytes32)",
        ["address", "address", "uint256", "bytes32"],
        [to_checksum_address(user), to_checksum_address(token), amount, order_id_bytes(order_id)],
    )


def approve_calldata(spender: str, amount: int) -> bytes:
    return encode_call(
        "approve(address,uint256)", ["address", "uint256"], [to_checksum_address(spender), amount]
    )


def approve_step(request_id: str, tx: dict[str, Any], symbol: str) -> dict[str, Any]:
    return step(
        "approve",
        "Approve the deposit",
        f"Allow the depository to take the {symbol} of this transfer",
        "transaction",
        request_id,
        [unchecked_item(tx)],
    )


def deposit_step(
    request_id: str, tx: dict[str, Any], description: str, deposit_address: str = ""
) -> dict[str, Any]:
    """The deposit; ``deposit_address`` when it pays a deposit address (also the tx's to)."""
    return step(
        "deposit",
        "Confirm transaction in your wallet",
        description,
        "transaction",
        request_id,
        [item(request_id, tx)],
        deposit_address,
    )


def venue_amount(amount: int, decimals: int) -> str:
    """The sendAsset amount as the public service writes it: at least 6 decimal places
    ('10.000000' for 10 USDC), more only when the amount needs them; never rounded."""
    whole, _, frac = format_units(amount, decimals).partition(".")
    return f"{whole}.{frac.ljust(6, '0')}"


def nonce_mapping_sign(
    brand: Brand, *, wallet: str, nonce: int, order_id: str, chain_id: int = 1
) -> dict[str, Any]:
    return {
        "signatureKind": "eip712",
        "domain": {
            "name": brand.nonce_mapping_domain,
            "version": "2",
            "chainId": chain_id,
            "verifyingContract": ZERO_ADDRESS,
        },
        "types": {"NonceMapping": NONCE_MAPPING_TYPES},
        "value": {
            "chainId": brand.venue_chain_label,
            "wallet": wallet,
            "depositor": wallet,
            "nonce": nonce,
            "id": order_id,
        },
        "primaryType": "NonceMapping",
    }


def venue_withdrawal_steps(
    brand: Brand,
    *,
    request_id: str,
    wallet: str,
    nonce: int,
    order_id: str,
    depository: str,
    token: str,
    source_dex: str,
    amount: int,
    decimals: int,
) -> list[dict[str, Any]]:
    """Step 1 'authorize' (NonceMapping signature + POST /authorize), step 2 'deposit'."""
    authorize = step(
        "authorize",
        "Sign authorization",
        "Tie your venue transfer to this request",
        "signature",
        request_id,
        [
            unchecked_item(
                {
                    "sign": nonce_mapping_sign(
                        brand, wallet=wallet, nonce=nonce, order_id=order_id
                    ),
                    "post": {
                        "endpoint": "/authorize",
                        "method": "POST",
                        "body": {
                            "type": "nonce-mapping",
                            "walletChainId": 1337,
                            "wallet": wallet,
                            "depositor": wallet,
                            "nonce": nonce,
                            "id": order_id,
                            "signatureChainId": 1,
                        },
                    },
                },
            )
        ],
    )
    chain_field = brand.venue_chain_field
    parameters = {
        chain_field: VENUE_CHAIN_VALUE,
        "destination": depository,
        "sourceDex": source_dex,
        "destinationDex": source_dex,
        "token": token,
        "amount": venue_amount(amount, decimals),
        "fromSubAccount": "",
        "nonce": nonce,
    }
    deposit_data = {
        "action": {"type": "sendAsset", "parameters": parameters},
        "nonce": nonce,
        "eip712Types": {
            brand.send_asset_type: [
                {"name": chain_field, "type": "string"},
                {"name": "destination", "type": "string"},
                {"name": "sourceDex", "type": "string"},
                {"name": "destinationDex", "type": "string"},
                {"name": "token", "type": "string"},
                {"name": "amount", "type": "string"},
                {"name": "fromSubAccount", "type": "string"},
                {"name": "nonce", "type": "uint64"},
            ]
        },
        "eip712PrimaryType": brand.send_asset_type,
        # 4.4 lists check among the item data; it is also on the item like every other item.
        "check": check(request_id),
    }
    deposit = step(
        "deposit",
        "Sign the venue transfer",
        "Send the funds on the venue to the depository",
        "transaction",
        request_id,
        [item(request_id, deposit_data)],
        "",
    )
    return [authorize, deposit]


def permit_sign(
    *,
    chain_id: int,
    usdc: str,
    owner: str,
    depository: str,
    amount: int,
    valid_before: int,
    nonce: str,
) -> dict[str, Any]:
    return {
        "signatureKind": "eip712",
        "domain": {
            "name": "USD Coin",
            "version": "2",
            "chainId": chain_id,
            "verifyingContract": to_checksum_address(usdc),
        },
        "types": {"ReceiveWithAuthorization": RECEIVE_WITH_AUTHORIZATION_TYPES},
        "primaryType": "ReceiveWithAuthorization",
        "value": {
            "from": to_checksum_address(owner),
            "to": to_checksum_address(depository),
            "value": str(amount),
            "validAfter": 0,
            "validBefore": valid_before,
            "nonce": nonce,
        },
    }


def permit_step(request_id: str, sign: dict[str, Any]) -> dict[str, Any]:
    return step(
        "deposit",
        "Sign the deposit permit",
        "Authorize the depository to take this USDC (EIP-3009); the service submits it",
        "signature",
        request_id,
        [
            item(
                request_id,
                {
                    "sign": sign,
                    "post": {
                        "endpoint": "/execute/permits",
                        "method": "POST",
                        "body": {"kind": "eip3009", "requestId": request_id},
                    },
                },
            )
        ],
        "",
    )
