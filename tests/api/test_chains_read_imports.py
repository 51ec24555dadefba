"""The app's first read, /chains, builds only the chains' models (issue 28 point 9): the ~60
pydantic classes of quotes, steps, statuses and request history are imported by the methods
that read them, and the venue's currency labels (drawn while the pickers fill) do not import the
venue client. Run in a fresh interpreter against the demo world: this process has them all."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

_READ_CHAINS = """
import asyncio, json, sys
from crossdeck.api.client import ServiceClient
from crossdeck.tui.describe import venue_kind

async def main():
    async with ServiceClient(sys.argv[1]) as client:
        chains = await client.chains()
    venue = chains.venue
    kinds = sorted({venue_kind(c) for c in venue.currencies}) if venue else []
    loaded = sorted(
        m for m in sys.modules if m.startswith(("crossdeck.models.", "crossdeck.venue."))
    )
    print(json.dumps({"chains": len(chains.chains), "kinds": kinds, "loaded": loaded}))

asyncio.run(main())
"""

# what the quote, its steps, statuses and request history need; none of it reads /chains
NOT_FOR_CHAINS = {
    "crossdeck.models.quote",
    "crossdeck.models.quote_request",
    "crossdeck.models.steps",
    "crossdeck.models.solana",
    "crossdeck.models.status",
    "crossdeck.models.requests",
    "crossdeck.models.requests_query",
    "crossdeck.models.requests_v3",
    "crossdeck.models.venue",
    "crossdeck.venue.client",
    "crossdeck.venue.signing",
}


def test_reading_chains_builds_only_the_chains_models(world: Any) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _READ_CHAINS, world.info["service_url"]],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    answer = json.loads(done.stdout)
    assert answer["chains"] > 1
    assert "perps" in answer["kinds"]  # the venue's currencies were read and labelled
    loaded = set(answer["loaded"])
    assert "crossdeck.models.chains" in loaded
    assert loaded & NOT_FOR_CHAINS == set()
