"""The TLS context every HTTP client of crossdeck shares (service, venue, RPC nodes).

httpx builds a fresh context per client by default, loading the CA bundle each time (~40 ms);
a bridge makes three clients, so they share one, built on first use with httpx's own defaults
(certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when set).
"""

from __future__ import annotations

import functools
import ssl


@functools.cache
def client_context() -> ssl.SSLContext:
    import httpx

    return httpx.create_ssl_context()
