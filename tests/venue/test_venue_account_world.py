"""The trader's venue account against the whole world (its service, venue and chains), through
the real CLI: a unified account's spot collateral is what it can withdraw, and a withdrawal from
it reaches success; 10 USDC round the books comes back whole (the fees shown are none); Max on a
fresh account leaves exactly the first-send fee. Each test signs as a fresh account of its own
(the world file names its key), so the shared world's demo wallet is untouched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from eth_account import Account
from eth_account.signers.local import LocalAccount

from crossdeck.cli import main
from crossdeck.sim.venue import (
    HIP3_DEX_NAME,
    PERPS_USDC_ADDRESS,
    SPOT_USDC_TOKEN_ID,
    USDC_DECIMALS,
    hip3_address,
)

UNIT = 10**USDC_DECIMALS
XYZ = hip3_address(SPOT_USDC_TOKEN_ID, HIP3_DEX_NAME)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(path))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD", "CROSSDECK_VENUE__URL"):
        monkeypatch.delenv(name, raising=False)


def trader(world: Any, tmp_path: Path, perps_usdc: int) -> tuple[LocalAccount, Path]:
    """A fresh venue account holding `perps_usdc` USDC on perps, and a world file signing as it."""
    account: LocalAccount = Account.create()
    world.ledger.credit(account.address, PERPS_USDC_ADDRESS, perps_usdc * UNIT)
    info = dict(world.info)
    info["wallet"] = {"address": account.address, "private_key": account.key.hex()}
    path = tmp_path / "trader.json"
    path.write_text(json.dumps(info))
    return account, path


def cli(path: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--world", str(path), *args])


def books(world: Any, user: str) -> tuple[int, int, int]:
    ledger = world.ledger
    return tuple(ledger.balance(user, c) for c in (PERPS_USDC_ADDRESS, SPOT_USDC_TOKEN_ID, XYZ))  # type: ignore[return-value]


@pytest.mark.usefixtures("config")
def test_a_unified_account_withdraws_its_spot_collateral(world: Any, tmp_path: Path) -> None:
    account, path = trader(world, tmp_path, 40)
    # standard first: venue balance and the portfolio name the mode in the same words
    standard = cli(path, "venue", "balance")
    assert "account mode  standard (default)" in standard.stdout
    assert (
        "note: Venue (1337): standard account (default): perps, spot and each HIP-3 DEX hold "
        "their own USDC; withdrawals leave from perps" in cli(path, "balances").stdout
    )
    world.ledger.set_mode(account.address, "unifiedAccount")
    shown = cli(path, "venue", "balance", "--json")
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["mode"] == "unifiedAccount" and data["unified"] is True
    assert data["perps"]["withdrawable"] == "0.0"  # what a perps-only reader would show
    assert (data["withdrawBook"], data["withdrawable"]) == ("spot", "40.0")
    assert data["maxWithdraw"] == "39.0" and data["firstSendFee"] == "1.0"
    words = cli(path, "venue", "balance")
    assert "account mode  unified (unifiedAccount)" in words.stdout
    assert (
        "withdrawable  40 USDC from spot (unified: the spot USDC is the collateral)" in words.stdout
    )

    # the portfolio agrees and says the mode
    portfolio = cli(path, "balances")
    assert portfolio.exit_code == 0, portfolio.output
    assert (
        "unified account (unifiedAccount): perps and spot USDC are one balance" in portfolio.stdout
    )

    done = cli(path, "venue", "withdraw", "--to-chain", "8453", "--amount-human", "15", "--yes")
    assert done.exit_code == 0, done.output
    assert "withdrawing 15 USDC from spot (unified account)" in done.stderr
    assert "finished: success" in done.stdout
    assert books(world, account.address) == (0, (40 - 15 - 1) * UNIT, 0)


@pytest.mark.usefixtures("config")
def test_ten_usdc_round_the_books_comes_back_whole(world: Any, tmp_path: Path) -> None:
    account, path = trader(world, tmp_path, 30)
    before = books(world, account.address)
    legs = [("perps", "spot"), ("spot", HIP3_DEX_NAME), (HIP3_DEX_NAME, "perps")]
    for source, destination in legs:
        moved = cli(
            path, "venue", "transfer", "--from", source, "--to", destination,
            "--amount-human", "10", "--yes",
        )  # fmt: skip
        assert moved.exit_code == 0, moved.output
        assert "fee: none: a move between your own books" in moved.stdout
    assert books(world, account.address) == before  # less the fees shown: none
    assert not world.ledger.fee_paid(account.address)


@pytest.mark.usefixtures("config")
def test_max_on_a_fresh_account_leaves_exactly_the_fee(world: Any, tmp_path: Path) -> None:
    account, path = trader(world, tmp_path, 20)
    done = cli(path, "venue", "withdraw", "--to-chain", "8453", "--max", "--yes")
    assert done.exit_code == 0, done.output
    assert "withdrawing 19 USDC from perps" in done.stderr
    assert "first-send fee 1 USDC" in done.stderr
    assert "finished: success" in done.stdout
    # the venue action's own description, before it is signed, says the fee and the total
    said = " ".join(done.stdout.split())
    assert "fee venue first-send fee 1 USDC, taken by the venue from the same book" in said
    assert "in total 20 USDC (2000000000) leave your account: 19 USDC sent + the 1 USDC" in said
    [send] = [s for s in world.ledger.sends() if s.user == account.address.lower()]
    assert send.amount == 19 * UNIT and send.fee == 1 * UNIT  # Max left exactly the fee
    assert books(world, account.address) == (0, 0, 0)
    # the fee is paid: the next Max is the whole book
    world.ledger.credit(account.address, PERPS_USDC_ADDRESS, 3 * UNIT)
    after = json.loads(cli(path, "venue", "balance", "--json").stdout)
    assert (after["firstSendFee"], after["maxWithdraw"]) == ("0.0", "3.0")


@pytest.mark.usefixtures("config")
def test_a_short_book_is_offered_a_move_first(world: Any, tmp_path: Path) -> None:
    account, path = trader(world, tmp_path, 12)
    done = cli(
        path, "venue", "withdraw", "--to-chain", "8453", "--from", "spot",
        "--amount-human", "5", "--yes",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "moved 6 USDC from perps to spot" in done.stderr
    assert books(world, account.address) == (6 * UNIT, 0, 0)


@pytest.mark.usefixtures("config")
def test_a_send_to_another_address_is_named_as_leaving(world: Any, tmp_path: Path) -> None:
    account, path = trader(world, tmp_path, 10)
    other = Account.create().address
    declined = CliRunner().invoke(
        main,
        ["--world", str(path), "venue", "transfer", "--from", "perps", "--to", "perps",
         "--amount-human", "2", "--to-address", other],
        input="n\n",
    )  # fmt: skip
    assert declined.exit_code == 11
    assert f"THIS LEAVES YOUR ACCOUNT: {other} receives it" in declined.stdout
    # the account's own first send, and the receiver has no venue account yet (the venue's
    # preTransferCheck): both fees said before anything is signed
    assert (
        "fee: venue first-send fee 1 USDC + new-account fee 1 USDC (the destination has no "
        "venue account yet), taken by the venue" in declined.stdout
    )
    assert "in total: 4 USDC (400000000) leave your account: 2 USDC sent + the 2 USDC" in (
        declined.stdout
    )
    assert f"out of your account to {other}" in declined.stderr
    assert books(world, account.address)[0] == 10 * UNIT
    sent = cli(
        path, "venue", "transfer", "--from", "perps", "--to", "perps", "--amount-human", "2",
        "--to-address", other, "--yes",
    )  # fmt: skip
    assert sent.exit_code == 0, sent.output
    assert books(world, account.address)[0] == (10 - 2 - 1 - 1) * UNIT  # as said
    assert world.ledger.balance(other, PERPS_USDC_ADDRESS) == 2 * UNIT
    # the receiver exists now and the first send is made: the next one pays nothing
    again = cli(
        path, "venue", "transfer", "--from", "perps", "--to", "perps", "--amount-human", "1",
        "--to-address", other, "--yes", "--json",
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "fee: none: this account's first send is made" in again.stderr
    assert json.loads(again.stdout)["fee"] == 0
    assert books(world, account.address)[0] == (10 - 2 - 1 - 1 - 1) * UNIT


@pytest.mark.usefixtures("config")
def test_a_move_out_of_a_sub_account_and_a_hip3_dex_send(world: Any, tmp_path: Path) -> None:
    account, path = trader(world, tmp_path, 10)
    sub = world.ledger.add_sub_account(account.address, "desk")
    world.ledger.credit(sub, PERPS_USDC_ADDRESS, 8 * UNIT)
    moved = cli(
        path, "venue", "transfer", "--from", "perps", "--to", HIP3_DEX_NAME,
        "--amount-human", "3", "--from-sub-account", sub, "--yes", "--json",
    )  # fmt: skip
    assert moved.exit_code == 0, moved.output
    sent = json.loads(moved.stdout)
    assert sent["action"] == "sendAsset" and sent["message"]["fromSubAccount"] == sub
    assert world.ledger.balance(sub, PERPS_USDC_ADDRESS) == 5 * UNIT
    assert world.ledger.balance(account.address, XYZ) == 3 * UNIT  # to the master's HIP-3 book
    listed = json.loads(cli(path, "venue", "balance", "--json").stdout)
    assert [s["name"] for s in listed["subAccounts"]] == ["desk"]
    # another's sub account is refused before anything is built
    foreign = world.ledger.add_sub_account(Account.create().address, "theirs")
    refused = cli(
        path, "venue", "transfer", "--from", "perps", "--to", "spot", "--amount-human", "1",
        "--from-sub-account", foreign, "--yes",
    )  # fmt: skip
    assert refused.exit_code == 3 and "is not a sub account of" in refused.stderr


@pytest.mark.usefixtures("config")
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["transfer", "--from", "perps", "--to", "moon", "--amount-human", "1"], "not a book"),
        (["transfer", "--from", "perps", "--to", "spot", "--amount-human", "0"], "amount"),
        (["transfer", "--from", "spot", "--to", "spot", "--amount-human", "1"], "same book"),
        (["withdraw", "--to-chain", "8453"], "one of --amount-human and --max"),
        (["withdraw", "--to-chain", "8453", "--amount-human", "1", "--max"], "one of"),
        (["withdraw", "--to-chain", "8453", "--amount-human", "999"], "do not fit"),
    ],
)
def test_bad_requests_are_refused_with_nothing_signed(
    world: Any, tmp_path: Path, args: list[str], words: str
) -> None:
    account, path = trader(world, tmp_path, 4)
    result = cli(path, "venue", *args)
    assert result.exit_code == 3, result.output
    assert words in result.stderr and "Traceback" not in result.output
    assert books(world, account.address) == (4 * UNIT, 0, 0)


@pytest.mark.usefixtures("config")
def test_a_unified_account_has_nothing_to_move_between_its_books(
    world: Any, tmp_path: Path
) -> None:
    account, path = trader(world, tmp_path, 9)
    world.ledger.set_mode(account.address, "unifiedAccount")
    result = cli(path, "venue", "transfer", "--from", "perps", "--to", "xyz", "--amount-human", "1")
    assert result.exit_code == 3 and "share one USDC balance" in result.stderr
    assert books(world, account.address) == (0, 9 * UNIT, 0)


def _summary_above_the_question(result: Result) -> str:
    """The pay / get / fees line printed right above the bridge's confirm question."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    asked = next(i for i, line in enumerate(lines) if "Execute this quote?" in line)
    return lines[asked - 1]


