"""Hostile Solana quotes: the real `crossdeck bridge --yes --json` from Solana against the demo
world (LiteSVM with the real System, SPL Token and ATA programs) through a service in the middle
that alters the quote (tampering_proxy.py), one attack at a time, each as an attacker would write
it: value that leaves through an account funded then closed to someone else, rent for a foreign
account, another currency with the same units, a fake associated token account, a fake vault,
a delegate or new owner on the wallet's token account, an extra signer, a durable nonce, an
oversize transaction; and the same with the node the attacker's (its simulation says all is
well). Each is refused before signing (exit 7, naming its guard): nothing is sent, and every
balance (the wallet's SOL and USDC, the other key's, the vault's) is as before. The same flows
untampered through the same proxy succeed, and the SOL that leaves the wallet is, to the
lamport, the payment and the fees the dialog shows."""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import Cli
from tampering_proxy import LyingSolanaNode, TamperingProxy

from crossdeck.base.exitcodes import ExitCode
from crossdeck.execute.guards.solana_addresses import (
    associated_token_account,
    depository_vault,
)
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.models.base58 import b58encode
from crossdeck.models.solana import (
    ASSOCIATED_TOKEN_PROGRAM,
    DEPOSIT_NATIVE,
    DEPOSIT_TOKEN,
    SYSTEM_PROGRAM,
    TOKEN_PROGRAM,
)
from crossdeck.sim.solana.node import USDC_MINT
from crossdeck.wallet.solana import SolanaGateway

Tamper = Callable[[dict[str, Any]], None]
OTHER = b58encode(bytes(range(100, 132)))
USDC = str(USDC_MINT)
WSOL = "So11111111111111111111111111111111111111112"
NONCE_ACCOUNT = b58encode(bytes(range(40, 72)))
RECENT_BLOCKHASHES = "SysvarRecentB1ockHashes11111111111111111111"


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path, demo_svm=True)


@pytest.fixture(params=["v2", "v3"])  # every tampering against each quote API's answer
def proxy(world: Any, request: pytest.FixtureRequest) -> Iterator[TamperingProxy]:
    with TamperingProxy(world.service_url, api=request.param) as running:
        yield running


# -- building hostile instructions, as the quote's JSON carries them -----------------------


def _ix(program: str, keys: list[tuple[str, bool, bool]], data: bytes) -> dict[str, Any]:
    return {
        "programId": program,
        "keys": [{"pubkey": k, "isSigner": s, "isWritable": w} for k, s, w in keys],
        "data": data.hex(),
    }


def _instructions(wire: dict[str, Any]) -> list[dict[str, Any]]:
    step = next(s for s in wire["steps"] if s["id"] == "deposit")
    found: list[dict[str, Any]] = step["items"][0]["data"]["instructions"]
    return found


def deposit(wire: dict[str, Any]) -> dict[str, Any]:
    return next(
        ix for ix in _instructions(wire) if ix["data"][:16] in (DEPOSIT_NATIVE.hex(),
                                                                DEPOSIT_TOKEN.hex())
    )  # fmt: skip


def _wallet(wire: dict[str, Any]) -> str:
    wallet: str = deposit(wire)["keys"][1]["pubkey"]
    return wallet


def _appending(*make: Callable[[str], dict[str, Any]]) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        wallet = _wallet(wire)
        _instructions(wire).extend(m(wallet) for m in make)

    return tamper


def _prepending(*make: Callable[[str], dict[str, Any]]) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        wallet = _wallet(wire)
        _instructions(wire)[:0] = [m(wallet) for m in make]

    return tamper


def create_ata(owner: Callable[[str], str], mint: str, account: str | None = None) -> Any:
    def make(wallet: str) -> dict[str, Any]:
        whose = owner(wallet)
        address = account or associated_token_account(whose, mint, TOKEN_PROGRAM)
        assert address is not None
        return _ix(ASSOCIATED_TOKEN_PROGRAM, [
            (wallet, True, True), (address, False, True), (whose, False, False),
            (mint, False, False), (SYSTEM_PROGRAM, False, False), (TOKEN_PROGRAM, False, False),
        ], b"\x01")  # fmt: skip

    return make


