"""After a restart, Live status lists what it was following (a request with no status seen
yet included, followed again) and what finished within the last day; older ones stay in the
store (History has them) but off the board."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tui_support import make_app, screen_text, wait_until

from crossdeck.track.store import StatusStore, StoredRequest
from crossdeck.track.updates import Source, StatusUpdate
from crossdeck.tui.live import shown_after_restart

DAY = 86_400


def _id(n: int) -> str:
    return "0x" + f"{n:02x}" * 32


def _final(rid: str, seconds_ago: float) -> StatusUpdate:
    at = time.time() - seconds_ago
    return StatusUpdate(rid, "success", int(at * 1000), Source.POLL, at, final=True)


def test_the_unfinished_and_the_last_days_finished_are_shown() -> None:
    now = time.time()
    followed = StoredRequest(_id(1), now - 3 * DAY, final=False, given_up=None, latest=None)
    recent = StoredRequest(_id(2), now - 3 * DAY, True, None, _final(_id(2), 3600))
    old = StoredRequest(_id(3), now - 3 * DAY, True, None, _final(_id(3), 2 * DAY))
    assert shown_after_restart([old, followed, recent], now) == [followed, recent]


async def test_a_restarted_app_lists_them_on_live_status(world: Any, tui_dir: Path) -> None:
    with StatusStore.in_data_dir(tui_dir / "data") as store:
        store.add(_id(1))  # followed, no status seen yet
        store.save(_final(_id(2), 3600))  # finished an hour ago
        store.save(_final(_id(3), 2 * DAY))  # finished two days ago
    app = make_app(world, tui_dir, start_mode="live")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot, lambda: {_id(1), _id(2)} <= set(app.live.requests), what="the board"
        )
        assert _id(3) not in app.live.requests
        assert app.live.requests[_id(2)].final
        # the board draws its rows after app.live has them: read it once it has (CI under load
        # read the frame before, with no rows yet)
        await wait_until(
            pilot, lambda: "success" in screen_text(app), what="the finished one on the board"
        )