@pytest.mark.usefixtures("config")
def test_the_withdrawal_summary_names_the_first_send_fee_while_due(
    world: Any, tmp_path: Path
) -> None:
    account, path = trader(world, tmp_path, 20)
    asked = CliRunner().invoke(
        main,
        ["--world", str(path), "venue", "withdraw", "--to-chain", "8453", "--amount-human", "5"],
        input="n\n",
    )
    assert asked.exit_code != 0 and "declined: nothing was signed" in asked.stderr
    summary = _summary_above_the_question(asked)
    assert summary.startswith("pay ") and " · fees " in summary
    assert "venue first-send fee 1 USDC" in summary
    # the same through `bridge` from chain 1337 directly, and in `quote`'s summary
    bridge = CliRunner().invoke(
        main,
        [
            "--world", str(path), "bridge", "--origin-chain", "1337",
            "--origin-currency", PERPS_USDC_ADDRESS, "--destination-chain", "8453",
            "--destination-currency", "USDC", "--amount", str(5 * UNIT),
        ],
        input="n\n",
    )  # fmt: skip
    assert "venue first-send fee 1 USDC" in _summary_above_the_question(bridge)
    quoted = cli(
        path, "quote", "--origin-chain", "1337", "--origin-currency", PERPS_USDC_ADDRESS,
        "--destination-chain", "8453", "--destination-currency", "USDC",
        "--amount", str(5 * UNIT),
    )  # fmt: skip
    [summary_row] = [line for line in quoted.stdout.splitlines() if line.startswith("Summary")]
    assert "venue first-send fee 1 USDC" in summary_row
    assert books(world, account.address) == (20 * UNIT, 0, 0)  # nothing left the account

    # once a send has left the account, the fee is paid: the summary names it no more
    done = cli(path, "venue", "withdraw", "--to-chain", "8453", "--amount-human", "5", "--yes")
    assert done.exit_code == 0, done.output
    again = CliRunner().invoke(
        main,
        ["--world", str(path), "venue", "withdraw", "--to-chain", "8453", "--amount-human", "5"],
        input="n\n",
    )
    summary = _summary_above_the_question(again)
    assert summary.startswith("pay ") and "first-send fee" not in summary
    assert "first-send fee 0 USDC" in again.stderr  # the venue's own line says it is paid
