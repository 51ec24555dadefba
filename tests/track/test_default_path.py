"""One default webhook path: `webhook serve`, `watch --webhooks`, the app, the world's sender.

`watch --webhooks` once listened on /webhooks/crossdeck while `webhook serve` listened on
/webhooks, so a sender configured for one lost every delivery to the other, silently.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from track_support import API_KEY

from crossdeck.cli.commands.webhook import serve
from crossdeck.config import WebhookSettings
from crossdeck.sim import webhooks as sim_webhooks
from crossdeck.sim.webhooks import WebhookSender, build_status_payload
from crossdeck.track.receiver import WebhookReceiver
from crossdeck.track.webhook_defaults import DEFAULT_WEBHOOK_PATH


def _payload(request_id: str) -> dict[str, object]:
    return build_status_payload(
        request_id=request_id, status="pending", origin_chain_id=8453, destination_chain_id=1337
    )


def test_every_receiver_and_the_world_share_the_default() -> None:
    # the world keeps its own literal (it never imports the client); this is what ties them
    assert sim_webhooks.DEFAULT_WEBHOOK_PATH == DEFAULT_WEBHOOK_PATH
    assert WebhookSettings().path == DEFAULT_WEBHOOK_PATH  # watch --webhooks and the app
    assert WebhookReceiver(API_KEY).path == DEFAULT_WEBHOOK_PATH
    (path_option,) = [p for p in serve.params if p.name == "path"]
    assert path_option.default == DEFAULT_WEBHOOK_PATH


async def test_a_world_endpoint_without_a_path_reaches_a_default_receiver() -> None:
    async with WebhookReceiver(API_KEY) as rx:
        bare = f"http://127.0.0.1:{rx.port}"
        async with WebhookSender({API_KEY: bare}, max_retries=0) as sender:
            sender.enqueue(API_KEY, _payload("0xdefault-path"))
            await asyncio.wait_for(sender.wait_idle(), timeout=10)
        assert [(d.outcome, d.url) for d in sender.deliveries] == [("delivered", rx.url)]
        item = await asyncio.wait_for(rx.next_event(), timeout=5)
        assert item.event.data is not None and item.event.data.request_id == "0xdefault-path"


async def test_a_delivery_to_an_unknown_path_is_logged_with_its_status(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with WebhookReceiver(API_KEY) as rx:
        wrong = f"http://127.0.0.1:{rx.port}/webhooks"
        caplog.set_level(logging.WARNING, logger="crossdeck.sim.webhooks")
        async with WebhookSender({API_KEY: wrong}, max_retries=1, base_delay=0) as sender:
            sender.enqueue(API_KEY, _payload("0xlost"))
            await asyncio.wait_for(sender.wait_idle(), timeout=10)
        assert [d.http_status for d in sender.deliveries] == [404, 404]
        assert [d.outcome for d in sender.deliveries] == ["retrying", "gave_up"]
        lines = [r.getMessage() for r in caplog.records if r.name == "crossdeck.sim.webhooks"]
        answered = [line for line in lines if "answered HTTP 404" in line]
        assert len(answered) == 2, lines
        assert wrong in answered[0] and DEFAULT_WEBHOOK_PATH in answered[0]
        assert API_KEY not in "\n".join(lines)
        assert rx.stats.accepted == 0
