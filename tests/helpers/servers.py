"""Real HTTP servers for tests: always on the loopback interface."""

from __future__ import annotations

from aiohttp import web


async def start_app(app: web.Application, port: int = 0) -> tuple[web.AppRunner, str]:
    """Serve `app` on 127.0.0.1 (`port` 0: a free one); the runner (to clean up) and its URL."""
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}"
