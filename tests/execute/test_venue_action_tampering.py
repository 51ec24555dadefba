"""Each venue transfer the trader asks for, with its typed data tampered between the builder and
the wallet (a builder gone wrong, or a hostile one): the real `crossdeck venue transfer` refuses
before anything is signed, exit 7, naming the guard; the wallet is never asked, the venue's books
and the account's nonces are as before. Untampered, the same transfers go through.

The tamperings: the book (sourceDex, destinationDex, toPerp), the amount, the destination, the
sub account, the domain (name, chainId, verifyingContract), the chain (`<venue>Chain`,
signatureChainId), an extra field (in the message, in the types, or another type), another
action kind.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from eth_account import Account
from eth_account.signers.local import LocalAccount

import crossdeck.venue.actions as venue_actions
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main
from crossdeck.sim.venue import (
    PERPS_USDC_ADDRESS,
    SPOT_USDC_TOKEN_ID,
    USDC_DECIMALS,
    USDE_TOKEN_ID,
)

UNIT = 10**USDC_DECIMALS
Tamper = Callable[[dict[str, Any]], None]


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(path))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD", "CROSSDECK_VENUE__URL"):
        monkeypatch.delenv(name, raising=False)


def trader(world: Any, tmp_path: Path) -> tuple[LocalAccount, Path]:
    account: LocalAccount = Account.create()
    world.ledger.credit(account.address, PERPS_USDC_ADDRESS, 50 * UNIT)
    info = dict(world.info)
    info["wallet"] = {"address": account.address, "private_key": account.key.hex()}
    path = tmp_path / "trader.json"
    path.write_text(json.dumps(info))
    return account, path


def message(t: Tamper) -> Tamper:
    return lambda typed: t(typed["message"])


def _set(key: str, value: Any) -> Tamper:
    return message(lambda m: m.__setitem__(key, value))


def _primary_fields(typed: dict[str, Any]) -> list[dict[str, str]]:
    fields: list[dict[str, str]] = typed["types"][typed["primaryType"]]
    return fields


SEND_ASSET = ["--from", "perps", "--to", "xyz", "--amount-human", "3"]
CLASS = ["--from", "perps", "--to", "spot", "--amount-human", "3"]
OTHER = "0x" + "ab" * 20

CASES: dict[str, tuple[list[str], Tamper, str]] = {
    "source book": (SEND_ASSET, _set("sourceDex", "spot"), "venue-action-books"),
    "destination book": (SEND_ASSET, _set("destinationDex", "spot"), "venue-action-books"),
    "class direction": (CLASS, _set("toPerp", True), "venue-action-books"),
    "amount": (SEND_ASSET, _set("amount", "30.0"), "venue-action-amount"),
    "class amount": (CLASS, _set("amount", "3.5"), "venue-action-amount"),
    "token": (SEND_ASSET, _set("token", f"USDE:{USDE_TOKEN_ID}"), "venue-action-amount"),
    "destination": (SEND_ASSET, _set("destination", OTHER), "venue-action-destination"),
    "sub account": (SEND_ASSET, _set("fromSubAccount", OTHER), "venue-action-destination"),
    "domain name": (
        SEND_ASSET, lambda t: t["domain"].__setitem__("name", "OtherSignTransaction"),
        "venue-action-domain",
    ),
    "domain chain": (
        SEND_ASSET, lambda t: t["domain"].__setitem__("chainId", 1), "venue-action-domain"
    ),
    "verifying contract": (
        CLASS, lambda t: t["domain"].__setitem__("verifyingContract", OTHER), "venue-action-domain"
    ),
    "signature chain": (SEND_ASSET, _set("signatureChainId", "0x1"), "venue-action-domain"),
    "venue network": (SEND_ASSET, _set("venueChain", "Testnet"), "venue-action-chain"),
    "extra message field": (SEND_ASSET, _set("vaultAddress", OTHER), "venue-action-fields"),
    "extra signed field": (
        CLASS,
        lambda t: (
            _primary_fields(t).append({"name": "memo", "type": "string"}),
            t["message"].__setitem__("memo", "x"),
        ),
        "venue-action-fields",
    ),
    "another type": (
        CLASS, lambda t: t["types"].__setitem__("Extra", [{"name": "a", "type": "string"}]),
        "venue-action-fields",
    ),
    "another action": (
        SEND_ASSET, lambda t: t.__setitem__("primaryType", "VenueTransaction:UsdSend"),
        "venue-action-fields",
    ),
}  # fmt: skip


@pytest.mark.usefixtures("config")
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_tampering_is_refused_before_signing(
    case: str, world: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args, tamper, guard = CASES[case]
    account, path = trader(world, tmp_path)
    honest = venue_actions.build

    def tampered(request: Any, venue: str) -> tuple[Any, dict[str, Any]]:
        action, typed = honest(request, venue)
        tamper(typed)
        return action, typed

    monkeypatch.setattr(venue_actions, "build", tampered)
    asked: list[Any] = []
    monkeypatch.setattr(
        "crossdeck.wallet.signers.KeySigner.sign_typed_data",
        lambda self, *a, **k: asked.append(a),
    )
    before = world.ledger.balances(account.address)
    result = CliRunner().invoke(main, ["--world", str(path), "venue", "transfer", *args, "--yes"])
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    assert guard in result.stderr and "nothing was signed" in result.stderr
    assert asked == []  # the wallet was never asked
    assert world.ledger.balances(account.address) == before
    assert not world.ledger.updates(account.address)


@pytest.mark.usefixtures("config")
@pytest.mark.parametrize("args", [SEND_ASSET, CLASS], ids=["sendAsset", "usdClassTransfer"])
def test_untampered_the_same_transfers_go_through(
    args: list[str], world: Any, tmp_path: Path
) -> None:
    account, path = trader(world, tmp_path)
    result = CliRunner().invoke(main, ["--world", str(path), "venue", "transfer", *args, "--yes"])
    assert result.exit_code == 0, result.output
    assert world.ledger.balance(account.address, PERPS_USDC_ADDRESS) == 47 * UNIT


@pytest.mark.usefixtures("config")
def test_a_transfer_of_another_wallet_is_refused(
    world: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    account, path = trader(world, tmp_path)
    info = json.loads(path.read_text())
    info["wallet"]["address"] = Account.create().address  # the key signs as someone else
    path.write_text(json.dumps(info))
    result = CliRunner().invoke(main, ["--world", str(path), "venue", "transfer", *CLASS, "--yes"])
    assert result.exit_code != 0
    assert world.ledger.balance(account.address, SPOT_USDC_TOKEN_ID) == 0
