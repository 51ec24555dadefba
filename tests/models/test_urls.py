"""`url_where`: what crossdeck shows of a URL keeps no key, wherever the key was put."""

from __future__ import annotations

import pytest

from crossdeck.models.urls import url_where


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://base-mainnet.example.com/v2/SECRETKEY", "https://base-mainnet.example.com"),
        ("https://rpc.example.com:8545/?apikey=SECRETKEY", "https://rpc.example.com:8545"),
        ("https://alice:SECRETKEY@rpc.example.com/", "https://rpc.example.com"),
        ("https://SECRETKEY@rpc.example.com:443#SECRETKEY", "https://rpc.example.com:443"),
        ("http://127.0.0.1:9", "http://127.0.0.1:9"),
        ("http://[::1]:8545/SECRETKEY", "http://[::1]:8545"),
    ],
)
def test_only_scheme_host_and_port_are_shown(url: str, shown: str) -> None:
    assert url_where(url) == shown
    assert "SECRETKEY" not in url_where(url)


@pytest.mark.parametrize(
    "url", ["SECRETKEY", "rpc.example.com/SECRETKEY", "http://host:SECRETKEY/", "http://[::1/x"]
)
def test_a_url_that_does_not_parse_is_never_echoed(url: str) -> None:
    assert url_where(url) == "(an unreadable URL)"
