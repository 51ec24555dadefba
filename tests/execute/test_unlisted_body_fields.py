"""`--extra` fields crossdeck does not list are sent as JSON with a note on stderr, not
refused (the service adds body fields faster than a client ships); the fields it lists keep
their checks. Against the world, through a proxy that records the body the service got."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import ETH, NATIVE, Cli, fund, new_address
from tampering_proxy import TamperingProxy

from crossdeck.base.exitcodes import ExitCode


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path)


@pytest.fixture
def proxy(world: Any) -> Iterator[TamperingProxy]:
    with TamperingProxy(world.service_url) as running:
        yield running


def _quote(*extra: str) -> list[str]:
    return [
        "quote",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", new_address(), *extra,
    ]  # fmt: skip


def test_unlisted_fields_are_sent_with_a_note(cli: Cli, proxy: TamperingProxy, world: Any) -> None:
    # funded: a quote whose checks fail (here the funds check) exits 7, and this test is
    # about a quote that passes them
    asyncio.run(fund(world, cli.address, native={8453: ETH // 4}))
    result = cli.invoke(
        *_quote(
            "--extra", "useReceiver=true",
            "--extra", "disableSwapProviderPreference=true",
            "--extra", 'someFutureField={"a": [1, "two"]}',
            "--extra", "useFallbacks=true",
        ),
        CROSSDECK_SERVICE__URL=proxy.url,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Quote for request 0x" in result.stdout
    for name in ("useReceiver", "disableSwapProviderPreference", "someFutureField"):
        assert f"note: --extra {name} is not a field crossdeck knows; sent as given" in (
            result.stderr
        )
    assert "useFallbacks" not in result.stderr  # a listed field: no note
    [body] = proxy.quote_bodies
    assert body["useReceiver"] is True and body["disableSwapProviderPreference"] is True
    assert body["someFutureField"] == {"a": [1, "two"]} and body["useFallbacks"] is True


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("useFallbacks=3", "useFallbacks"),  # a listed field keeps its type check
        ("slippageTolerance=20000", "slippageTolerance"),
        ("bad-name=1", "--extra 'bad-name' is not a field name"),
        ('topupGasAmount="5"', "topupGasAmount"),  # a listed rule: needs topupGas
    ],
)
def test_listed_fields_keep_their_checks(
    cli: Cli, proxy: TamperingProxy, extra: str, words: str
) -> None:
    result = cli.invoke(*_quote("--extra", extra), CROSSDECK_SERVICE__URL=proxy.url)
    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert words in result.stderr
    assert "sent as given" not in result.stderr  # no note on a field that is refused
    assert proxy.quote_bodies == []  # refused before anything was sent
