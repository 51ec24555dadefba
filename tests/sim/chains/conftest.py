from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from crossdeck.sim.chains import BACKENDS, start_chain

from .helpers import DEMO, DEMO_NATIVE, DEMO_USDC, ChainKit


@pytest.fixture(scope="module")
def chain_id() -> int:
    """The chain id a module's chains run with; modules override it to cover 999 too."""
    return 8453


# The anvil half carries the suite-wide `anvil` marker, so `-m "not anvil"` leaves it out.
BACKEND_PARAMS = [
    pytest.param(backend, marks=[pytest.mark.anvil] if backend == "anvil" else [])
    for backend in BACKENDS
]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=BACKEND_PARAMS)
async def kit(request: pytest.FixtureRequest, chain_id: int) -> AsyncIterator[ChainKit]:
    """One chain per backend, shared by a module's tests (each test uses fresh accounts)."""
    node = await start_chain(
        chain_id, backend=request.param, funded={DEMO.address: (DEMO_NATIVE, DEMO_USDC)}
    )
    chain_kit = ChainKit.connect(node)
    try:
        yield chain_kit
    finally:
        await chain_kit.w3.provider.disconnect()
        await node.stop()
