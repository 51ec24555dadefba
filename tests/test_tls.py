"""The TLS contexts of crossdeck's HTTP clients (crossdeck.base.tls)."""

from __future__ import annotations

import ssl

from crossdeck.api.client import ServiceClient
from crossdeck.base.tls import client_context
from crossdeck.venue.client import VenueClient
from crossdeck.wallet.gateway import EvmGateway


def test_https_clients_share_one_context_that_trusts_the_ca_bundle() -> None:
    first = client_context("https://api.example.invalid")
    assert client_context("HTTPS://rpc.example.invalid/v1/key") is first
    assert first.cert_store_stats()["x509_ca"] > 0
    assert first.verify_mode is ssl.CERT_REQUIRED and first.check_hostname


def test_an_http_client_loads_no_bundle_yet_verifies_whatever_it_would_ever_meet() -> None:
    plain = client_context("http://127.0.0.1:8080")
    assert plain is client_context("HTTP://localhost/")
    assert plain is not client_context("https://api.example.invalid")
    # no CA is trusted and verification stays on: any certificate it met would be refused
    assert plain.cert_store_stats()["x509_ca"] == 0
    assert plain.verify_mode is ssl.CERT_REQUIRED and plain.check_hostname


async def test_each_client_takes_the_context_of_its_own_url() -> None:
    def context_of(http: object) -> object:
        pool = http._transport._pool  # httpx's own transport and its connection pool
        return pool._ssl_context

    clients = [
        ServiceClient("http://127.0.0.1:9"),
        VenueClient("https://venue.example.invalid"),
        EvmGateway("http://127.0.0.1:9/rpc", 8453),
    ]
    try:
        contexts = [context_of(client._http) for client in clients]
    finally:
        for client in clients:
            await client.aclose()
    assert contexts == [
        client_context("http://127.0.0.1:9"),
        client_context("https://venue.example.invalid"),
        client_context("http://127.0.0.1:9/rpc"),
    ]
