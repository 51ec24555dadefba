"""`message-signature`: a personal message (EIP-191) is signed only where the quote's own flow
calls for one, and no flow crossdeck runs does today.

A signed message moves nothing by itself, which is why it is dangerous to wave through: "log
in", "I agree" or a 32-byte hash can be replayed elsewhere as the user's consent (a session on
another site, an off-chain order, a claim), and nothing in the quote says what it will be used
for. The flows crossdeck executes (a deposit with its approve, a deposit address, a permit, a
venue withdrawal's NonceMapping and sendAsset) sign typed data only, each held field by field
(`typed.py`). A flow that needs a message gets an entry here, with the check that ties its text
to the request, when crossdeck learns to run it.

Checked over the whole quote, steps a POST answer appends included, so a message asked for
mid-run stops the run before the next item (a venue transfer, say) is signed.
"""

from __future__ import annotations

from crossdeck.execute.guards.base import GuardResult, _fail, _items, _where
from crossdeck.models import Quote
from crossdeck.models.text import short

NAME = "message-signature"
_SHOWN = 60  # characters of the message shown in the refusal


def message_guards(quote: Quote) -> list[GuardResult]:
    """A refusal per EIP-191 item (none when the quote asks for no message)."""
    flow = ", ".join(str(step.id) for step in quote.steps)
    results = []
    for _, step, index, item in _items(quote):
        if item.kind_of_data != "signature":
            continue
        sign = item.as_signature().sign
        if sign is None or sign.signature_kind != "eip191":
            continue
        text = sign.message if isinstance(sign.message, str) else ""
        if len(text) > _SHOWN:
            text = short(text) if text.startswith("0x") else text[: _SHOWN - 3] + "..."
        results.append(
            _fail(
                NAME,
                f"refusing to sign a personal message (EIP-191) {text!r}: no flow crossdeck "
                f"runs calls for one (this quote's steps: {flow}); a signed message can be "
                "replayed elsewhere as your consent",
                _where(step, index),
            )
        )
    return results
