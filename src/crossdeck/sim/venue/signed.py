"""The venue's user-signed actions as it reads them: each action's EIP-712 fields (in the
`<Venue>SignTransaction` domain, primary type `<Venue>Transaction:<Action>`), the parse of an
`/exchange` body, and the recovery of its signer.

The field lists are the venue's (its Python SDK's `signing.py` names the same ones); the one
brand-bearing field, `<venue>Chain`, is the brand's. The nonce of `usdSend` and `spotSend` is
their `time` field; the others carry `nonce`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_account.messages import encode_typed_data

from crossdeck.sim.brand import Brand
from crossdeck.sim.venue.assets import ADDRESS_RE, VenueError

_ZERO_EVM_ADDRESS = "0x" + "0" * 40
_SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_HEX_RE = re.compile(r"^0x[0-9a-fA-F]{1,64}$")


@dataclass(frozen=True)
class ActionKind:
    wire: str  # the action's `type`
    title: str  # the primary type after '<Venue>Transaction:'
    fields: tuple[tuple[str, str], ...]  # after the '<venue>Chain' field
    nonce_field: str


ACTIONS: dict[str, ActionKind] = {
    k.wire: k
    for k in (
        ActionKind(
            "sendAsset",
            "SendAsset",
            (("destination", "string"), ("sourceDex", "string"), ("destinationDex", "string"),
             ("token", "string"), ("amount", "string"), ("fromSubAccount", "string"),
             ("nonce", "uint64")),
            "nonce",
        ),
        ActionKind(
            "usdClassTransfer",
            "UsdClassTransfer",
            (("amount", "string"), ("toPerp", "bool"), ("nonce", "uint64")),
            "nonce",
        ),
        ActionKind(
            "usdSend",
            "UsdSend",
            (("destination", "string"), ("amount", "string"), ("time", "uint64")),
            "time",
        ),
        ActionKind(
            "spotSend",
            "SpotSend",
            (("destination", "string"), ("token", "string"), ("amount", "string"),
             ("time", "uint64")),
            "time",
        ),
        ActionKind(
            "userSetAbstraction",
            "UserSetAbstraction",
            (("user", "address"), ("abstraction", "string"), ("nonce", "uint64")),
            "nonce",
        ),
    )
}  # fmt: skip


class Malformed(Exception):
    """The body does not deserialize: 422 with a plain-text reason."""


def action_fields(brand: Brand, kind: ActionKind) -> list[tuple[str, str]]:
    return [(brand.venue_chain_field, "string"), *kind.fields]


def send_asset_fields(brand: Brand) -> list[tuple[str, str]]:
    """The EIP-712 fields of `<Venue>Transaction:SendAsset`, in the spec's order."""
    return action_fields(brand, ACTIONS["sendAsset"])


def action_typed_data(
    brand: Brand, kind: ActionKind, action: dict[str, Any], chain_id: int
) -> dict[str, Any]:
    """The typed data the venue rebuilds from a posted action to recover its signer."""
    primary = f"{brand.venue_name}Transaction:{kind.title}"
    return {
        "domain": {
            "name": brand.sign_domain,
            "version": "1",
            "chainId": chain_id,
            "verifyingContract": _ZERO_EVM_ADDRESS,
        },
        "types": {
            primary: [{"name": n, "type": t} for n, t in action_fields(brand, kind)],
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
        },
        "primaryType": primary,
        "message": action,
    }


def send_asset_typed_data(brand: Brand, action: dict[str, Any], chain_id: int) -> dict[str, Any]:
    """Spec 4.4 'Building the deposit signature data', as the venue rebuilds it to verify."""
    return action_typed_data(brand, ACTIONS["sendAsset"], action, chain_id)


def _field(obj: dict[str, Any], name: str, kind: str, where: str) -> Any:
    if name not in obj:
        raise Malformed(f"{where}: missing field `{name}`")
    value = obj[name]
    if kind in ("uint64", "int"):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "object":
        ok = isinstance(value, dict)
    else:  # string, address
        ok = isinstance(value, str)
    if not ok:
        raise Malformed(f"{where}.{name}: expected {kind}, got {type(value).__name__}")
    if kind == "uint64" and not 0 <= value < 2**64:
        raise Malformed(f"{where}.{name}: expected an unsigned 64-bit integer")
    if kind == "address" and not ADDRESS_RE.fullmatch(value):
        raise Malformed(f"{where}.{name}: expected a 0x-prefixed 20-byte hex address")
    return value


def parse_exchange(
    body: Any, brand: Brand
) -> tuple[ActionKind, dict[str, Any], int, dict[str, Any]]:
    """(kind, action, nonce, signature) of an /exchange body, or Malformed saying why not."""
    if not isinstance(body, dict):
        raise Malformed("body: expected an object with action, nonce, signature")
    action = _field(body, "action", "object", "body")
    nonce = _field(body, "nonce", "uint64", "body")
    signature = _field(body, "signature", "object", "body")
    wire = _field(action, "type", "string", "action")
    kind = ACTIONS.get(wire)
    if kind is None:
        known = ", ".join(repr(k) for k in ACTIONS)
        raise Malformed(f"action.type: unknown variant {wire!r}, expected one of {known}")
    for optional in ("vaultAddress", "expiresAfter"):
        if body.get(optional) is not None:
            raise Malformed(f"body.{optional}: must be null or absent for {wire}")
    fields = action_fields(brand, kind)
    extra = sorted(set(action) - {"type", "signatureChainId"} - {n for n, _ in fields})
    if extra:
        raise Malformed(f"action: unknown field(s) {extra}")
    _field(action, "signatureChainId", "string", "action")
    for name, type_ in fields:
        _field(action, name, type_, "action")
    for name in ("r", "s"):
        _field(signature, name, "string", "signature")
    _field(signature, "v", "int", "signature")
    return kind, action, nonce, signature


def recover_signer(
    brand: Brand, kind: ActionKind, action: dict[str, Any], signature: dict[str, Any]
) -> tuple[str, int]:
    """(the lowercase signer, the signature chain id) of a posted action."""
    chain_text = action["signatureChainId"]
    if not _HEX_RE.fullmatch(chain_text):
        raise VenueError(f"Invalid signatureChainId {chain_text!r}: expected 0x-prefixed hex")
    chain_id = int(chain_text, 16)
    v, r_text, s_text = signature["v"], signature["r"], signature["s"]
    if v not in (27, 28):
        raise VenueError(f"Invalid signature: v must be the integer 27 or 28, got {v}")
    if not _HEX_RE.fullmatch(r_text) or not _HEX_RE.fullmatch(s_text):
        raise VenueError("Invalid signature: r and s must be 0x-prefixed hex of at most 32 bytes")
    r, s = int(r_text, 16), int(s_text, 16)
    # Low-s only (EIP-2): a wallet never produces the other half, so it means tampering.
    if not (0 < r < _SECP256K1_N and 0 < s <= _SECP256K1_N // 2):
        raise VenueError("Invalid signature: r or s out of range")
    try:
        typed = action_typed_data(brand, kind, action, chain_id)
        signer = Account.recover_message(encode_typed_data(full_message=typed), vrs=(v, r, s))
    except Exception as exc:  # eth_account raises several types for unrecoverable input
        raise VenueError(f"Invalid signature: {exc}") from None
    return signer.lower(), chain_id
