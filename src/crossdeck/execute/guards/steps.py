"""The steps a route needs, and no others.

One payment per quote (a deposit transaction, a transfer to the deposit address, a venue
transfer, an EIP-3009 permit, or a self-executed swap's call of the service's router); at most
one approve, and only for an ERC-20 payment made by a depository or router call (two only in
the zero-reset form of a self-executed swap, `self_executed.zero_reset_approve`); an authorize
only beside a venue transfer. A second deposit, or a step of a kind the route has no use for, is
refused: each is a chance to sign something the user did not ask for. Personal messages
(EIP-191) move nothing and are left to the per-item guards.
"""

from __future__ import annotations

from collections import Counter

from crossdeck.execute.guards.base import (
    NONCE_MAPPING,
    GuardResult,
    _fail,
    _items,
    _ok,
    _same_address,
)
from crossdeck.execute.guards.calldata import CalldataError, decode_call
from crossdeck.execute.guards.self_executed import (
    input_token,
    is_self_executed,
    zero_reset_approve,
)
from crossdeck.models import NATIVE_ADDRESS, Quote, StepItem


def _role(item: StepItem, self_executed: bool) -> str:
    """What the item does in the route. `self_executed`: the quote is a self-executed swap,
    whose one transaction that is not an approve is the swap through the service's router."""
    kind = item.kind_of_data
    if kind == "venue_deposit":
        return "venue transfer"
    if kind in ("solana", "bitcoin"):
        return "deposit"  # one transaction holding the deposit (`guards.solana`, `.bitcoin`)
    if kind == "signature":
        sign = item.as_signature().sign
        if sign is None or sign.signature_kind != "eip712":
            return "message"
        return "authorize" if sign.primary_type == NONCE_MAPPING else "permit"
    if kind == "transaction":
        paying = "swap through the service's router" if self_executed else "deposit"
        try:
            call = decode_call(item.as_transaction().data)
        except CalldataError:
            return paying  # the per-item guards name what is wrong with it
        return "approve" if call is not None and call.name == "approve" else paying
    return "unknown"


def steps_guard(quote: Quote) -> GuardResult:
    if not quote.steps:
        return _fail("steps", "the quote has no steps: there is nothing crossdeck could execute")
    self_executed = is_self_executed(quote)
    roles = Counter(_role(item, self_executed) for _, _, _, item in _items(quote))
    swaps = roles["swap through the service's router"]
    payments = roles["deposit"] + roles["venue transfer"] + roles["permit"] + swaps
    payment = quote.payment_details
    erc20 = (
        payment is not None
        and payment.currency is not None
        and not _same_address(payment.currency, NATIVE_ADDRESS)
    ) or (self_executed and input_token(quote) is not None)
    approves_allowed = 2 if self_executed and zero_reset_approve(quote) else 1
    problems = []
    if payments != 1:
        problems.append(
            f"{payments} payments (deposits, venue transfers, permits, router swaps) instead of one"
        )
    if roles["approve"] > approves_allowed or (roles["approve"] and not erc20):
        problems.append(
            f"{roles['approve']} approve(s) for a {'token' if erc20 else 'native'} payment"
        )
    if roles["approve"] and roles["permit"]:
        problems.append("an approve beside a permit, which needs none")
    if roles["authorize"] > 1 or (roles["authorize"] and not roles["venue transfer"]):
        problems.append(f"{roles['authorize']} authorize(s) without one venue transfer to tie")
    if problems:
        return _fail(
            "steps",
            "the quote asks for steps this transfer does not need: " + "; ".join(problems),
        )
    shown = ", ".join(f"{n} {role}" for role, n in sorted(roles.items()))
    return _ok("steps", f"the steps this transfer needs and no others ({shown})")
