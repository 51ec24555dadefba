"""One story of which requests are unfinished, told from the journal and the tracking store.

The journal knows what this machine signed and sent; the tracking store (Live status,
`crossdeck watch`) knows the last status the service gave. `reconcile` makes them agree before
anything is listed or offered:

- a run that sent nothing (declined at its first confirmation, refused by a guard, stopped
  before its first signature) is not followed: it is dropped from the tracking store, so Live
  status and `crossdeck watch` forget it;
- a run whose request the tracker saw reach a final status is finished in the journal, so
  `resume --list` says what Live status says.

What is left (`Journal.unfinished`) is what `resume` continues and the app offers at start.
"""

from __future__ import annotations

from crossdeck.execute.journal import UNFINISHED, Journal, RunRecord
from crossdeck.track.store import StatusStore
from crossdeck.track.updates import normalise_request_id


def reconcile(journal: Journal, store: StatusStore) -> list[RunRecord]:
    """Bring the journal and the store into agreement; return the unfinished runs."""
    for run in journal.runs():
        rid = normalise_request_id(run.request_id)
        stored = store.get(rid)
        if stored is None:
            continue
        if not run.sent:
            # nothing left the machine: the service never heard of it (a run still at its
            # first confirmation elsewhere is followed again once it sends something)
            store.remove(rid)
        elif run.state in UNFINISHED and stored.final and stored.latest is not None:
            journal.finish(run.request_id, str(stored.latest.status))
    return journal.unfinished()
