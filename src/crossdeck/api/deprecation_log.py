"""When a retiring endpoint's notice was last shown: once a day per endpoint is enough for a
person (scripts read it from `--json` on every answer). A small JSON file in the data
directory; a file that cannot be read or written shows the notice rather than hide it."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

from crossdeck.api.quote_api import Deprecation

NOTICE_FILE = "deprecation-notices.json"


def due_today(data_dir: Path, notice: Deprecation, today: date | None = None) -> bool:
    """Whether `notice` is to be shown now (not yet today), and remember that it was."""
    day = (today or datetime.now(UTC).date()).isoformat()
    path = data_dir / NOTICE_FILE
    try:
        shown = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        shown = {}
    if not isinstance(shown, dict):
        shown = {}
    if shown.get(notice.endpoint) == day:
        return False
    shown[notice.endpoint] = day
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(shown, sort_keys=True), encoding="utf-8")
    except OSError:
        pass  # shown every time then: better than never
    return True
