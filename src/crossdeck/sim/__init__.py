"""crossdeck.sim: the demo world, the server side of the contract (never imports the client).

``from crossdeck.sim import World`` (see ``crossdeck.sim.world``). The export is lazy so that
importing one part (the venue, the chains) does not start up every other part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crossdeck.sim.world import World

__all__ = ["World"]


def __getattr__(name: str) -> Any:
    if name == "World":
        from crossdeck.sim.world import World

        return World
    raise AttributeError(f"module 'crossdeck.sim' has no attribute {name!r}")
