"""HTTP clients for the tests' own calls to servers on 127.0.0.1 (the world's RPC, service and
venue, a proxy's upstream).

An httpx client built with its defaults loads certifi's CA bundle (30-130 ms, more under load);
the suite builds thousands of them (each test's demo-wallet top-up, each proxy), so the tests'
clients take crossdeck's own TLS policy instead (`crossdeck.base.tls.client_context`): a plain
http:// URL gets a context that loads no CA and still verifies.
"""

from __future__ import annotations

import functools
import ssl

import httpx

from crossdeck.base.tls import client_context


def context(url: str) -> ssl.SSLContext:
    """The TLS context for a test client whose requests go to `url`."""
    return client_context(url)


@functools.cache
def http() -> httpx.Client:
    """One blocking client per process for plain calls to the loopback servers (its pool drops
    a connection a stopped server closed before reusing it)."""
    return httpx.Client(timeout=30, verify=client_context("http://127.0.0.1"))
