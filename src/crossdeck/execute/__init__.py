"""crossdeck.execute: run a quote's steps to a final status, with pre-sign guards and a journal
that makes an interrupted run resumable without sending anything twice.

Heavy imports (eth-account through the signer) happen when `Executor` is first used, so
importing this package for its events or guards stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crossdeck.execute.errors import (
    AlreadyStarted,
    Declined,
    ExecutionError,
    NonceTakenError,
    NothingToResume,
    TrackingTimeout,
)
from crossdeck.execute.events import (
    AwaitingConfirmation,
    AwaitingSignature,
    Event,
    Failed,
    Finished,
    GuardsChecked,
    ItemSkipped,
    Note,
    Posted,
    RunStarted,
    Signed,
    SignRequest,
    StatusChanged,
    StepStarted,
    TxConfirmed,
    TxSent,
    VenueSubmitted,
    exit_code_of,
)
from crossdeck.execute.guards import GuardRefused, GuardResult, check_item, check_quote
from crossdeck.execute.journal import Journal

if TYPE_CHECKING:
    from crossdeck.execute.executor import Collaborators, Executor, RunOptions, approve_all


def __getattr__(name: str) -> Any:
    if name in ("Collaborators", "Executor", "RunOptions", "approve_all"):
        from crossdeck.execute import executor

        return getattr(executor, name)
    raise AttributeError(name)


__all__ = [
    "AlreadyStarted",
    "AwaitingConfirmation",
    "AwaitingSignature",
    "Collaborators",
    "Declined",
    "Event",
    "ExecutionError",
    "Executor",
    "Failed",
    "Finished",
    "GuardRefused",
    "GuardResult",
    "GuardsChecked",
    "ItemSkipped",
    "Journal",
    "NonceTakenError",
    "Note",
    "NothingToResume",
    "Posted",
    "RunOptions",
    "RunStarted",
    "SignRequest",
    "Signed",
    "StatusChanged",
    "StepStarted",
    "TrackingTimeout",
    "TxConfirmed",
    "TxSent",
    "VenueSubmitted",
    "approve_all",
    "check_item",
    "check_quote",
    "exit_code_of",
]
