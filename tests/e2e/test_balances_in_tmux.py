"""End to end (issue 35, "Done when"): `crossdeck demo` in a real terminal (tmux), driven by keys,
and after each step the balances Portfolio shows equal the chain's (eth_getBalance over the
world's RPC) and the venue's (the world's venue /info): at start, after a bridge run from the
keyboard (Base ETH -> the venue's perps USDC), after a live resize to 80x24 and after the resize
back. The world's URLs and the wallet are read off the Settings screen, as a user would.

Every wait is for text on the screen (or for the figures to agree), each bounded; no fixed
sleeps."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from test_demo_in_tmux import Tmux, demo_in_tmux

from crossdeck.models.display import shown_number

WIDE = (120, 36)
NARROW = (80, 24)
BASE = 8453
VENUE_USDC_DECIMALS = 8  # the venue's USDC as /chains lists it (its perps figure is in units)
ETH_ROW = f"Base ({BASE})"
PERPS_ROW = "Venue (1337) perps"


@dataclass(frozen=True)
class World:
    base_rpc: str
    venue: str
    wallet: str


def _post(url: str, body: dict[str, object]) -> object:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def chain_wei(world: World) -> int:
    """The wallet's ETH on Base, read from the chain itself."""
    answer = _post(
        world.base_rpc,
        {"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": [world.wallet, "latest"]},
    )
    assert isinstance(answer, dict), answer
    return int(answer["result"], 16)


def venue_perps_units(world: World) -> int:
    """The wallet's withdrawable perps USDC in smallest units, read from the venue's /info."""
    state = _post(f"{world.venue}/info", {"type": "clearinghouseState", "user": world.wallet})
    assert isinstance(state, dict), state
    return int(Decimal(state["withdrawable"]).scaleb(VENUE_USDC_DECIMALS))


def read_settings(tmux: Tmux) -> World:
    tmux.keys("F6")
    screen = tmux.wait_for("Wallet address")
    found = {
        name: re.search(pattern, screen)
        for name, pattern in (
            ("base_rpc", rf"RPC {BASE}\s+(http://127\.0\.0\.1:\d+)"),
            ("venue", r"Venue URL\s+(http://127\.0\.0\.1:\d+)"),
            ("wallet", r"Wallet address\s+(0x[0-9a-fA-F]{40})"),
        )
    }
    missing = [name for name, match in found.items() if match is None]
    assert not missing, (missing, screen)
    return World(**{name: match.group(1) for name, match in found.items() if match})


def _row(screen: str, label: str, symbol: str) -> str | None:
    """The row of `symbol` on `label` (Base holds USDC and ETH: each its own row)."""
    return next(
        (line for line in screen.splitlines() if label in line and f" {symbol}" in line), None
    )


def _shown(row: str, label: str, symbol: str) -> tuple[str | None, int | None]:
    """The amount a Portfolio row shows ('10,000 USDC'), and its exact integer when the row
    carries one (wide screens)."""
    rest = row.split(label, 1)[1]
    amount = re.search(rf"([0-9][0-9,.]*) {symbol}", rest)
    exact = re.search(rf"{symbol} \((\d+)\)", rest)
    return (amount.group(1) if amount else None, int(exact.group(1)) if exact else None)


def _agrees(screen: str, label: str, symbol: str, units: int, decimals: int) -> bool:
    row = _row(screen, label, symbol)
    if row is None:
        return False
    amount, exact = _shown(row, label, symbol)
    if exact is not None and exact != units:
        return False
    return amount == shown_number(Decimal(units).scaleb(-decimals))


def assert_portfolio_matches(tmux: Tmux, world: World, step: str, within: float = 60.0) -> None:
    """Portfolio (F7) shows the chain's ETH and the venue's perps USDC for the wallet, as the
    chain and the venue say them now; waits (bounded) for a refresh in flight to land."""
    tmux.keys("F7")
    tmux.wait_for("chains read", within=within)
    if "▸ USDC" in tmux.wait_for("asset / chain"):
        # USDC's rows per chain are folded: the cursor starts on it, enter opens them
        tmux.keys("Enter")
        tmux.wait_for("▾ USDC")
    deadline = time.monotonic() + within
    while True:
        screen = tmux.screen()
        wei, perps = chain_wei(world), venue_perps_units(world)
        header = screen.splitlines()[3] if len(screen.splitlines()) > 3 else ""
        whose = world.wallet[:6] in header and world.wallet[-4:] in header
        if (
            whose
            and _agrees(screen, ETH_ROW, "ETH", wei, 18)
            and _agrees(screen, PERPS_ROW, "USDC", perps, VENUE_USDC_DECIMALS)
        ):
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{step}: Portfolio disagrees with the chain ({wei} wei on Base) or the venue "
                f"({perps} perps USDC units) for {world.wallet}; the screen:\n{screen}"
            )
        time.sleep(0.3)


def bridge_into_the_venue(tmux: Tmux) -> None:
    """Base ETH -> the venue's perps USDC, 0.01 ETH, quoted, confirmed and run from the keys."""
    tmux.keys("F2")
    tmux.wait_for("USDC (perps)")
    tmux.keys("0.01")
    tmux.wait_for("= 10000000000000000 (18 decimals)")
    tmux.keys("C-r")
    tmux.wait_for("Quoted ")
    tmux.keys("C-g")
    tmux.wait_for("Sign (y)")
    tmux.keys("y")
    tmux.wait_for("SUCCESS", within=120)


def test_portfolio_agrees_with_chain_and_venue_after_each_step(tmp_path: Path) -> None:
    with demo_in_tmux(tmp_path, *WIDE) as tmux:
        tmux.wait_for("USDC (perps)", within=90)  # the world is up, /chains in the pickers
        world = read_settings(tmux)
        assert_portfolio_matches(tmux, world, "at start")
        wei_before, perps_before = chain_wei(world), venue_perps_units(world)

        bridge_into_the_venue(tmux)
        assert chain_wei(world) < wei_before - 10**16 + 1  # the run did move the ETH
        assert venue_perps_units(world) > perps_before  # and the venue credited USDC
        assert_portfolio_matches(tmux, world, "after the bridge")

        tmux.resize(*NARROW)
        tmux.wait_for("^r Refresh")  # Portfolio's footer, drawn again at 80 columns
        assert_portfolio_matches(tmux, world, "after the resize to 80x24")
        assert max(len(line) for line in tmux.screen().splitlines()) <= NARROW[0]

        tmux.resize(*WIDE)
        assert_portfolio_matches(tmux, world, "after the resize back to 120x36")
        tmux.keys("C-q")
