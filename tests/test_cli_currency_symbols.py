"""Currency symbols wherever a currency address is accepted, and `crossdeck chains` labelling
the venue's currencies, against the demo world on 127.0.0.1.

`quote` and `bridge` take `--origin-currency USDC` (any case), the native symbol (ETH, HYPE)
and on the venue `perps:USDC`, `spot:USDC`, `xyz:USDC`; each is resolved through the world's
/chains, asked once per command. An ambiguous symbol is refused with every candidate's address
and label, an unknown one with a pointer to `crossdeck chains <chain>`, both before any quote.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result

from crossdeck.api.client import ServiceClient
from crossdeck.cli import main

NATIVE = "0x" + "0" * 40
PERPS_USDC = "0x" + "0" * 32
SPOT_USDC = "0x6d1e7cde53ba9467b783cb7c530ce054"
XYZ_USDC = SPOT_USDC + b"xyz".hex()
INVALID_INPUT = 3
VENUE_KEYS = ("venueKind", "venueDex", "venueLabel")


class Calls:
    """How many times the CLI asked the service each of its questions (the real client's
    methods, wrapped to count; every answer is the world's)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count: dict[str, int] = {}
        for name in ("chains", "quote"):
            monkeypatch.setattr(ServiceClient, name, self._counted(name))

    def _counted(self, name: str) -> Callable[..., Any]:
        real = getattr(ServiceClient, name)

        async def counted(client: ServiceClient, *args: Any, **kwargs: Any) -> Any:
            self.count[name] = self.count.get(name, 0) + 1
            return await real(client, *args, **kwargs)

        return counted


@pytest.fixture
def home(world_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "config.toml").write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("CROSSDECK_DATA_DIR", str(tmp_path / "data"))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD", "CROSSDECK_SERVICE__URL"):
        monkeypatch.delenv(name, raising=False)
    yield world_file


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    return Calls(monkeypatch)


def crossdeck(world_file: Path, *args: str, input: str | None = None) -> Result:
    runner = CliRunner()
    return runner.invoke(main, ["--world", str(world_file), *args], input=input)


def quote(origin: tuple[int, str], destination: tuple[int, str], *extra: str) -> list[str]:
    return [
        "quote",
        "--origin-chain", str(origin[0]), "--origin-currency", origin[1],
        "--destination-chain", str(destination[0]), "--destination-currency", destination[1],
        *extra,
    ]  # fmt: skip


def currencies_of(answer: dict[str, Any]) -> tuple[str, str]:
    details = answer["details"]
    return (
        details["currencyIn"]["currency"]["address"],
        details["currencyOut"]["currency"]["address"],
    )


# -- symbols resolve ---------------------------------------------------------------------------


def test_symbols_resolve_through_chains_asked_once(home: Path, calls: Calls, world: Any) -> None:
    usdc = world.chains[8453].usdc
    result = crossdeck(home, *quote((8453, "usdc"), (1337, "perps:USDC"), "--amount-human", "10"))
    assert result.exit_code == 0, result.output
    assert f"--origin-currency usdc is USDC {usdc} on chain 8453" in result.stderr
    assert f"--destination-currency perps:USDC is USDC {PERPS_USDC} on chain 1337" in result.stderr
    assert "Quote for request 0x" in result.stdout
    # the guards `quote` shows use the same answer: one /chains for the whole command
    assert calls.count == {"chains": 1, "quote": 1}

    as_json = crossdeck(
        home, "--json", *quote((8453, "USDC"), (1337, "xyz:usdc"), "--amount-human", "10")
    )
    assert as_json.exit_code == 0, as_json.output
    assert currencies_of(json.loads(as_json.stdout)) == (usdc, XYZ_USDC)
    assert json.loads(as_json.stdout)["details"]["currencyIn"]["amount"] == "10000000"


def test_native_symbols_and_venue_spot_symbols(home: Path, calls: Calls) -> None:
    result = crossdeck(
        home, "--json", *quote((8453, "ETH"), (999, "hype"), "--amount-human", "0.01")
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert currencies_of(answer) == (NATIVE, NATIVE)
    assert answer["details"]["currencyIn"]["amount"] == str(10**16)
    assert calls.count["chains"] == 1

    # USDe is listed once on the venue (spot): the bare symbol is enough
    result = crossdeck(
        home, "--json", *quote((1337, "USDE"), (8453, "USDC"), "--amount-human", "10")
    )
    assert result.exit_code == 0, result.output
    assert currencies_of(json.loads(result.stdout))[0] == "0x22e9417ea9e6367dee20b2b9b56adc9e"


def test_addresses_still_ask_no_chains_for_the_currencies(home: Path, calls: Calls) -> None:
    wei = str(10**16)
    result = crossdeck(home, "--json", *quote((8453, NATIVE), (999, NATIVE), "--amount", wei))
    assert result.exit_code == 0, result.output
    # --json shows no guards and the currencies need no /chains; the one read names the origin
    # gas fee's currency, which a /quote/v3 answer (the world's, with its API key) leaves out
    assert calls.count == {"quote": 1, "chains": 1}


# -- refused ---------------------------------------------------------------------------------


def test_an_ambiguous_symbol_is_refused_with_the_candidates(home: Path, calls: Calls) -> None:
    result = crossdeck(home, *quote((8453, "USDC"), (1337, "USDC"), "--amount", "10"))
    assert result.exit_code == INVALID_INPUT, result.output
    message = result.stderr
    assert "--destination-currency: 'USDC' names 3 currencies on chain 1337 (Venue)" in message
    assert f"{PERPS_USDC} (USDC, perps)" in message
    assert f"{SPOT_USDC} (USDC, spot)" in message
    assert f"{XYZ_USDC} (USDC, HIP-3 xyz)" in message
    assert "perps:USDC, spot:USDC, xyz:USDC" in message
    assert "Traceback" not in result.output
    assert calls.count == {"chains": 1}  # no quote was asked for


@pytest.mark.parametrize(
    ("origin", "destination", "option", "pointer"),
    [
        ((8453, "DOGE"), (999, "HYPE"), "--origin-currency", "chain 8453 (Base) has no currency"),
        ((8453, "ETH"), (1337, "BTC"), "--destination-currency", "chain 1337 (Venue)"),
        ((8453, "ETH"), (1337, "spot:USDH"), None, None),  # a right place passes
        ((8453, "ETH"), (1337, "perps:USDH"), "--destination-currency", "no currency"),
        ((8453, "ETH"), (999, "0xBTC"), "--destination-currency", "'0xBTC'"),
    ],
)
def test_an_unknown_symbol_points_at_crossdeck_chains(
    home: Path,
    calls: Calls,
    origin: tuple[int, str],
    destination: tuple[int, str],
    option: str | None,
    pointer: str | None,
) -> None:
    result = crossdeck(home, *quote(origin, destination, "--amount-human", "0.01"))
    if option is None:
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == INVALID_INPUT, result.output
    chain = (origin if option == "--origin-currency" else destination)[0]
    assert f"error: {option}: " in result.stderr and str(pointer) in result.stderr
    assert f"`crossdeck chains {chain}` lists its currencies" in result.stderr
    assert "quote" not in calls.count


def test_a_chain_the_service_does_not_list(home: Path, calls: Calls) -> None:
    result = crossdeck(home, *quote((42, "ETH"), (999, "HYPE"), "--amount", "1"))
    assert result.exit_code == INVALID_INPUT, result.output
    assert "--origin-currency 'ETH': the service lists no chain 42" in result.stderr
    assert "`crossdeck chains` lists the chains" in result.stderr


def test_other_fields_are_refused_before_chains_is_asked(home: Path, calls: Calls) -> None:
    result = crossdeck(
        home, *quote((8453, "ETH"), (999, "USDC"), "--amount", "1", "--recipient", "0x12")
    )
    assert result.exit_code == INVALID_INPUT, result.output
    assert calls.count == {}
    # the stand-ins never refuse what the symbols' currencies pass: a deposit address needs
    # a native origin, a gas topup a destination that is not native
    for extra in (["--use-deposit-address"], ["--topup-gas"]):
        result = crossdeck(
            home, "--json", *quote((8453, "ETH"), (999, "USDC"), "--amount-human", "0.01", *extra)
        )
        assert result.exit_code == 0, result.output


# -- bridge ----------------------------------------------------------------------------------


def test_bridge_takes_symbols_and_asks_chains_once(home: Path, calls: Calls) -> None:
    result = crossdeck(
        home,
        "bridge",
        "--origin-chain", "8453", "--origin-currency", "ETH",
        "--destination-chain", "999", "--destination-currency", "HYPE",
        "--amount-human", "0.001",
        input="n\n",
    )  # fmt: skip
    assert result.exit_code == 11, result.output  # declined at the prompt: nothing signed
    assert "--origin-currency ETH is ETH" in result.stderr
    assert "Execute this quote?" in result.output
    # the symbols, the decimals and the guards shown before asking share one /chains
    assert calls.count == {"chains": 1, "quote": 1}

    ambiguous = crossdeck(
        home,
        "bridge",
        "--origin-chain", "1337", "--origin-currency", "USDC",
        "--destination-chain", "8453", "--destination-currency", "USDC",
        "--amount", "1", "--yes",
    )  # fmt: skip
    assert ambiguous.exit_code == INVALID_INPUT, ambiguous.output
    assert "--origin-currency: 'USDC' names 3 currencies on chain 1337" in ambiguous.stderr


# -- crossdeck chains ------------------------------------------------------------------------


def test_chains_labels_the_venue_currencies(home: Path) -> None:
    result = crossdeck(home, "chains")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    venue = lines[lines.index("1337  Venue") + 1 :]
    venue = venue[: next((i for i, line in enumerate(venue) if not line.startswith(" ")), None)]
    labelled = {line.split()[1]: line.split(maxsplit=4)[4] for line in venue}
    assert labelled[PERPS_USDC] == "perps        as perps:USDC"
    assert labelled[SPOT_USDC] == "spot         as spot:USDC"
    assert labelled[XYZ_USDC] == "HIP-3 xyz    as xyz:USDC"
    assert labelled["0x22e9417ea9e6367dee20b2b9b56adc9e"] == "spot         as spot:USDe"
    # EVM chains' lines carry no venue label
    base = lines[lines.index("8453  Base") + 1 : lines.index("8453  Base") + 3]
    assert all(line.endswith("decimals") for line in base), base

    only = crossdeck(home, "chains", "venue")
    assert only.exit_code == 0, only.output
    assert only.stdout.splitlines()[0] == "1337  Venue" and "8453" not in only.stdout


def test_chains_json_adds_the_labels_to_the_service_answer(home: Path, world: Any) -> None:
    result = crossdeck(home, "chains", "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    answer = httpx.get(f"{world.service_url}/chains", timeout=30).json()
    places = {PERPS_USDC: ("perps", "", "perps"), SPOT_USDC: ("spot", "spot", "spot")}
    places[XYZ_USDC] = ("hip3", "xyz", "HIP-3 xyz")
    seen = 0
    for chain in printed["chains"]:
        for name in ("currency", "erc20Currencies", "solverCurrencies", "featuredTokens"):
            listed = chain.get(name)
            for currency in listed if isinstance(listed, list) else [listed]:
                label = tuple(currency.pop(k, None) for k in VENUE_KEYS)
                if chain["id"] != 1337:
                    assert label == (None, None, None)
                    continue
                seen += 1
                assert label == places.get(currency["address"], ("spot", "spot", "spot"))
    assert seen >= 15  # five currencies in each of the venue's lists
    assert printed == answer  # the service's answer is otherwise whole


def test_chains_of_an_unknown_chain(home: Path) -> None:
    result = crossdeck(home, "chains", "zora")
    assert result.exit_code == INVALID_INPUT, result.output
    assert "the service lists no chain 'zora'" in result.stderr
    assert "8453 (base)" in result.stderr and "1337 (venue)" in result.stderr
