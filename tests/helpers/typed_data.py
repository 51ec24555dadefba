"""EIP-712 field lists as the spec writes them (4.4), for tests that build or check typed data
on their own. One copy for the tests, written from the spec and independent of both the
client's code and the world's, so a test still catches either side reading the spec wrong.
Each call returns a fresh list: a test may tamper with what it gets."""

from __future__ import annotations


def eip712_domain_fields() -> list[dict[str, str]]:
    """EIP712Domain of the venue's and the service's domains: name, version, chainId and
    verifyingContract."""
    return [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ]


def send_asset_fields(chain_field: str) -> list[dict[str, str]]:
    """'<Venue>Transaction:SendAsset': the first field names the venue ('hyperliquidChain' in
    public, '<venue>Chain' by brand)."""
    return [
        {"name": chain_field, "type": "string"},
        {"name": "destination", "type": "string"},
        {"name": "sourceDex", "type": "string"},
        {"name": "destinationDex", "type": "string"},
        {"name": "token", "type": "string"},
        {"name": "amount", "type": "string"},
        {"name": "fromSubAccount", "type": "string"},
        {"name": "nonce", "type": "uint64"},
    ]


def nonce_mapping_fields() -> list[dict[str, str]]:
    """NonceMapping, the authorize step that ties a venue nonce to a request (4.4 step 1)."""
    return [
        {"name": "chainId", "type": "string"},
        {"name": "wallet", "type": "address"},
        {"name": "depositor", "type": "address"},
        {"name": "id", "type": "bytes32"},
        {"name": "nonce", "type": "uint256"},
    ]


def transfer_authorization_fields() -> list[dict[str, str]]:
    """EIP-3009 Transfer/ReceiveWithAuthorization: what a USDC permit (`usePermit`) signs."""
    return [
        {"name": "from", "type": "address"},
        {"name": "to", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "validAfter", "type": "uint256"},
        {"name": "validBefore", "type": "uint256"},
        {"name": "nonce", "type": "bytes32"},
    ]
