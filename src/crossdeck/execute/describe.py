"""Exactly what will be signed, in words: every field, nothing summarised away.

Typed data shows its domain and every message field in the order of its type; a transaction
shows chain, nonce, from, to, value, the whole calldata and the fees.
"""

from __future__ import annotations

from typing import Any

from crossdeck.models import PaymentDetails, format_units

NATIVE_DECIMALS = 18
_SELECTORS = {
    "0x095ea7b3": "approve(address spender, uint256 amount)",
    "0xa9059cbb": "transfer(address to, uint256 amount)",
}


def _native(value: int) -> str:
    return f"{format_units(value, NATIVE_DECIMALS)} native ({value} wei)"


def _gwei(value: int) -> str:
    return f"{format_units(value, 9)} gwei"


def transaction_lines(
    tx: dict[str, Any],
    *,
    sender: str,
    payment: PaymentDetails | None = None,
    deposit_address: dict[str, Any] | None = None,
) -> list[str]:
    """`tx` is the unsigned transaction: chainId, nonce, to, value, data, gas, fees."""
    to = str(tx.get("to"))
    data = str(tx.get("data") or "0x")
    role = ""
    if payment is not None and payment.depository and to.lower() == payment.depository.lower():
        role = " (the deposit address)" if deposit_address else " (the depository)"
    elif payment is not None and payment.currency and to.lower() == payment.currency.lower():
        role = " (the payment token)"
    lines = [
        f"chain     {tx['chainId']}",
        f"from      {sender}",
        f"to        {to}{role}",
        f"value     {_native(int(tx.get('value') or 0))}",
    ]
    size = max(len(data) - 2, 0) // 2
    if size == 0:
        lines.append("data      none (a plain transfer)")
    else:
        selector = data[:10].lower()
        known = _SELECTORS.get(selector)
        call = f", {known}" if known else ""
        lines.append(f"data      {size} bytes, selector {selector}{call}")
        lines.append(f"          {data}")
        if known and selector == "0x095ea7b3" and len(data) >= 138:
            spender = "0x" + data[34:74]
            amount = int(data[74:138], 16)
            lines.append(f"          approves {spender} to take {amount} (smallest unit)")
    lines += [
        f"nonce     {tx['nonce']}",
        f"gas       {tx['gas']}",
        f"max fee   {_gwei(int(tx['maxFeePerGas']))} per gas "
        f"(tip {_gwei(int(tx['maxPriorityFeePerGas']))})",
    ]
    if deposit_address:
        lines.append(
            f"deposit address {to}: {deposit_address.get('type', 'open')}, refunds go to "
            f"{deposit_address.get('refund_to') or 'the sender'}"
        )
        quoted = deposit_address.get("quoted_amount")
        if quoted is not None and quoted != int(tx.get("value") or 0):
            lines.append(
                f"NOTE: sending {_native(int(tx.get('value') or 0))} where the quote says "
                f"{_native(int(quoted))}"
            )
    return lines


def _field_types(typed: dict[str, Any]) -> list[tuple[str, str]]:
    fields = typed.get("types", {}).get(typed.get("primaryType"), [])
    return [(f.get("name", "?"), f.get("type", "?")) for f in fields if isinstance(f, dict)]


def typed_data_lines(typed: dict[str, Any]) -> list[str]:
    """Domain and every message field (`message`, or the quote's `value`)."""
    domain = typed.get("domain", {})
    message = typed.get("message", typed.get("value", {})) or {}
    lines = [f"type      EIP-712 {typed.get('primaryType')}"]
    lines += [f"domain    {key} = {value}" for key, value in domain.items()]
    listed = set()
    for name, kind in _field_types(typed):
        listed.add(name)
        lines.append(f"field     {name} ({kind}) = {message.get(name)!r}")
    # members the type does not list are not signed, but they are sent: show them too
    for name, value in message.items():
        if name not in listed:
            lines.append(f"extra     {name} = {value!r} (not part of the signed type)")
    return lines


def message_lines(message: str) -> list[str]:
    raw = len(message) == 66 and message.startswith("0x")
    how = "as 32 raw bytes" if raw else "as text"
    return [f"type      EIP-191 personal message, signed {how}", f"message   {message}"]
