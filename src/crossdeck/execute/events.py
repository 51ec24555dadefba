"""What the executor reports, in order: typed, frozen, JSON-serialisable events.

The app renders them as a timeline and the CLI as lines or JSON lines (`to_json()`), each by a
`match` over `RunEvent`, the closed union of them all. No event
ever holds a secret: keys never leave the signer, and signatures and raw transactions stay in
the journal (events carry hashes and nonces only).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from crossdeck.base.exitcodes import ExitCode
from crossdeck.execute.describe import Line, label_width
from crossdeck.execute.guards import GuardResult
from crossdeck.execute.refund import RefundPaid
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.models.status import is_final

if TYPE_CHECKING:
    # (loaded by the run's end, `execute.came_back_at_end`: not before the first signature)
    from crossdeck.history.came_back import CameBack

SignKind = Literal["transaction", "typed_data", "message", "venue_action"]


def _plain(value: Any) -> Any:
    to_json = getattr(value, "to_json", None)
    if to_json is not None and dataclasses.is_dataclass(value):
        return to_json()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return "0x" + value.hex()
    return value


@dataclass(frozen=True)
class SignRequest:
    """Exactly what is about to be signed (or sent), in words and as data.

    `payload` is the transaction (chain, nonce, to, value, data, gas, fees) or the complete
    EIP-712 typed data (domain and every message field) or the EIP-191 message; `lines`
    says the same for a person; `guards` are the checks it passed.
    """

    kind: SignKind
    step_id: str | None
    item_index: int
    title: str
    lines: tuple[Line, ...]
    payload: dict[str, Any]
    guards: tuple[GuardResult, ...] = ()
    chain_id: int | None = None

    def describe(self) -> str:
        width = label_width(self.lines)
        body = (part for line in self.lines for part in line.text(width).splitlines())
        return "\n".join([self.title, *(f"  {part}" for part in body)])

    def to_json(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class Event:
    """One step of a run, as the CLI and the app show it (`to_json` for `--json`)."""

    def to_json(self) -> dict[str, Any]:
        data = {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"event": type(self).__name__, **data}


@dataclass(frozen=True)
class RunStarted(Event):
    """The run's checks passed; its steps begin."""

    request_id: str
    wallet: str
    steps: tuple[str, ...]
    resumed: bool = False


@dataclass(frozen=True)
class GuardsChecked(Event):
    """Every check made before the first signature, with its verdict."""

    results: tuple[GuardResult, ...]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)


@dataclass(frozen=True)
class StepStarted(Event):
    """A step's item begins."""

    step_id: str | None
    step_index: int
    item_index: int
    kind: str
    action: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class AwaitingConfirmation(Event):
    """A transaction is about to be signed and sent; `what` shows it."""

    what: SignRequest


@dataclass(frozen=True)
class AwaitingSignature(Event):
    """A message (typed data, personal message, venue action) is about to be signed."""

    what: SignRequest


@dataclass(frozen=True)
class Signed(Event):
    """An item was signed."""

    step_id: str | None
    item_index: int
    kind: SignKind


def is_svm_signature(text: str) -> bool:
    """Whether `text` is an SVM transaction signature (base58 of 64 bytes), the id of a
    transaction on any SVM chain (an EVM hash is 0x-hex, a Bitcoin txid 64 hex digits)."""
    from crossdeck.models.base58 import b58decode

    try:
        return len(b58decode(text)) == 64
    except ValueError:
        return False


@dataclass(frozen=True)
class TxSent(Event):
    """A transaction was broadcast."""

    hash: str
    chain_id: int
    nonce: int
    step_id: str | None = None
    item_index: int = 0

    def words(self) -> str:
        if is_svm_signature(self.hash):  # a signature, no nonce
            name = "Solana" if self.chain_id == SOLANA_CHAIN_ID else "SVM chain"
            return f"sent {self.hash} on {name} ({self.chain_id})"
        return f"sent {self.hash} on chain {self.chain_id} (nonce {self.nonce})"


@dataclass(frozen=True)
class TxConfirmed(Event):
    """A transaction was mined and succeeded."""

    hash: str
    chain_id: int
    block_number: int
    gas_used: int
    step_id: str | None = None
    item_index: int = 0

    def words(self) -> str:
        if is_svm_signature(self.hash):  # `block_number` is the slot; no gas
            return f"confirmed in slot {self.block_number}"
        return f"mined in block {self.block_number} (gas used {self.gas_used})"