def _own_wsol(wallet: str) -> str:
    address = associated_token_account(wallet, WSOL, TOKEN_PROGRAM)
    assert address is not None
    return address


def _own_usdc(wallet: str) -> str:
    address = associated_token_account(wallet, USDC, TOKEN_PROGRAM)
    assert address is not None
    return address


def sol_transfer(to: Callable[[str], str], lamports: int, source: str | None = None) -> Any:
    def make(wallet: str) -> dict[str, Any]:
        frm = source or wallet
        return _ix(SYSTEM_PROGRAM, [(frm, True, True), (to(wallet), False, True)],
                   struct.pack("<IQ", 2, lamports))  # fmt: skip

    return make


def sync_native(wallet: str) -> dict[str, Any]:
    return _ix(TOKEN_PROGRAM, [(_own_wsol(wallet), False, True)], bytes([17]))


def close_to(destination: Callable[[str], str]) -> Any:
    def make(wallet: str) -> dict[str, Any]:
        return _ix(TOKEN_PROGRAM, [(_own_wsol(wallet), False, True),
                                   (destination(wallet), False, True), (wallet, True, False)],
                   bytes([9]))  # fmt: skip

    return make


def approve_other(wallet: str) -> dict[str, Any]:
    keys = [(_own_usdc(wallet), False, True), (OTHER, False, False), (wallet, True, False)]
    return _ix(TOKEN_PROGRAM, keys, bytes([4]) + struct.pack("<Q", 2**64 - 1))


def set_owner_other(wallet: str) -> dict[str, Any]:
    return _ix(TOKEN_PROGRAM, [(_own_usdc(wallet), False, True), (wallet, True, False)],
               bytes([6, 2, 1]) + _key_bytes(OTHER))  # fmt: skip


def _key_bytes(key: str) -> bytes:
    from crossdeck.models.base58 import b58decode

    return b58decode(key)


def advance_nonce(wallet: str) -> dict[str, Any]:
    return _ix(SYSTEM_PROGRAM, [(NONCE_ACCOUNT, False, True), (RECENT_BLOCKHASHES, False, False),
                                (wallet, True, False)], struct.pack("<I", 4))  # fmt: skip


def self_transfer(wallet: str) -> dict[str, Any]:
    return sol_transfer(lambda w: w, 0)(wallet)


def _data(change: Callable[[bytes], bytes]) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        ix = deposit(wire)
        ix["data"] = change(bytes.fromhex(ix["data"])).hex()

    return tamper


def _key(index: int, value: Callable[[dict[str, Any]], str]) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        deposit(wire)["keys"][index]["pubkey"] = value(wire)

    return tamper


def _program(wire: dict[str, Any]) -> None:
    deposit(wire)["programId"] = OTHER


def _pays_sol_instead(wire: dict[str, Any]) -> None:
    """A USDC request answered with a SOL deposit of the same number of units, paymentDetails
    and currencyIn agreeing with it: only the request says it is not what was asked."""
    ix = deposit(wire)
    wallet = _wallet(wire)
    units = struct.unpack("<Q", bytes.fromhex(ix["data"])[8:16])[0]
    order = bytes.fromhex(ix["data"])[16:48]
    keys = ix["keys"]
    ix["keys"] = [keys[0], keys[1], keys[2], keys[3],
                  {"pubkey": SYSTEM_PROGRAM, "isSigner": False, "isWritable": False}]  # fmt: skip
    ix["keys"][3]["isWritable"] = True
    ix["data"] = (DEPOSIT_NATIVE + struct.pack("<Q", units) + order).hex()
    wire["protocol"]["v2"]["paymentDetails"]["currency"] = SYSTEM_PROGRAM
    assert wallet


