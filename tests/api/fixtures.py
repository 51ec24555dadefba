"""Answers shaped exactly as the contract describes (service-api.md section 2, facts.md)."""

from __future__ import annotations

from typing import Any

from helpers.typed_data import nonce_mapping_fields, send_asset_fields

USER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
SOLVER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
REQUEST_ID = "0x" + "ab" * 32
ORDER_ID = "0x" + "cd" * 32
NONCE = 1732000000123
ZERO = "0x" + "0" * 40
PERPS_USDC = "0x" + "0" * 32
SPOT_USDC_ID = "0x6d1e7cde53ba9467b783cb7c530ce054"
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"


def amount(chain_id: int, address: str, symbol: str, decimals: int, value: str, human: str):
    return {
        "currency": {
            "chainId": chain_id,
            "address": address,
            "symbol": symbol,
            "name": symbol,
            "decimals": decimals,
            "metadata": {"logoURI": "https://x/logo.png", "verified": True, "isNative": False},
        },
        "amount": value,
        "amountFormatted": human,
        "amountUsd": human,
        "minimumAmount": value,
    }


def send_asset_types(venue: str = "Venue", chain_field: str = "venueChain") -> dict[str, Any]:
    return {f"{venue}Transaction:SendAsset": send_asset_fields(chain_field)}


def send_asset_action(chain_field: str = "venueChain", amount_text: str = "10") -> dict[str, Any]:
    return {
        "type": "sendAsset",
        "parameters": {
            chain_field: "Mainnet",
            "destination": SOLVER,
            "sourceDex": "",
            "destinationDex": "spot",
            "token": f"USDC:{SPOT_USDC_ID}",
            "amount": amount_text,
            "fromSubAccount": "",
            "nonce": NONCE,
        },
    }


def sponsorship(actual: bool = False) -> dict[str, Any]:
    usdc0 = amount(8453, BASE_USDC, "USDC", 6, "0", "0")
    fee = amount(8453, BASE_USDC, "USDC", 6, "20000", "0.02")
    part = {"selected": True, "total": fee, "sponsored": fee, "userPays": usdc0}
    out: dict[str, Any] = {
        "selectedComponents": ["execution", "service"],
        "capHit": False,
        "components": {"execution": part, "swap": part, "service": part, "app": part},
        "sponsoredTotal": fee,
        "userPaysTotal": usdc0,
        "maxSubsidizationAmount": "1000000",
    }
    if actual:
        out["sponsorPayment"] = {"amount": "20000", "address": USER, "chainId": 8453}
    return out


def venue_withdrawal_quote() -> dict[str, Any]:
    check = {"endpoint": f"/intents/status?requestId={REQUEST_ID}", "method": "GET"}
    venue_in = amount(1337, PERPS_USDC, "USDC", 8, "1000000000", "10")
    base_out = amount(8453, BASE_USDC, "USDC", 6, "9980000", "9.98")
    usd = {"usd": "0.02"}
    return {
        "steps": [
            {
                "id": "authorize",
                "action": "Sign authorization",
                "description": "Authorize the withdrawal nonce",
                "kind": "signature",
                "requestId": REQUEST_ID,
                "items": [
                    {
                        "status": "incomplete",
                        "data": {
                            "sign": {
                                "signatureKind": "eip712",
                                "domain": {
                                    "name": "ServiceNonceMapping",
                                    "version": "2",
                                    "chainId": 1,
                                    "verifyingContract": ZERO,
                                },
                                "types": {"NonceMapping": nonce_mapping_fields()},
                                "value": {
                                    "chainId": "venue",
                                    "wallet": USER,
                                    "depositor": USER,
                                    "nonce": NONCE,
                                    "id": REQUEST_ID,
                                },
                                "primaryType": "NonceMapping",
                            },
                            "post": {
                                "endpoint": "/authorize",
                                "method": "POST",
                                "body": {
                                    "type": "nonce-mapping",
                                    "walletChainId": 1337,
                                    "wallet": USER,
                                    "depositor": USER,
                                    "nonce": NONCE,
                                    "id": REQUEST_ID,
                                    "signatureChainId": 1,
                                },
                            },
                        },
                        "check": check,
                    }
                ],
            },
            {
                "id": "deposit",
                "action": "Confirm transaction in your wallet",
                "description": "Send funds on Venue",
                "kind": "transaction",
                "requestId": REQUEST_ID,
                "items": [
                    {
                        "status": "incomplete",
                        "data": {
                            "action": send_asset_action(),
                            "nonce": NONCE,
                            "eip712Types": send_asset_types(),
                            "eip712PrimaryType": "VenueTransaction:SendAsset",
                        },
                        "check": check,
                    }
                ],
            },
        ],
        "fees": {
            "gas": amount(1337, PERPS_USDC, "USDC", 8, "0", "0"),
            "relayer": amount(8453, BASE_USDC, "USDC", 6, "20000", "0.02"),
            "relayerGas": amount(8453, BASE_USDC, "USDC", 6, "5000", "0.005"),
            "relayerService": amount(8453, BASE_USDC, "USDC", 6, "15000", "0.015"),
            "app": amount(8453, BASE_USDC, "USDC", 6, "0", "0"),
            "subsidized": amount(8453, BASE_USDC, "USDC", 6, "0", "0"),
        },
        "feeSponsorship": {"quoted": sponsorship(), "actual": sponsorship(actual=True)},
        "details": {
            "operation": "bridge",
            "sender": USER,
            "recipient": USER,
            "currencyIn": venue_in,
            "currencyOut": base_out,
            "refundCurrency": venue_in,
            "currencyGasTopup": amount(8453, ZERO, "ETH", 18, "0", "0"),
            "totalImpact": {"usd": "-0.02", "percent": "-0.2"},
            "swapImpact": {"usd": "0", "percent": "0"},
            "expandedPriceImpact": {
                "swap": usd,
                "execution": usd,
                "service": usd,
                "app": usd,
                "sponsored": usd,
            },
            "rate": "0.998",
            "slippageTolerance": {
                "origin": {"usd": "0", "value": "0", "percent": "0"},
                "destination": {"usd": "0.01", "value": "10000", "percent": "0.1"},
            },
            "timeEstimate": 12,
            "userBalance": "5000000000",
            "fallbackType": "none",
            "isFixedRate": False,
            "fixedRateFee": {"usd": "0"},
            "route": {
                "origin": {
                    "inputCurrency": venue_in,
                    "outputCurrency": venue_in,
                    "router": "direct",
                    "includedSwapSources": [],
                },
                "destination": {
                    "inputCurrency": base_out,
                    "outputCurrency": base_out,
                    "router": "direct",
                    "includedSwapSources": [],
                },
            },
        },
        "protocol": {
            "v2": {
                "orderId": ORDER_ID,
                "orderData": {"anything": [1, 2]},
                "paymentDetails": {
                    "chainId": "1337",
                    "depository": SOLVER,
                    "currency": PERPS_USDC,
                    "amount": "1000000000",
                },
            }
        },
    }


