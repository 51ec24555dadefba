"""Signatures in words: EIP-712 typed data (its domain and every field in the order of its type,
members the type does not list shown as not signed), EIP-191 messages, the POST that carries a
signature afterwards, and a quote's signature items."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crossdeck.execute.describe.currencies import Currencies
from crossdeck.execute.describe.lines import Line, json_inline, json_text
from crossdeck.models import SignatureData, StepItem
from crossdeck.models.display import Unit, units_text
from crossdeck.models.units import quantity

if TYPE_CHECKING:
    from crossdeck.execute.describe.family import ItemDescriber


def signature_title(primary_type: str | None, step_id: str | None) -> str:
    if primary_type:
        return f"Sign {primary_type} (step {step_id})"
    return f"Sign a personal message (step {step_id})"


def _field_types(typed: Mapping[str, Any]) -> list[tuple[str, str]]:
    fields = typed.get("types", {}).get(typed.get("primaryType"), [])
    return [(f.get("name", "?"), f.get("type", "?")) for f in fields if isinstance(f, dict)]


def typed_data_lines(typed: Mapping[str, Any], currencies: Currencies | None = None) -> list[Line]:
    """The domain as JSON and every message field (`message`, or the quote's `value`) as JSON,
    in the order of its type; members the type does not list are shown as not signed. With
    `currencies`, a token's own typed data (an EIP-3009 authorisation: the domain's
    verifyingContract is the token) says its `value` in the token's units too."""
    domain = typed.get("domain", {})
    message = typed.get("message", typed.get("value", {})) or {}
    lines = [
        Line("type", f"EIP-712 {typed.get('primaryType')}"),
        Line("domain", json_text(domain), raw=json_inline(domain), kind="json"),
    ]
    token = _domain_token(domain, currencies)
    listed = set()
    for name, kind in _field_types(typed):
        listed.add(name)
        shown = json_inline(message.get(name))
        amount = quantity(message.get(name)) if kind.startswith("uint") else None
        if token is not None and name in ("value", "amount") and amount is not None:
            text = f"{name} ({kind}) = {shown}: {units_text(amount, token)}"
            lines.append(Line("field", text, raw=shown, kind="amount"))
            continue
        lines.append(Line("field", f"{name} ({kind}) = {shown}", raw=shown, kind="json"))
    # members the type does not list are not signed, but they are sent: show them too
    for name, value in message.items():
        if name not in listed:
            shown = json_inline(value)
            lines.append(
                Line("extra", f"{name} = {shown} (not part of the signed type)", raw=shown)
            )
    return lines


def _domain_token(domain: Any, currencies: Currencies | None) -> Unit | None:
    if currencies is None or not isinstance(domain, Mapping):
        return None
    chain_id = quantity(domain.get("chainId"))
    contract = domain.get("verifyingContract")
    return currencies.token(chain_id, contract if isinstance(contract, str) else None)


def message_lines(message: str) -> list[Line]:
    raw = len(message) == 66 and message.startswith("0x")
    how = "as 32 raw bytes" if raw else "as text"
    return [
        Line("type", f"EIP-191 personal message, signed {how}"),
        Line("message", message, raw=message, kind="hash" if raw else "text"),
    ]


def post_lines(endpoint: str | None, body: Any, method: str | None = "POST") -> list[Line]:
    """The request that carries the signature afterwards, its body as JSON."""
    return [
        Line("then", f"{method or 'POST'} {endpoint} with this body:"),
        Line("body", json_text(body), raw=json_inline(body), kind="json"),
    ]


# -- a quote's signature items -------------------------------------------------------------------


def _signature_item_lines(data: SignatureData) -> list[Line]:
    sign, post = data.sign, data.post
    if sign is None:
        return [Line("sign", "nothing to sign (it will be refused)")]
    lines: list[Line] = []
    if sign.signature_kind == "eip712":
        domain = sign.domain or {}
        lines.append(
            Line(
                "sign",
                f"EIP-712 {sign.primary_type} in domain {domain.get('name', '?')} "
                f"(chain {domain.get('chainId', '?')}): {json_inline(sign.value or {})}",
                raw=json_inline(sign.value or {}),
                kind="json",
            )
        )
    else:
        lines.append(Line("sign", f"the message {json_inline(sign.message)} (EIP-191)"))
    if post is not None and post.endpoint:
        body = json_inline(post.body or {})
        lines.append(
            Line("then", f"{post.method or 'POST'} {post.endpoint} {body}", raw=body, kind="json")
        )
    return lines


def signature_item_lines(item: StepItem, currencies: Currencies, *, full: bool) -> list[Line]:
    return _signature_item_lines(item.as_signature())


ITEMS: dict[str, ItemDescriber] = {"signature": signature_item_lines}