def _pays_usdc_instead(wire: dict[str, Any]) -> None:
    """A SOL request answered with a USDC deposit of the same units, paymentDetails and the
    item agreeing."""
    ix = deposit(wire)
    wallet = _wallet(wire)
    data = bytes.fromhex(ix["data"])
    vault = depository_vault()
    ix["keys"] = [ix["keys"][0], ix["keys"][1], ix["keys"][2],
                  {"pubkey": vault, "isSigner": False, "isWritable": False},
                  {"pubkey": USDC, "isSigner": False, "isWritable": False},
                  {"pubkey": _own_usdc(wallet), "isSigner": False, "isWritable": True},
                  {"pubkey": associated_token_account(vault, USDC, TOKEN_PROGRAM),
                   "isSigner": False, "isWritable": True},
                  {"pubkey": TOKEN_PROGRAM, "isSigner": False, "isWritable": False},
                  {"pubkey": ASSOCIATED_TOKEN_PROGRAM, "isSigner": False, "isWritable": False},
                  {"pubkey": SYSTEM_PROGRAM, "isSigner": False, "isWritable": False}]  # fmt: skip
    ix["data"] = (DEPOSIT_TOKEN + data[8:]).hex()
    wire["protocol"]["v2"]["paymentDetails"]["currency"] = USDC


def _oversize(wire: dict[str, Any]) -> None:
    """Instructions that move nothing (0 lamports to itself), enough of them to pass 1232
    bytes: only the size is wrong."""
    wallet = _wallet(wire)
    _instructions(wire).extend(self_transfer(wallet) for _ in range(90))


def _both(*tampers: Tamper) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        for each in tampers:
            each(wire)

    return tamper


FUND_THEN_CLOSE = _appending(
    create_ata(lambda w: w, WSOL), sol_transfer(_own_wsol, 10**9), sync_native,
    close_to(lambda w: OTHER),
)  # fmt: skip

# (name, origin currency, tamper, guard, words in the refusal)
CASES = [
    ("amount", "SOL", _data(lambda d: d[:8] + struct.pack("<Q", 2 * 10**8) + d[16:]),
     "solana-deposit", "it deposits 200000000"),
    ("order-id", "SOL", _data(lambda d: d[:16] + b"\x07" * 32), "solana-deposit",
     "its order id is"),
    ("depositor", "SOL", _key(2, lambda w: OTHER), "solana-deposit", f"its depositor is {OTHER}"),
    ("program-id", "SOL", _program, "solana-programs",
     f"program {OTHER}, which crossdeck cannot read"),
    ("extra-sol-transfer", "SOL", _appending(sol_transfer(lambda w: OTHER, 10**6)),
     "solana-transfers", f"to {OTHER}"),
    ("fund-then-close-to-another", "SOL", FUND_THEN_CLOSE, "solana-close",
     f"lamports and tokens to {OTHER}, not this wallet"),
    ("rent-for-a-foreign-account", "SOL", _prepending(create_ata(lambda w: OTHER, USDC)),
     "solana-rent", f"a token account of {OTHER}, not of this wallet"),
    ("fake-ata-created", "SOL",
     _prepending(create_ata(lambda w: w, USDC, account=b58encode(bytes(range(7, 39))))),
     "solana-ata", "is not the associated token account of"),
    ("usdc-asked-sol-paid-same-units", "USDC", _pays_sol_instead, "payment-request",
     "not the USDC you asked to send"),
    ("sol-asked-usdc-paid-same-units", "SOL", _pays_usdc_instead, "solana-deposit",
     f"pays in {USDC}, not the SOL you asked to send"),
    ("fake-vault", "SOL", _key(3, lambda w: OTHER), "solana-vault", f"vault {OTHER}"),
    ("fake-config", "SOL", _key(0, lambda w: OTHER), "solana-vault", f"config {OTHER}"),
    ("fake-vault-token-account", "USDC",
     _key(6, lambda w: str(associated_token_account(OTHER, USDC, TOKEN_PROGRAM))),
     "solana-vault", "vault token account"),
    ("fake-sender-token-account", "USDC",
     _key(5, lambda w: str(associated_token_account(OTHER, USDC, TOKEN_PROGRAM))),
     "solana-ata", "the deposit takes tokens from"),
    ("hidden-approve-delegate", "USDC", _appending(approve_other), "solana-authority",
     f"let {OTHER} spend up to"),
    ("hidden-set-authority", "USDC", _appending(set_owner_other), "solana-authority",
     f"give {OTHER} the right to own the account"),
    ("extra-signer", "SOL", _appending(sol_transfer(lambda w: w, 1, source=OTHER)),
     "solana-signers", f"needs the signature of {OTHER}"),
    ("durable-nonce", "SOL", _prepending(advance_nonce), "solana-nonce",
     "advanceNonceAccount on durable nonce account"),
    ("oversize", "SOL", _oversize, "solana-size", "over Solana's 1232-byte limit"),
]  # fmt: skip


