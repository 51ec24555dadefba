"""End to end (issue 35, "Done when"): `crossdeck demo` in a real terminal (tmux), driven by keys
and clicks, and after each step every balance the app shows — the Quote form's balance beside the
amount, Portfolio's rows, the Venue screen's books — equals what the world says now (the chains'
JSON-RPC and the venue's /info, read by `world_truth` without crossdeck's code), for the wallet
the app says it shows. The steps: the start; a bridge run from the keyboard (Base ETH -> the
venue's perps USDC); the signer switched in Settings to a read-only address and then to a Foundry
keystore (two other wallets, each funded by the harness with amounts of its own), and back to the
world's key; a venue withdrawal run from the Venue screen; a live resize to 80x24 and back.

Every key is sent only once the screen shows the state it is meant for (the screen it goes to,
a text field focused, a list opened, a value typed, the line about the cursor's row changed);
every wait is for what the screen or the world says, each bounded; no fixed sleeps."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest
from eth_account import Account
from test_demo_in_tmux import Tmux, demo_in_tmux
from world_truth import BASE, HYPEREVM, World

from crossdeck.models.display import shown_number

# a long scripted session: each wait has its own limit, this one only stops a hung run
pytestmark = pytest.mark.timeout(1200)

WIDE = (120, 36)
NARROW = (80, 24)
SETTLE = 90.0  # how long a screen may take to catch up with the world (a limit under load)
Holdings = dict[tuple[str, str], tuple[int, int]]


def short(address: str) -> str:
    return f"{address[:6]}…{address[-4:]}"


def _amount(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def _as_shown(text: str, units: int, decimals: int) -> bool:
    """`text` is the amount as a wallet shows it (`shown_number`) or exactly."""
    value = Decimal(units).scaleb(-decimals)
    return text == shown_number(value) or _amount(text) == value


# -- reading the screens ------------------------------------------------------------------------


@dataclass(frozen=True)
class Started:
    world: World
    wallet: str  # the world's demo wallet
    key: str  # its key, from the world file (a publicly known test key)


def read_settings(tmux: Tmux) -> Started:
    """The world's URLs, the wallet and the world file, off the Settings screen (F6)."""
    tmux.keys("F6")
    screen = tmux.wait_for("Wallet address")
    found = {
        name: re.search(pattern, screen)
        for name, pattern in (
            ("service", r"Service URL\s+(http://127\.0\.0\.1:\d+)"),
            ("venue", r"Venue URL\s+(http://127\.0\.0\.1:\d+)"),
            ("base", rf"RPC {BASE}\s+(http://127\.0\.0\.1:\d+)"),
            ("hyperevm", rf"RPC {HYPEREVM}\s+(http://127\.0\.0\.1:\d+)"),
            ("wallet", r"Wallet address\s+(0x[0-9a-fA-F]{40})"),
            ("file", r"Demo world\s+(\S+\.json)"),
        )
    }
    missing = [name for name, match in found.items() if match is None]
    assert not missing, (missing, screen)
    said = {name: match.group(1) for name, match in found.items() if match}
    world = World(said["service"], said["venue"], {BASE: said["base"], HYPEREVM: said["hyperevm"]})
    key = json.loads(Path(said["file"]).read_text())["wallet"]["private_key"]
    assert Account.from_key(key).address == said["wallet"]
    return Started(world, said["wallet"], key)


def _row(screen: str, place: str, symbol: str) -> str | None:
    """Portfolio's row of `symbol` on `place` (Base holds USDC and ETH: each its own row)."""
    return next(
        (line for line in screen.splitlines() if place in line and f" {symbol}" in line), None
    )


def _portfolio_problems(screen: str, wallet: str, truth: Holdings, narrow: bool) -> list[str]:
    lines = screen.splitlines()
    header = next((line for line in lines if "chains read" in line), "")
    problems = [] if short(wallet) in header else [f"the header names another wallet: {header}"]
    for (place, symbol), (units, decimals) in truth.items():
        row = _row(screen, place, symbol)
        if row is None:
            # a row may be scrolled off a short pane, and an empty holding may have none; the
            # two the steps move are always on screen
            must = units != 0 and (not narrow or (place, symbol) in KEPT_IN_VIEW)
            if must:
                problems.append(f"no row for {symbol} on {place} ({units})")
            continue
        rest = row.split(place, 1)[1]
        amount = re.search(rf"([0-9][0-9,.]*) {symbol}\b", rest)
        exact = re.search(rf"{symbol} \((\d+)\)", rest)
        if exact is not None and int(exact.group(1)) != units:
            problems.append(f"{symbol} on {place}: exact {exact.group(1)} != {units}")
        if amount is None or amount.group(1) != shown_number(Decimal(units).scaleb(-decimals)):
            problems.append(f"{symbol} on {place}: {row.strip()!r} is not {units}")
    return problems


