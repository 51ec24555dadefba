"""The transfer service of the demo world: the server side of service-api.md.

Written again from the spec and facts.md; imports nothing of the client side.

Composition (what the World does)::

    state = ServiceState(state_dir / "service.sqlite3")          # or ":memory:"
    state.register_api_key("demo", demo_key); state.register_api_key("other", other_key)
    directory = ChainDirectory([EvmChain(...8453...), EvmChain(...999..., native_symbol="HYPE")],
                               venue=VenueSide(solver_address=..., depository=..., balance=...))
    quotes = QuoteEngine(state, directory, brand)
    app = make_service_app(state, quotes, ServiceConfig(brand=brand))
    state.subscribe(lambda change: ...)   # webhooks: records.webhook_data(change.record)

The solver drives requests with ``state.advance(...)``, ``state.create_child(...)`` and the
lookups of ``ServiceState`` (see ``state`` for the transition table).

Demo triggers (usable from any client through ordinary quote options):

- ``referrer: "demo:fail"`` stores ``record.demo == "fail"``: the solver takes the deposit, moves
  the request to ``failure`` (failReason ``TRANSFER_FAILED`` unless one is given as
  ``"demo:fail:<REASON>"``, e.g. ``demo:fail:SLIPPAGE``), then after a settle to ``refund``
  (refunding the deposit to refundTo). ``demo_fail_reason(record)`` gives the reason.
- DOUBLE_SPEND: a second deposit carrying an orderId that already has a deposit is marked by the
  solver as a child request (kind ``duplicate``) in status ``refund`` with failReason
  ``DOUBLE_SPEND``, its funds returned to the parent's refund target.

Fault injection (``state.faults``, ``POST /_sim/faults``) is demo-only; see ``faults``.
"""

from __future__ import annotations

from crossdeck.sim.service.app import ServiceConfig, chains_payload, make_service_app
from crossdeck.sim.service.directory import (
    ChainDirectory,
    ChainReader,
    ChainUnavailable,
    EvmChain,
    StaticChainReader,
    VenueSide,
    Web3ChainReader,
)
from crossdeck.sim.service.faults import FaultInjector
from crossdeck.sim.service.fees import FeeConfig, FeeModel
from crossdeck.sim.service.quotes import QuoteEngine
from crossdeck.sim.service.records import status_v1, status_v3, webhook_data
from crossdeck.sim.service.state import (
    TRANSITIONS,
    InvalidTransition,
    RequestRecord,
    ServiceState,
    Status,
    StatusChange,
    Tx,
    UnknownRequest,
)

DEFAULT_DEMO_FAIL_REASON = "TRANSFER_FAILED"


def demo_fail_reason(record: RequestRecord) -> str | None:
    """The failReason a ``demo:fail[:REASON]`` request must fail with, or None."""
    if not record.demo or not (record.demo == "fail" or record.demo.startswith("fail:")):
        return None
    reason = record.demo.partition(":")[2].strip()
    return reason.upper() if reason else DEFAULT_DEMO_FAIL_REASON


__all__ = [
    "TRANSITIONS",
    "ChainDirectory",
    "ChainReader",
    "ChainUnavailable",
    "EvmChain",
    "FaultInjector",
    "FeeConfig",
    "FeeModel",
    "InvalidTransition",
    "QuoteEngine",
    "RequestRecord",
    "ServiceConfig",
    "ServiceState",
    "StaticChainReader",
    "Status",
    "StatusChange",
    "Tx",
    "UnknownRequest",
    "VenueSide",
    "Web3ChainReader",
    "chains_payload",
    "demo_fail_reason",
    "make_service_app",
    "status_v1",
    "status_v3",
    "webhook_data",
]