@dataclass(frozen=True)
class Posted(Event):
    """A signature was posted. `appended_steps` are the ids of the steps its answer appended,
    `appended` those steps themselves (wire JSON, e.g. for `Step.from_wire`): the executor runs
    them on its own copy of the quote, so a view that shows the steps adds them from here."""

    endpoint: str
    step_id: str | None = None
    item_index: int = 0
    appended_steps: tuple[str, ...] = ()
    appended: tuple[dict[str, Any], ...] = field(default=(), hash=False)


@dataclass(frozen=True)
class VenueSubmitted(Event):
    """A venue action was submitted."""

    nonce: int
    step_id: str | None = None
    item_index: int = 0


@dataclass(frozen=True)
class ItemSkipped(Event):
    """Resume found this item already done (or its effect already on chain / at the venue)."""

    step_id: str | None
    item_index: int
    reason: str


@dataclass(frozen=True)
class Note(Event):
    """A fact worth showing that is not a step of its own (e.g. what resume found)."""

    message: str


@dataclass(frozen=True)
class StatusChanged(Event):
    """The request's status moved, and where the news came from."""

    status: str
    in_tx_hashes: tuple[str, ...] = ()
    tx_hashes: tuple[str, ...] = ()
    source: Literal["poll", "webhook", "socket"] = "poll"
    fail_reason: str | None = None
    refund_fail_reason: str | None = None
    updated_at_ms: int | None = None
    """When the service changed the status (its `updatedAt`): how old the news is."""


_STATUS_EXIT = {"success": ExitCode.OK, "refund": ExitCode.REFUNDED, "fallback": ExitCode.REFUNDED}


@dataclass(frozen=True)
class ChildRequest:
    """A request the service opened from this one (the refund of a deposit address's excess,
    a second deposit): `amount` in the smallest unit of what it carries, `amount_text` the
    same with its unit."""

    request_id: str
    kind: str
    status: str
    amount: int | None
    amount_text: str

    def words(self) -> str:
        kind = f" ({self.kind})" if self.kind != "child" else ""  # v3 records say no kind
        said = f"{self.request_id}{kind}: {self.amount_text}, {self.status}"
        if not is_final(self.status):  # the run ends before it does: say how to follow it
            said += f"; follow it with: crossdeck watch {self.request_id}"
        return said

    def to_json(self) -> dict[str, Any]:
        # the amount as a digit string, as the refund's beside it and the service's amounts
        # are: wei past 2**53 loses digits in a reader that parses JSON numbers as doubles
        data = dataclasses.asdict(self)
        data["amount"] = None if self.amount is None else str(self.amount)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChildRequest:
        amount = data.get("amount")
        return cls(**{**data, "amount": None if amount is None else int(amount)})


@dataclass(frozen=True)
class Finished(Event):
    """The request reached a final status. `children`: the requests it spawned (looked up at
    the end of a deposit-address run), `children_note` why they could not be."""

    request_id: str
    status: str
    fail_reason: str | None = None
    refund_fail_reason: str | None = None
    in_tx_hashes: tuple[str, ...] = ()
    tx_hashes: tuple[str, ...] = ()
    # what a refund paid back, read from its transaction (`crossdeck.execute.refund`)
    refund: RefundPaid | None = None
    children: tuple[ChildRequest, ...] = ()
    children_note: str | None = None
    # the final record's amounts, fees and explorer links (`execute.came_back_at_end`)
    came_back: CameBack | None = None

    @property
    def exit_code(self) -> ExitCode:
        return _STATUS_EXIT.get(self.status, ExitCode.FAILED)


@dataclass(frozen=True)
class Failed(Event):
    """Execution stopped: `error` says why in words; `error_type` is the error class."""

    error: str
    error_type: str
    exit_code: int
    request_id: str | None = None
    failures: tuple[GuardResult, ...] = field(default=())


RunEvent = (
    RunStarted
    | GuardsChecked
    | StepStarted
    | AwaitingConfirmation
    | AwaitingSignature
    | Signed
    | TxSent
    | TxConfirmed
    | Posted
    | VenueSubmitted
    | ItemSkipped
    | Note
    | StatusChanged
    | Finished
    | Failed
)
"""Every event a run reports: a closed union, so a consumer that dispatches with `match` and
ends in `assert_never` is checked (mypy) to handle each one; a new event fails that check
until every consumer shows it."""

FINAL_EVENTS = (Finished, Failed)


def exit_code_of(event: Event | None) -> ExitCode:
    """The exit code of a run from its last event."""
    if isinstance(event, Finished):
        return event.exit_code
    if isinstance(event, Failed):
        return ExitCode(event.exit_code)
    return ExitCode.ERROR