KEPT_IN_VIEW = {("Base (8453)", "ETH"), ("Venue (1337) perps", "USDC")}


def _venue_problems(screen: str, wallet: str, truth: Holdings) -> list[str]:
    named = re.search(r"venue account\s+(0x[0-9a-fA-F]{40})", screen)
    if named is None or named.group(1) != wallet:
        return [f"the Venue screen is not about {wallet}: {named and named.group(1)}"]
    problems = []
    perps, _ = truth[("Venue (1337) perps", "USDC")]
    spot, _ = truth[("Venue (1337) spot", "USDC")]
    for what, pattern, units in (
        ("perps", r"│\s+perps\s+([0-9][0-9,.]*) USDC", perps),
        ("spot", r"│\s+spot\s+([0-9][0-9,.]*) USDC", spot),
        ("withdrawable", r"withdrawable\s+([0-9][0-9,.]*) USDC", perps),
    ):
        shown = re.search(pattern, screen)
        if shown is None:
            if units:
                problems.append(f"no {what} line ({units} units)")
        elif not _as_shown(shown.group(1), units, 8):
            problems.append(f"{what} shows {shown.group(1)} USDC, the venue {units} units")
    return problems


QUOTE_ORIGINS = {  # the From line's chain and currency -> the holding its balance is of
    ("Base (8453)", "ETH"): ("Base (8453)", "ETH"),
    ("Venue (1337)", "USDC (perps)"): ("Venue (1337) perps", "USDC"),
}


def _quote_problems(screen: str, wallet: str, truth: Holdings) -> list[str]:
    title = screen.splitlines()[0] if screen else ""
    if short(wallet) not in title:
        return [f"the title bar names another wallet: {title.strip()}"]
    origin = re.search(r"From\s+(.+?)\s+▾\s+(.+?)…?\s+▾", screen)
    balance = re.search(r"balance ([0-9][0-9,.]*) (\S+)", screen)
    if origin is None or balance is None:
        return ["no From line or no balance beside the amount"]
    chain, currency = origin.group(1).strip(), origin.group(2).strip()
    held = next(
        (
            held
            for (c, cur), held in QUOTE_ORIGINS.items()
            if c == chain and currency.startswith(cur)
        ),
        None,
    )
    assert held is not None, f"the test knows no balance for From {chain} {currency}"
    units, decimals = truth[held]
    if not _as_shown(balance.group(1), units, decimals):
        return [f"beside the amount: balance {balance.group(1)}, the world {units} units"]
    return []


def _until_agreed(
    tmux: Tmux,
    world: World,
    wallet: str,
    where: str,
    problems: Callable[[str, Holdings], list[str]],
) -> None:
    """Wait (bounded) until the screen agrees with the world as the world is now."""
    deadline = time.monotonic() + SETTLE
    while True:
        screen = tmux.screen()
        found = problems(screen, world.holdings(wallet))
        if not found:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{where}: {'; '.join(found)}; the screen:\n{screen}")
        time.sleep(0.3)


ASSET_ROW = re.compile(r"(\S+) on \d+ chains?[^:]*: enter (shows|hides) its row per chain")


def _under_table(screen: str) -> list[str]:
    """The Portfolio pane's last lines: the line about the row under the cursor."""
    return screen.splitlines()[-6:-1]


def open_every_asset(tmux: Tmux) -> None:
    """Open every asset's rows per chain on Portfolio (ETH and USDC are folded: each on several
    chains): from the top, one row at a time, each key sent once the line about the cursor's
    row has changed."""
    tmux.keys("Home")
    screen = tmux.wait_until(ASSET_ROW.search, "the cursor on the first asset")
    for _ in range(60):
        if not FOLDED.search(screen):
            return
        about = ASSET_ROW.search(screen)
        if about is not None and about.group(2) == "shows":
            tmux.keys("Enter")
            screen = tmux.wait_for(f"▾ {about.group(1)}")
            continue
        below = _under_table(screen)
        tmux.keys("Down")
        screen = tmux.wait_until(
            lambda s, below=below: _under_table(s) != below, "the cursor a row down"
        )
    raise AssertionError("assets left folded:\n" + screen)


FOLDED = re.compile(r"│\s+▸ \S+")


