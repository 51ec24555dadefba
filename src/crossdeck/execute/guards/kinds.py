"""The `step-kind` guard: only item shapes this client reads, in steps of a matching kind."""

from __future__ import annotations

from crossdeck.execute.guards.base import (
    _FOREIGN_ITEM_KEYS,
    GuardResult,
    _fail,
    _ok,
)
from crossdeck.models import (
    Step,
    StepItem,
    WireModel,
)

_KIND_WORDS = {
    "transaction": "an EVM transaction",
    "signature": "a signature",
    "venue_deposit": "a venue transfer",
    "solana": "a Solana transaction",
}

_STEP_KIND_FOR = {
    "transaction": "transaction",
    "venue_deposit": "transaction",
    "solana": "transaction",
    "bitcoin": "transaction",
}


def kind_guard(step: Step, item: StepItem, where: str) -> GuardResult:
    kind = item.kind_of_data
    if kind == "unknown":
        data = item.data.to_wire() if isinstance(item.data, WireModel) else item.data
        keys = list(data) if isinstance(data, dict) else []
        foreign = next((_FOREIGN_ITEM_KEYS[k] for k in keys if k in _FOREIGN_ITEM_KEYS), None)
        if foreign is not None:
            return _fail(
                "step-kind",
                f"the item's data is {foreign}: crossdeck signs EVM transactions and "
                "signatures, venue actions, Solana transactions and Bitcoin PSBTs, not this; "
                "send from one of those chains instead",
                where,
            )
        shown = ", ".join(keys[:6]) or type(data).__name__
        return _fail(
            "step-kind", f"item data of an unknown shape (keys: {shown}); refusing to guess", where
        )
    if step.kind not in ("transaction", "signature"):
        return _fail("step-kind", f"step kind {step.kind!r} is not transaction or signature", where)
    wanted = _STEP_KIND_FOR.get(kind, "signature")
    if step.kind != wanted:
        return _fail("step-kind", f"{kind} data inside a {step.kind!r} step", where)
    if kind == "signature":
        data = item.as_signature()
        sign = data.sign
        if sign is None or sign.signature_kind not in ("eip712", "eip191"):
            got = sign.signature_kind if sign else None
            return _fail("step-kind", f"signature kind {got!r} is not eip712 or eip191", where)
        if sign.signature_kind == "eip712" and not (
            sign.domain and sign.types and sign.primary_type and isinstance(sign.value, dict)
        ):
            return _fail(
                "step-kind", "eip712 data lacks domain, types, primaryType or value", where
            )
        if sign.signature_kind == "eip191" and not isinstance(sign.message, str):
            return _fail("step-kind", "eip191 data has no message text", where)
        if data.post is None or not data.post.endpoint:
            return _fail("step-kind", "the signature has no post endpoint to deliver it", where)
        if (data.post.method or "POST").upper() != "POST":
            return _fail("step-kind", f"post method {data.post.method!r} is not POST", where)
    if kind == "venue_deposit":
        data = item.as_venue_deposit()
        if data.action is None or data.action.type != "sendAsset":
            got = data.action.type if data.action else None
            return _fail("step-kind", f"venue action {got!r} is not sendAsset", where)
        if data.sign_domain_name is None:
            return _fail(
                "step-kind",
                f"eip712PrimaryType {data.eip712_primary_type!r} is not "
                "'<Venue>Transaction:<Action>'",
                where,
            )
        if not data.eip712_types or data.eip712_primary_type not in data.eip712_types:
            return _fail("step-kind", "eip712Types do not define the primary type", where)
    return _ok("step-kind", f"{_KIND_WORDS.get(kind, kind)}, a kind crossdeck checks", where)
