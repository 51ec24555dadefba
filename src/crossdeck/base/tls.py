"""The TLS contexts of crossdeck's HTTP clients (service, venue, RPC nodes).

httpx builds a fresh context per client by default, loading the CA bundle each time (~20-40 ms);
a bridge makes three clients, so those of https URLs share one, built on first use with httpx's
own defaults (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when set). A client of an
http:// URL (the demo world on loopback) makes no TLS connection, so it does not pay for the
bundle: its context trusts no CA and still verifies, so a request it were ever made to send to
an https URL fails verification instead of going unchecked.
"""

from __future__ import annotations

import functools
import ssl
from urllib.parse import urlsplit


def client_context(url: str) -> ssl.SSLContext:
    """The context for a client whose requests go to `url`."""
    return _no_ca_context() if urlsplit(url).scheme.lower() == "http" else _verifying_context()


@functools.cache
def _verifying_context() -> ssl.SSLContext:
    import httpx

    return httpx.create_ssl_context()


@functools.cache
def _no_ca_context() -> ssl.SSLContext:
    # PROTOCOL_TLS_CLIENT verifies certificates and host names; with no CA loaded none passes
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