def assert_every_screen_agrees(tmux: Tmux, world: World, wallet: str, step: str) -> None:
    """Quote, Portfolio and Venue each show `wallet`'s balances as the world holds them."""
    narrow = tmux.size()[0] < WIDE[0]
    tmux.keys("F2")
    tmux.wait_for("Amount")
    _until_agreed(tmux, world, wallet, f"{step}, Quote", lambda s, t: _quote_problems(s, wallet, t))

    tmux.keys("F7")
    tmux.wait_until(lambda s: re.search("[▸▾] USDC", s), "Portfolio's rows", within=SETTLE)
    open_every_asset(tmux)
    _until_agreed(
        tmux,
        world,
        wallet,
        f"{step}, Portfolio",
        lambda s, t: _portfolio_problems(s, wallet, t, narrow),
    )

    tmux.keys("F3")
    tmux.wait_for("venue account")  # the pane's first line, at either size
    _until_agreed(tmux, world, wallet, f"{step}, Venue", lambda s, t: _venue_problems(s, wallet, t))


# -- the steps ----------------------------------------------------------------------------------


def run_quoted(tmux: Tmux, amount: str, exact: str) -> None:
    """On the Quote screen, with the cursor in Amount: type it, quote, confirm, sign, and wait
    for the run's end."""
    # the fresh form's empty Amount (its placeholder): the field the screen focuses
    tmux.wait_until(lambda s: re.search(r"Amount\s+e\.g\. 1\.5", s), "an empty Amount")
    tmux.keys("-l", amount)
    tmux.wait_for(f"= {exact}")
    tmux.keys("C-r")
    tmux.wait_for("Quoted ", within=SETTLE)
    tmux.keys("C-g")
    # one confirm per signature (a venue withdrawal asks two: the authorization, the transfer)
    answered: set[str] = set()
    while True:
        screen = tmux.wait_until(
            lambda s: "SUCCESS" in s or _confirm(s) not in (None, *answered),
            "the next confirm or the run's end",
            within=180,
        )
        if "SUCCESS" in screen:
            return
        title = _confirm(screen)
        assert title is not None
        answered.add(title)
        tmux.keys("y")


def _confirm(screen: str) -> str | None:
    """The open confirm dialog's first line (what it asks to sign), or None."""
    if "Sign (y)" not in screen:
        return None
    lines = screen.splitlines()
    top = next((n for n, line in enumerate(lines) if "▀▀▀▀▀▀▀▀▀▀" in line), None)
    if top is None or top + 1 >= len(lines):
        return None
    return lines[top + 1].split("█")[1].strip() if lines[top + 1].count("█") >= 2 else None


def bridge_into_the_venue(tmux: Tmux) -> None:
    """Base ETH -> the venue's perps USDC, 0.01 ETH, from the Quote screen's keys."""
    tmux.keys("F2")
    tmux.wait_until(
        lambda s: re.search(r"From\s+Base \(8453\)\s+▾\s+ETH", s), "the Quote form from Base ETH"
    )
    run_quoted(tmux, "0.01", "10000000000000000 (18 decimals)")


def withdraw_from_the_venue(tmux: Tmux) -> None:
    """5 perps USDC to Base USDC: the Venue screen's withdraw (ctrl+y) opens the Quote form."""
    tmux.keys("F3")
    tmux.wait_for("Withdraw from the venue")
    tmux.keys("C-y")
    tmux.wait_until(
        lambda s: re.search(r"From\s+Venue \(1337\)\s+▾\s+USDC \(perps\)", s),
        "the Quote form from the venue's perps",
    )
    run_quoted(tmux, "5", "500000000 (8 decimals)")


def _signer_line(screen: str) -> tuple[int, str]:
    """The Settings form's signer row (its line number and text), not the table's."""
    for number, line in enumerate(screen.splitlines()):
        if line.lstrip().startswith("Signer") and "▾" in line:
            return number, line
    raise AssertionError("no signer row on Settings:\n" + screen)


def _listed(screen: str) -> list[str]:
    """The open signer list's lines (its filter first), cut out of the screen around it."""
    lines = screen.splitlines()
    top = next((n for n, line in enumerate(lines) if "╭─ signer" in line), None)
    if top is None:
        return []
    left, right = lines[top].index("╭"), lines[top].index("╮")
    inside = []
    for line in lines[top + 1 :]:
        if "╰" in line[left : right + 1]:
            break
        inside.append(line[left + 1 : right].strip())
    return inside