def _bridge(cli: Cli, proxy: TamperingProxy, currency: str, **env: str) -> Any:
    amount = "0.1" if currency == "SOL" else "2"
    result = cli.invoke(
        "bridge",
        "--origin-chain", str(SOLANA_CHAIN_ID), "--origin-currency", currency,
        "--destination-chain", "8453", "--destination-currency", "ETH" if currency == "SOL"
        else "USDC", "--amount-human", amount, "--yes", "--json",
        CROSSDECK_SERVICE__URL=proxy.url, CROSSDECK_SERVICE__QUOTE_API=proxy.api, **env,
    )  # fmt: skip
    assert set(proxy.quote_paths) == {f"/quote/{proxy.api}"}  # asked of the API under test
    return result


def balances(world: Any) -> dict[str, int | None]:
    """Every balance an attack could touch: SOL and USDC of the wallet, the other key and the
    depository's vault."""
    wallet = world.info["wallet"]["solana_address"]

    async def read() -> dict[str, int | None]:
        gateway = SolanaGateway(world.rpc[SOLANA_CHAIN_ID])
        found: dict[str, int | None] = {}
        try:
            for who, key in (("wallet", wallet), ("other", OTHER), ("vault", depository_vault())):
                found[f"{who} SOL"] = await gateway.balance(key)
                account = associated_token_account(key, USDC, TOKEN_PROGRAM)
                assert account is not None
                data = await gateway.account_data(account)
                found[f"{who} USDC"] = (
                    None if data is None else struct.unpack_from("<Q", data, 64)[0]
                )
            data = await gateway.account_data(_own_wsol(wallet))
            found["wallet wSOL account"] = None if data is None else len(data)
        finally:
            await gateway.aclose()
        return found

    return asyncio.run(read())


def _refused(result: Any, guard: str, words: str) -> None:
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    failed = events[-1]
    assert failed["event"] == "Failed", failed
    assert guard in {f["name"] for f in failed["failures"]}, failed["error"]
    assert words in failed["error"], failed["error"]
    assert not any(e["event"] in ("Signed", "TxSent", "AwaitingConfirmation") for e in events)


@pytest.mark.parametrize(
    ("name", "currency", "tamper", "guard", "words"), CASES, ids=[c[0] for c in CASES]
)
def test_a_hostile_solana_quote_is_refused_before_signing(
    world: Any, cli: Cli, proxy: TamperingProxy, name: str, currency: str, tamper: Tamper,
    guard: str, words: str,
) -> None:  # fmt: skip
    before = balances(world)
    proxy.tamper = tamper
    result = _bridge(cli, proxy, currency)
    # an oversize transaction is quoted once more, for the shortest route (tampered again)
    assert proxy.tampered == (2 if name == "oversize" else 1)
    _refused(result, guard, words)
    assert balances(world) == before