def request_record(n: int) -> dict[str, Any]:
    tx = {
        "fee": "21000",
        "data": {"to": SOLVER, "data": "0x", "from": USER, "value": "0"},
        "hash": "0x" + f"{n:064x}",
        "type": "onchain",
        "chainId": 8453,
        "timestamp": 1732000000 + n,
    }
    return {
        "id": "0x" + f"{n:064x}",
        "status": "success",
        "user": USER,
        "recipient": USER,
        "depositAddress": {
            "address": SOLVER,
            "depositAddressType": "open",
            "depositor": None,
            "depositTxHash": None,
        },
        "data": {
            "subsidizedRequest": False,
            "fees": {"gas": "100", "fixed": "200", "price": "300"},
            "feesUsd": {"gas": "1", "fixed": "2", "price": "3"},
            "inTxs": [tx],
            "outTxs": [],
            "currency": "usdc",
            "price": "1000000",
            "usesExternalLiquidity": False,
        },
        "moonpayId": "7f0c3b0e-2d1a-4b5c-9e8f-0a1b2c3d4e5f",
        "createdAt": "2024-11-19T07:06:40.000Z",
        "updatedAt": "2024-11-19T07:07:10.123Z",
    }


def status_v1(status: str = "pending") -> dict[str, Any]:
    return {
        "status": status,
        "details": None,
        "inTxHashes": ["0x" + "11" * 32],
        "txHashes": [],
        "time": 1732000000,
        "originChainId": 1337,
        "destinationChainId": 8453,
    }


def status_v3(status: str = "success") -> dict[str, Any]:
    return {
        "status": status,
        "details": None,
        "failReason": "N/A",
        "refundFailReason": "N/A",
        "inTxHashes": ["0x" + "11" * 32],
        "txHashes": ["0x" + "22" * 32],
        "updatedAt": 1732000010000,
        "originChainId": 1337,
        "destinationChainId": 8453,
        "quoteCreatedAt": 1732000000000,
    }


def chains() -> dict[str, Any]:
    def chain(chain_id: int, name: str, erc20: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": chain_id,
            "name": name,
            "displayName": name.title(),
            "httpRpcUrl": "http://127.0.0.1:1",
            "explorerUrl": "https://explorer.example",
            "explorerPaths": {"transaction": "/tx/{txHash}"},
            "depositEnabled": True,
            "disabled": False,
            "blockProductionLagging": False,
            "currency": {
                "id": "eth",
                "symbol": "ETH",
                "name": "Ether",
                "address": ZERO,
                "decimals": 18,
                "supportsBridging": True,
            },
            "erc20Currencies": erc20,
            "solverCurrencies": [],
            "vmType": "evm",
            "protocol": {"v2": {"chainId": str(chain_id), "depository": SOLVER}},
        }

    usdc = {
        "id": "usdc",
        "symbol": "USDC",
        "name": "USD Coin",
        "address": BASE_USDC,
        "decimals": 6,
        "supportsBridging": True,
    }
    venue = chain(1337, "venue", [])
    venue["currency"] = {
        "id": "usdc",
        "symbol": "USDC",
        "name": "USDC (perps)",
        "address": PERPS_USDC,
        "decimals": 8,
        "supportsBridging": True,
    }
    venue["erc20Currencies"] = [
        {
            "id": "usdc-spot",
            "symbol": "USDC",
            "name": "USDC (spot)",
            "address": SPOT_USDC_ID,
            "decimals": 8,
            "supportsBridging": True,
        }
    ]
    return {"chains": [chain(8453, "base", [usdc]), venue]}
