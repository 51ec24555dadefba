"""The venue's user-signed actions a trader makes on their own account, built as EIP-712 typed
data in the venue's manner (its Python SDK's `signing.py` names the same fields): domain
`<Venue>SignTransaction` version 1 with the zero verifying contract, primary type
`<Venue>Transaction:<Action>`, the message all the action's fields plus `type` and
`signatureChainId`, which is also what is posted to `/exchange`.

- `usdClassTransfer`: USDC between perps and spot of a standard account (`toPerp`); from a sub
  account the amount carries ` subaccount:<address>`, as the SDK writes it;
- `sendAsset`: USDC between any two books (perps '', 'spot', a HIP-3 DEX), to oneself, out of a
  sub account (`fromSubAccount`) or, asked explicitly, to another address;
- `usdSend` (perps USDC) and `spotSend` (spot USDC) to another address.

`plan` picks the action for what the user asked (`TransferRequest`); `typed_data` builds it. The
guards (`crossdeck.execute.venue_actions`) hold the typed data to the request again, field by
field, from the request alone.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from crossdeck.base.errors import InputError
from crossdeck.models.chains import ZERO_ADDRESS
from crossdeck.venue.account import PERPS, SPOT, dex_of, format_usdc
from crossdeck.venue.currencies import SPOT_USDC_TOKEN_ID, token_string
from crossdeck.venue.signing import EIP712_DOMAIN_TYPE, SIGN_DOMAIN_VERSION, signature_chain_id

VENUE_NETWORK = "Mainnet"
# Any chain id is accepted when the domain and signatureChainId agree (facts.md); crossdeck signs
# with Arbitrum One's, the chain the public venue's own app signs with on mainnet.
SIGNATURE_CHAIN_ID = 42161
USDC_TOKEN = token_string("USDC", SPOT_USDC_TOKEN_ID)
SUB_ACCOUNT_MARK = " subaccount:"

# each action's fields after the '<venue>Chain' field, in the venue's order, and its nonce field
ACTION_FIELDS: dict[str, tuple[str, tuple[tuple[str, str], ...], str]] = {
    "usdClassTransfer": (
        "UsdClassTransfer",
        (("amount", "string"), ("toPerp", "bool"), ("nonce", "uint64")),
        "nonce",
    ),
    "sendAsset": (
        "SendAsset",
        (("destination", "string"), ("sourceDex", "string"), ("destinationDex", "string"),
         ("token", "string"), ("amount", "string"), ("fromSubAccount", "string"),
         ("nonce", "uint64")),
        "nonce",
    ),
    "usdSend": (
        "UsdSend", (("destination", "string"), ("amount", "string"), ("time", "uint64")), "time"
    ),
    "spotSend": (
        "SpotSend",
        (("destination", "string"), ("token", "string"), ("amount", "string"),
         ("time", "uint64")),
        "time",
    ),
}  # fmt: skip


def chain_field(venue_name: str) -> str:
    """'Hyperliquid' -> 'hyperliquidChain': the one brand-bearing field of every action."""
    return venue_name[:1].lower() + venue_name[1:] + "Chain"


@dataclass(frozen=True)
class TransferRequest:
    """What the user asked: `amount` USDC (smallest units, 8 decimals) from book `source` to
    book `destination` ('perps', 'spot' or a HIP-3 DEX), of `user`'s account or of its sub
    account `from_sub_account`, and to `to_address` only when another account is asked for."""

    user: str
    source: str
    destination: str
    amount: int
    unified: bool = False
    to_address: str | None = None
    from_sub_account: str | None = None

    @property
    def leaves_account(self) -> bool:
        return self.to_address is not None and self.to_address.lower() != self.user.lower()

    @property
    def receiver(self) -> str:
        return (self.to_address or self.user).lower()


@dataclass(frozen=True)
class VenueAction:
    wire: str  # the action's `type`
    parameters: dict[str, Any]  # the signed fields but the '<venue>Chain' one
    nonce: int


def plan(request: TransferRequest, nonce: int | None = None) -> VenueAction:
    """The action that does what `request` asks (see the module docstring)."""
    if request.amount <= 0:
        raise InputError("the amount to move must be more than 0")
    if request.unified and not request.leaves_account and not request.from_sub_account:
        raise InputError(
            "in a unified (or portfolio-margin) account perps, spot and the HIP-3 books share "
            "one USDC balance: there is nothing to move between them",
            hint="withdraw from spot, or send to another address with --to-address",
        )
    nonce = nonce if nonce is not None else time.time_ns() // 1_000_000
    amount = format_usdc(request.amount)
    sub = request.from_sub_account.lower() if request.from_sub_account else ""
    if request.leaves_account:
        receiver = request.receiver
        if not sub and request.source == request.destination == PERPS:
            return VenueAction(
                "usdSend", {"destination": receiver, "amount": amount, "time": nonce}, nonce
            )
        if not sub and request.source == request.destination == SPOT:
            params = {"destination": receiver, "token": USDC_TOKEN, "amount": amount, "time": nonce}
            return VenueAction("spotSend", params, nonce)
    elif request.source == request.destination:
        raise InputError(
            f"from and to are the same book ({request.source}): nothing to move",
            hint="name another book, or another account to send to",
        )
    books = {request.source, request.destination}
    if not request.leaves_account and books == {PERPS, SPOT} and not request.unified:
        text = amount + (f"{SUB_ACCOUNT_MARK}{sub}" if sub else "")
        to_perp = request.destination == PERPS
        return VenueAction(
            "usdClassTransfer", {"amount": text, "toPerp": to_perp, "nonce": nonce}, nonce
        )
    params = {
        "destination": request.receiver,
        "sourceDex": dex_of(request.source),
        "destinationDex": dex_of(request.destination),
        "token": USDC_TOKEN,
        "amount": amount,
        "fromSubAccount": sub,
        "nonce": nonce,
    }
    return VenueAction("sendAsset", params, nonce)


def typed_data(
    action: VenueAction, venue_name: str, chain_id: int = SIGNATURE_CHAIN_ID
) -> dict[str, Any]:
    """The full EIP-712 typed data of `action` for the venue named `venue_name`."""
    title, fields, _ = ACTION_FIELDS[action.wire]
    primary = f"{venue_name}Transaction:{title}"
    message = {
        chain_field(venue_name): VENUE_NETWORK,
        **action.parameters,
        "type": action.wire,
        "signatureChainId": signature_chain_id(chain_id),
    }
    return {
        "domain": {
            "name": f"{venue_name}SignTransaction",
            "version": SIGN_DOMAIN_VERSION,
            "chainId": chain_id,
            "verifyingContract": ZERO_ADDRESS,
        },
        "types": {
            primary: [{"name": chain_field(venue_name), "type": "string"}]
            + [{"name": n, "type": t} for n, t in fields],
            "EIP712Domain": [dict(f) for f in EIP712_DOMAIN_TYPE],
        },
        "primaryType": primary,
        "message": message,
    }


def build(request: TransferRequest, venue_name: str) -> tuple[VenueAction, dict[str, Any]]:
    """The action for `request` and its typed data: the one builder the CLI and the app use."""
    action = plan(request)
    return action, typed_data(action, venue_name)