@pytest.mark.parametrize(
    ("name", "tamper", "guard", "words"),
    [("fund-then-close", FUND_THEN_CLOSE, "solana-close", f"to {OTHER}"),
     ("fake-vault", _key(3, lambda w: OTHER), "solana-vault", f"vault {OTHER}"),
     ("usdc-paid", _pays_usdc_instead, "solana-deposit", "not the SOL you asked to send")],
    ids=["fund-then-close", "fake-vault", "usdc-paid"],
)  # fmt: skip
def test_a_lying_node_removes_no_guard(
    world: Any, cli: Cli, proxy: TamperingProxy, name: str, tamper: Tamper, guard: str,
    words: str,
) -> None:  # fmt: skip
    """The node is the attacker's (its simulation says every transaction succeeds): the
    refusals rest on the decoded message and derived addresses, not on its word."""
    with LyingSolanaNode(world.rpc[SOLANA_CHAIN_ID]) as node:
        info = json.loads(cli.world_file.read_text())
        info["rpc"][str(SOLANA_CHAIN_ID)] = node.url
        cli.world_file.write_text(json.dumps(info))
        before = balances(world)
        proxy.tamper = tamper
        result = _bridge(cli, proxy, "SOL")
        _refused(result, guard, words)
        assert node.sent == 0
    assert balances(world) == before


def test_the_lying_node_is_used_by_an_honest_run(
    world: Any, cli: Cli, proxy: TamperingProxy
) -> None:
    """The lying node serves an honest run to the end (so the cases above went through it)."""
    with LyingSolanaNode(world.rpc[SOLANA_CHAIN_ID]) as node:
        info = json.loads(cli.world_file.read_text())
        info["rpc"][str(SOLANA_CHAIN_ID)] = node.url
        cli.world_file.write_text(json.dumps(info))
        result = _bridge(cli, proxy, "SOL")
        assert result.exit_code == 0, result.output
        assert node.simulations >= 1 and node.sent == 1


@pytest.mark.parametrize("currency", ["SOL", "USDC"])
def test_the_same_flows_untampered_through_the_proxy_succeed_to_the_lamport(
    world: Any, cli: Cli, proxy: TamperingProxy, currency: str
) -> None:
    before = balances(world)
    result = _bridge(cli, proxy, currency)
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[-1]["event"] == "Finished" and events[-1]["status"] == "success"
    after = balances(world)
    asked = 10**8 if currency == "SOL" else 0
    [lines] = [e["what"]["lines"] for e in events if e["event"] == "AwaitingConfirmation"]
    total = next(line for line in lines if line["label"] == "leaves wallet")
    # what the dialog said leaves the wallet is what left it, to the lamport
    before_sol, after_sol = before["wallet SOL"], after["wallet SOL"]
    assert before_sol is not None and after_sol is not None
    assert before_sol - after_sol == int(total["raw"])
    fees = sum(int(line["raw"]) for line in lines if line["label"] in ("fee", "rent"))
    assert int(total["raw"]) == asked + fees
    if currency == "USDC":
        assert before["wallet USDC"] is not None and after["wallet USDC"] is not None
        assert before["wallet USDC"] - after["wallet USDC"] == 2_000_000


def test_an_oversize_transaction_is_quoted_again_for_the_shortest_route(
    world: Any, cli: Cli, proxy: TamperingProxy
) -> None:
    """Over 1232 bytes, refused before anything is asked; the service is asked again with
    maxRouteLength 1 (its option for a shorter route), and that quote, within the limit, runs."""

    def oversize_unless_shortest(wire: dict[str, Any]) -> None:
        if proxy.quote_bodies[-1].get("maxRouteLength") != 1:
            _oversize(wire)

    proxy.tamper = oversize_unless_shortest
    result = _bridge(cli, proxy, "SOL")
    assert result.exit_code == 0, result.output
    assert [b.get("maxRouteLength") for b in proxy.quote_bodies] == [None, 1]
    assert "asking the service again for the shortest route (maxRouteLength 1)" in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    [refused] = [e for e in events if e["event"] == "Failed"]
    assert "solana-size" in {f["name"] for f in refused["failures"]}
    first_ask = next(i for i, e in enumerate(events) if e["event"] == "AwaitingConfirmation")
    assert first_ask > events.index(refused)  # nothing was asked of the oversize one
    assert events[-1]["event"] == "Finished" and events[-1]["status"] == "success"
