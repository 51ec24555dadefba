"""A webhook receiver for the by-hand tests: a real HTTP server on 127.0.0.1 port 0.

It checks every delivery's HMAC with the `hmac` module exactly as section 6.3 says (HMAC-SHA256
over '<timestamp>.<body>' with the API key as secret, equal length first, then a constant-time
compare) and answers 401 to a delivery that does not verify. Accepted deliveries and rejected ones
are both kept so a test can assert that nothing was rejected.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from helpers.webhook_signing import signature_ok


@dataclass
class Delivery:
    path: str
    headers: dict[str, str]
    body: bytes
    payload: dict[str, Any]


@dataclass
class WebhookReceiver:
    """One receiver serves every API key: the path names the key (`/hooks/<api key name>`)."""

    secrets: dict[str, str]
    accepted: list[Delivery] = field(default_factory=list)
    rejected: list[Delivery] = field(default_factory=list)
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                name = self.path.rsplit("/", 1)[-1]
                secret = receiver.secrets.get(name)
                ts = self.headers.get("X-Signature-Timestamp", "")
                sig = self.headers.get("X-Signature-SHA256", "")
                try:
                    payload = json.loads(body)
                except ValueError:
                    payload = {}
                delivery = Delivery(self.path, dict(self.headers.items()), body, payload)
                ok = secret is not None and signature_ok(secret, ts, body, sig)
                with receiver._cond:
                    (receiver.accepted if ok else receiver.rejected).append(delivery)
                    receiver._cond.notify_all()
                self.send_response(200 if ok else 401)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/hooks/{name}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def statuses(self, request_id: str) -> list[str]:
        with self._cond:
            return [
                d.payload["data"]["status"]
                for d in self.accepted
                if d.payload.get("data", {}).get("requestId") == request_id
            ]

    def deliveries(self, request_id: str) -> list[Delivery]:
        with self._cond:
            return [
                d for d in self.accepted if d.payload.get("data", {}).get("requestId") == request_id
            ]

    def wait_for(self, request_id: str, status: str, timeout: float = 30.0) -> list[str]:
        """Block until a delivery with `status` for the request arrives; return all its statuses."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                seen = [
                    d.payload["data"]["status"]
                    for d in self.accepted
                    if d.payload.get("data", {}).get("requestId") == request_id
                ]
                if status in seen:
                    return seen
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"no {status!r} webhook for {request_id} within {timeout}s; saw {seen}"
                    )
                self._cond.wait(left)
