"""A service whose GET /requests/v3 needs an API key and whose GET /requests/v2 is retired (the
public one since 2026-11-24; the world when started with `requests_v2=False`): without a key,
`crossdeck requests` is one clear error naming `crossdeck apikey set` (exit 6, a missing
secret), never an empty list; with a key, the listing is v3's as usual."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main

pytestmark = pytest.mark.usefixtures("cli_env")


@pytest.fixture(scope="module")
def v2_retired(start_world: Any) -> Iterator[Any]:
    with start_world("py-evm", requests_v2=False) as world:
        yield world


def _world_file(world: Any, tmp_path: Path, *, with_key: bool) -> Path:
    info = dict(world.info)
    if not with_key:
        info.pop("api_key")
    path = tmp_path / "world.json"
    path.write_text(json.dumps(info))
    return path


def _requests(world_file: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--world", str(world_file), *args, "requests"])


@pytest.mark.parametrize("json_mode", [False, True])
def test_no_key_is_one_error_naming_apikey_set(
    v2_retired: Any, tmp_path: Path, json_mode: bool
) -> None:
    result = _requests(
        _world_file(v2_retired, tmp_path, with_key=False), *(["--json"] if json_mode else [])
    )
    assert result.exit_code == ExitCode.NO_SECRET, result.output
    assert result.stdout == ""  # no empty listing, no half answer
    [line] = [x for x in result.stderr.splitlines() if x.strip()]
    assert "request history needs an API key" in line
    assert "HTTP 401" in line and "retired (HTTP 410)" in line
    assert "crossdeck apikey set" in line


def test_with_a_key_the_listing_is_v3s(v2_retired: Any, tmp_path: Path) -> None:
    result = _requests(_world_file(v2_retired, tmp_path, with_key=True), "--json")
    assert result.exit_code == 0, result.output
    assert "v2" not in result.stderr  # v3 answered: no fallback, nothing retired to mention


def test_a_key_the_service_does_not_know_says_so(v2_retired: Any, tmp_path: Path) -> None:
    info = dict(v2_retired.info)
    info["api_key"] = "not-a-key-the-world-knows"
    path = tmp_path / "world.json"
    path.write_text(json.dumps(info))
    result = _requests(path)
    assert result.exit_code == ExitCode.SERVICE_ERROR, result.output
    # the world refuses an unknown key on every path (401), v2's too: that is the error
    assert "unknown key" in result.stderr and "check the API key" in result.stderr
    assert result.stdout == ""
    assert "not-a-key-the-world-knows" not in result.output


async def test_the_history_screen_says_so_instead_of_an_empty_table(
    v2_retired: Any, tmp_path: Path
) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "tui"))
    from textual.widgets import DataTable, Static
    from tui_support import make_app, screen_text, wait_until

    from crossdeck.tui.services import Secrets

    app = make_app(
        v2_retired,
        tmp_path,
        start_mode="history",
        secrets=Secrets(None, v2_retired.wallet_address),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        status = app.screen.query_one("#history-status", Static)
        await wait_until(
            pilot, lambda: "No history" in str(status.render()), what="the status line's error"
        )
        text = " ".join(screen_text(app).split())
        assert "No history: it needs an API key for /requests/v3" in text, screen_text(app)
        assert "/requests/v2 is retired" in text
        assert "crossdeck apikey set" in text, screen_text(app)
        assert "No requests match" not in text and "Loading" not in str(status.render())
        assert app.screen.query_one(DataTable).row_count == 0
        await wait_until(  # the failed load's notification follows the status line
            pilot,
            lambda: any("apikey set" in (n.message or "") for n in app._notifications),
            what="the notification naming crossdeck apikey set",
        )