def switch_signer(tmux: Tmux, choice: str, value: str, wallet: str) -> None:
    """Settings (F6): pick `choice` in the signer list, type `value` (if any) and use it; wait
    until Settings names `wallet`."""
    tmux.keys("F6")
    screen = tmux.wait_until(lambda s: "Keymap" in s and "Use" in s, "the Settings form")
    number, line = _signer_line(screen)
    tmux.click(line.index("▾"), number)
    tmux.wait_for("type to filter")
    tmux.keys("-l", choice)
    tmux.wait_until(
        lambda s: _listed(s)[:1] == [choice] and len(_listed(s)) == 2,
        f"the list filtered to {choice!r}",
    )
    tmux.keys("Enter")
    tmux.wait_until(lambda s: "╭─ signer" not in s, "the list to close")
    if not value:
        number, line = _signer_line(tmux.screen())
        tmux.click(line.rindex("Use") + 1, number)
    else:
        tmux.keys("Tab")  # from the list's line to the value beside it
        tmux.wait_until(
            # the footer drops the screen's `t Theme` key while a text field has the keys
            lambda s: "t Theme" not in s.splitlines()[-1],
            "the signer's value field focused",
        )
        tmux.keys("C-a", "C-k")  # whatever an earlier switch left there
        tmux.wait_until(
            lambda s: not re.search("0x[0-9a-fA-F]{8}", _signer_line(s)[1]), "the value cleared"
        )
        tmux.keys("-l", value)
        tmux.wait_until(lambda s: value in _signer_line(s)[1], f"{value} typed")
        tmux.keys("Enter")
    tmux.wait_until(
        lambda s: (
            re.search(rf"Wallet address\s+{wallet}", s) and short(wallet) in s.splitlines()[0]
        ),
        f"Settings and the title bar to name {wallet}",
    )


def test_every_balance_agrees_with_the_world_after_each_step(tmp_path: Path) -> None:
    read_only = Account.create()  # a watched address, funded by the harness
    keystore = Account.create()  # a Foundry keystore's key, funded by the harness
    keystores = tmp_path / ".foundry" / "keystores"  # the app's HOME is tmp_path
    keystores.mkdir(parents=True)
    encrypted = Account.encrypt(keystore.key, "e2e password", kdf="pbkdf2", iterations=1024)
    (keystores / "e2e").write_text(json.dumps(encrypted))

    with demo_in_tmux(tmp_path, *WIDE) as tmux:
        tmux.wait_for("USDC (perps)", within=180)  # the world is up, /chains in the pickers
        started = read_settings(tmux)
        world, wallet = started.world, started.wallet
        assert_every_screen_agrees(tmux, world, wallet, "at start")

        before = world.holdings(wallet)
        bridge_into_the_venue(tmux)
        after = world.holdings(wallet)
        eth, perps = ("Base (8453)", "ETH"), ("Venue (1337) perps", "USDC")
        assert after[eth][0] <= before[eth][0] - 10**16  # the run moved the ETH
        assert after[perps][0] > before[perps][0]  # and the venue credited USDC
        assert_every_screen_agrees(tmux, world, wallet, "after the bridge")

        # two other wallets with holdings of their own, so that one wallet's numbers under
        # another's name cannot pass
        world.send(BASE, started.key, read_only.address, value=3 * 10**17)
        world.send(BASE, started.key, read_only.address, 123_456_789, token=world.usdc(BASE))
        world.send(BASE, started.key, keystore.address, value=2 * 10**17)
        world.send(HYPEREVM, started.key, keystore.address, value=7 * 10**17)

        switch_signer(tmux, "read", read_only.address, read_only.address)
        assert_every_screen_agrees(tmux, world, read_only.address, "read-only address")
        switch_signer(tmux, "Found", "e2e", keystore.address)
        assert_every_screen_agrees(tmux, world, keystore.address, "keystore")
        switch_signer(tmux, "keyring", "", wallet)
        assert_every_screen_agrees(tmux, world, wallet, "back on the world's key")

        before = world.holdings(wallet)
        withdraw_from_the_venue(tmux)
        after = world.holdings(wallet)
        usdc = ("Base (8453)", "USDC")
        assert after[perps][0] <= before[perps][0] - 5 * 10**8  # 5 USDC (and any fee) left
        assert after[usdc][0] > before[usdc][0]  # and arrived on Base, less the fees
        assert_every_screen_agrees(tmux, world, wallet, "after the venue withdrawal")

        tmux.resize(*NARROW)
        tmux.wait_until(lambda s: tmux.size() == NARROW, "the pane at 80x24")
        assert_every_screen_agrees(tmux, world, wallet, "after the resize to 80x24")
        assert max(len(line) for line in tmux.screen().splitlines()) <= NARROW[0]

        tmux.resize(*WIDE)
        tmux.wait_until(lambda s: tmux.size() == WIDE, "the pane at 120x36")
        assert_every_screen_agrees(tmux, world, wallet, "after the resize back to 120x36")
        tmux.keys("C-q")
