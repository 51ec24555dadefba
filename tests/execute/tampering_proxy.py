"""A service in the middle that alters quotes: what a hostile service (or a proxy between the
wallet and an honest one) can do to a user, one tampering at a time.

It forwards every request to the world's real service unchanged, except that a successful
`POST /quote/v2` answer goes through `tamper` (a function that edits the quote's JSON in place)
before the client sees it; a `POST /quote/v3` answer too, seen as a v2 one (`v3_view`). It runs
in a thread of its own (a threading HTTP server on 127.0.0.1, port 0), so a CLI run in this
process, with its own event loop, can go through it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from v3_view import tamper_v3

from helpers.loopback import context

Tamper = Callable[[dict[str, Any]], None]
_FORWARDED_HEADERS = ("x-api-key", "authorization", "content-type")
_QUOTES = ("/quote/v2", "/quote/v3")
# serve_forever looks for shutdown() this often (its default, 0.5 s, was half a second of
# every test's teardown)
_QUICK_SHUTDOWN = {"poll_interval": 0.02}


class TamperingProxy:
    def __init__(self, upstream: str, *, api: str = "v3") -> None:
        self.upstream = upstream.rstrip("/")
        self.api = api  # the quote API the test asks the CLI to use (its quote_api setting)
        self.tamper: Tamper | None = None
        self.tampered = 0  # quotes altered so far
        self.quote_bodies: list[Any] = []  # each quote body, as the client sent it
        self.quote_paths: list[str] = []  # the quote endpoint of each
        self._http = httpx.Client(timeout=30, verify=context(self.upstream))
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                proxy._forward(self, "GET")

            def do_POST(self) -> None:
                proxy._forward(self, "POST")

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the test's output is the CLI's

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        host, port = self._server.server_address[:2]
        self.url = f"http://{host}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs=_QUICK_SHUTDOWN, daemon=True
        )

    def __enter__(self) -> TamperingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()

    def _forward(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else None
        headers = {k: v for k, v in handler.headers.items() if k.lower() in _FORWARDED_HEADERS}
        answer = self._http.request(
            method, self.upstream + handler.path, content=body, headers=headers
        )
        content = answer.content
        path = handler.path.split("?")[0]
        if path in _QUOTES and method == "POST" and body:
            self.quote_bodies.append(json.loads(body))
            self.quote_paths.append(path)
        if path in _QUOTES and answer.status_code == 200 and self.tamper is not None:
            quote = answer.json()
            if path == "/quote/v3":
                quote = tamper_v3(quote, self.tamper)
            else:
                self.tamper(quote)
            self.tampered += 1
            content = json.dumps(quote).encode()
        handler.send_response(answer.status_code)
        handler.send_header("content-type", answer.headers.get("content-type", "application/json"))
        handler.send_header("content-length", str(len(content)))
        handler.end_headers()
        handler.wfile.write(content)


class LyingSolanaNode:
    """A Solana JSON-RPC node that is the attacker's: it forwards every call to the world's
    node, except that every `simulateTransaction` answers success (with a reassuring log),
    whatever the transaction would do. A guard that leaned on the simulation would pass."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.simulations = 0  # simulateTransaction calls answered with a lie
        self.sent = 0  # sendTransaction calls (none may come from a refused run)
        self._http = httpx.Client(timeout=30, verify=context(upstream))
        node = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if body.get("method") == "simulateTransaction":
                    node.simulations += 1
                    value = {"err": None, "logs": ["Program log: looks fine"], "accounts": None,
                             "unitsConsumed": 1000}  # fmt: skip
                    answer = {"jsonrpc": "2.0", "id": body.get("id"),
                              "result": {"context": {"slot": 1}, "value": value}}  # fmt: skip
                    content = json.dumps(answer).encode()
                else:
                    if body.get("method") == "sendTransaction":
                        node.sent += 1
                    content = node._http.post(node.upstream, json=body).content
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        host, port = self._server.server_address[:2]
        self.url = f"http://{host}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs=_QUICK_SHUTDOWN, daemon=True
        )

    def __enter__(self) -> LyingSolanaNode:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()
