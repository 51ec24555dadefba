"""The app on a quote API that is retiring: a /quote/v2 answer's sunset date and successor show
in the Quote screen's status line; a /quote/v3 answer leaves it empty."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input
from tui_support import chains_loaded, make_app, wait_until, world_settings


@pytest.mark.parametrize("api", ["v2", "v3"])
async def test_the_status_line_says_when_v2_ends(world: Any, tui_dir: Path, api: str) -> None:
    settings = world_settings(world, tui_dir)
    settings = dataclasses.replace(
        settings, service=dataclasses.replace(settings.service, quote_api=api)
    )
    app = make_app(world, tui_dir, settings=settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await pilot.click("#amount")
        field = app.screen.query_one("#amount", Input)
        field.value = ""
        await pilot.press(*"0.01")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
        await pilot.pause()
        said = str(app.screen.query_one("#quote-status").render())
    if api == "v2":
        assert "POST /quote/v2 is deprecated and retired on 2027-02-23" in said, said
        assert "/quote/v3" in said
    else:
        assert "deprecated" not in said, said
