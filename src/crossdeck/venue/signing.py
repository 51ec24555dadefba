"""Pure builders for the venue's user-signed SendAsset (spec 4.4, "Building the deposit
signature data"), shaped like the venue SDK's `user_signed_payload`.

Nothing here knows a brand: the sign domain is derived from the step's primary type, the types
and parameters come from the quote. Nothing here signs either; the wallet signs the typed data
and `split_signature` turns its 65 bytes into the `{r, s, v}` the venue wants.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from crossdeck.models.chains import ZERO_ADDRESS
from crossdeck.models.venue import VenueSignature
from crossdeck.venue.errors import VenueDataError

SIGN_DOMAIN_VERSION = "1"
EIP712_DOMAIN_TYPE = [
    {"name": "name", "type": "string"},
    {"name": "version", "type": "string"},
    {"name": "chainId", "type": "uint256"},
    {"name": "verifyingContract", "type": "address"},
]
_TRANSACTION_MARK = "Transaction:"
_HEX = re.compile(r"^(0x)?[0-9a-fA-F]*$")


def sign_domain_name(primary_type: str) -> str:
    """'VenueTransaction:SendAsset' -> 'VenueSignTransaction' (the brand comes from the quote)."""
    prefix, mark, action = primary_type.partition(_TRANSACTION_MARK)
    if not mark or not prefix or not action:
        raise VenueDataError(
            f"primary type {primary_type!r} is not of the form '<Venue>Transaction:<Action>'",
            hint="the quote's deposit step is malformed; nothing was signed",
        )
    return f"{prefix}SignTransaction"


def signature_chain_id(chain_id: int) -> str:
    """The `signatureChainId` member: '0x' + the chain id in lowercase hex."""
    if isinstance(chain_id, bool) or not isinstance(chain_id, int) or chain_id <= 0:
        raise VenueDataError(f"chain id must be a positive integer, got {chain_id!r}")
    return hex(chain_id)


def _action_parts(action: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    action_type = action.get("type") if isinstance(action, dict) else None
    parameters = action.get("parameters") if isinstance(action, dict) else None
    if not isinstance(action_type, str) or not action_type:
        raise VenueDataError("the venue action has no 'type'")
    if not isinstance(parameters, dict):
        raise VenueDataError("the venue action has no 'parameters' object")
    clash = {"type", "signatureChainId"} & parameters.keys()
    if clash:
        raise VenueDataError(f"the venue action parameters must not contain {sorted(clash)}")
    return action_type, parameters


def signed_action(action: dict[str, Any], chain_id: int) -> dict[str, Any]:
    """The exact message that is signed, which is also the `action` POSTed to /exchange:
    all parameters, then `type`, then `signatureChainId`."""
    action_type, parameters = _action_parts(action)
    return {
        **copy.deepcopy(parameters),
        "type": action_type,
        "signatureChainId": signature_chain_id(chain_id),
    }


def build_send_asset_typed_data(
    action: dict[str, Any],
    eip712_types: dict[str, Any],
    primary_type: str,
    chain_id: int,
) -> dict[str, Any]:
    """Full EIP-712 typed data (domain, types, primaryType, message) for the deposit step.

    `chain_id` is the wallet's active chain id; it goes into both the domain and the message's
    `signatureChainId`, which must agree for the venue to accept the signature.
    """
    if not isinstance(eip712_types, dict) or primary_type not in eip712_types:
        raise VenueDataError(
            f"the step's eip712Types do not define its primary type {primary_type!r}"
        )
    message = signed_action(action, chain_id)
    fields = eip712_types[primary_type]
    if not isinstance(fields, list) or not all(
        isinstance(f, dict) and isinstance(f.get("name"), str) and isinstance(f.get("type"), str)
        for f in fields
    ):
        raise VenueDataError(f"eip712Types[{primary_type!r}] is not a list of {{name, type}}")
    missing = [f["name"] for f in fields if f["name"] not in message]
    if missing:
        raise VenueDataError(
            f"the venue action lacks the signed field(s) {missing}",
            hint="the quote's deposit step is malformed; nothing was signed",
        )
    types = {name: copy.deepcopy(value) for name, value in eip712_types.items()}
    # The domain type is fixed by the spec; one sent along in eip712Types is replaced, not merged.
    types["EIP712Domain"] = copy.deepcopy(EIP712_DOMAIN_TYPE)
    return {
        "domain": {
            "name": sign_domain_name(primary_type),
            "version": SIGN_DOMAIN_VERSION,
            "chainId": chain_id,
            "verifyingContract": ZERO_ADDRESS,
        },
        "types": types,
        "primaryType": primary_type,
        "message": message,
    }


def split_signature(signature: bytes | str) -> VenueSignature:
    """65 signature bytes (or their hex) -> `{r, s, v}` with v normalised to 27/28.

    Wallets differ: some return the recovery id (0/1) as the last byte, others 27/28; the venue
    wants 27/28 as a plain number. Anything else (e.g. an EIP-155 v) is refused.
    """
    if isinstance(signature, str):
        digits = signature.removeprefix("0x")
        if not _HEX.fullmatch(signature) or len(digits) % 2:
            raise VenueDataError("signature is not an even number of hex digits")
        raw = bytes.fromhex(digits)
    elif isinstance(signature, bytes | bytearray):
        raw = bytes(signature)
    else:
        raise VenueDataError(f"signature must be bytes or hex, got {type(signature).__name__}")
    if len(raw) != 65:
        raise VenueDataError(f"signature must be 65 bytes, got {len(raw)}")
    v = raw[64]
    if v in (0, 1):
        v += 27
    if v not in (27, 28):
        raise VenueDataError(f"signature recovery byte {raw[64]} is not 0, 1, 27 or 28")
    return VenueSignature(r="0x" + raw[:32].hex(), s="0x" + raw[32:64].hex(), v=v)
