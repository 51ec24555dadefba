"""`order-version`: the protocol order (`protocol.v2.orderData`) is of a version crossdeck can
read, or nothing is executed.

The order is what the depository and the solver settle by: who is paid on which chain, where a
refund goes, by when. The request guards read its recipients and refunds in the shape of the
version they know; an order of another version could carry the same fields with other meanings
(or the real ones elsewhere), so it is refused rather than read as if it were a known one.
"""

from __future__ import annotations

from crossdeck.execute.guards.base import GuardResult, _fail, _ok
from crossdeck.models import Quote

NAME = "order-version"
# versions of orderData whose fields the guards read (the public service's, and the world's)
KNOWN_ORDER_VERSIONS = ("v1",)


def order_version_guard(quote: Quote) -> list[GuardResult]:
    """One result when the quote carries a protocol order (none for older route forms, which
    other guards refuse for their lack of paymentDetails)."""
    v2 = quote.protocol.v2 if quote.protocol else None
    if v2 is None:
        return []
    order = v2.order_data
    known = " or ".join(repr(v) for v in KNOWN_ORDER_VERSIONS)
    if order is None:
        if v2.payment_details is None:
            return []
        return [
            _fail(
                NAME,
                "protocol.v2 has paymentDetails but no orderData: the order "
                "it pays into cannot be read",
            )
        ]
    if not isinstance(order, dict):
        return [_fail(NAME, f"orderData is a {type(order).__name__}, not an object")]
    version = order.get("version")
    if version not in KNOWN_ORDER_VERSIONS:
        return [
            _fail(
                NAME,
                f"orderData.version {version!r} is not {known}, the order versions crossdeck "
                "reads: refusing to execute an order it cannot read",
            )
        ]
    return [_ok(NAME, f"the protocol order is of version {version!r}, which crossdeck reads")]
