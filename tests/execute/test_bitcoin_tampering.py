"""Each way a service (or what sits between it and the wallet) can alter a Bitcoin deposit's
PSBT is refused before anything is signed, exit 7, nothing broadcast: another output, a bigger
fee, a foreign input, another sighash, the deposit to another address or of another amount,
another order id in the OP_RETURN, an input whose amount the PSBT misstates."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from embit.psbt import PSBT
from embit.script import Script
from embit.transaction import TransactionInput, TransactionOutput
from tampering_proxy import TamperingProxy
from test_bitcoin_cli import BITCOIN, BitcoinCli

from crossdeck.sim.bitcoin import SOLVER_ADDRESS, script_of

STRANGER = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"


def _edit(change: Callable[[PSBT], None]) -> Callable[[dict[str, Any]], None]:
    def tamper(quote: dict[str, Any]) -> None:
        data = quote["steps"][0]["items"][0]["data"]
        psbt = PSBT.parse(bytes.fromhex(data["psbt"]))
        change(psbt)
        data["psbt"] = psbt.serialize().hex()

    return tamper


def _change(psbt: PSBT) -> Any:
    return psbt.outputs[-1]  # the world puts the change last (a scope: `.vout` is a copy)


def another_output(psbt: PSBT) -> None:
    _change(psbt).value -= 10_000
    psbt.outputs.append(
        type(psbt.outputs[0])(vout=TransactionOutput(10_000, Script(script_of(STRANGER))))
    )


def bigger_fee(psbt: PSBT) -> None:
    _change(psbt).value -= 500_000


def foreign_input(psbt: PSBT, world: Any) -> None:
    coin = world.bitcoin.utxos(SOLVER_ADDRESS)[0]
    scope = type(psbt.inputs[0])(vin=TransactionInput(bytes.fromhex(coin.txid), coin.vout))
    scope.witness_utxo = TransactionOutput(coin.value, Script(coin.script))
    psbt.inputs.append(scope)
    _change(psbt).value += coin.value


def other_sighash(psbt: PSBT) -> None:
    psbt.inputs[0].sighash_type = 0x83  # SINGLE | ANYONECANPAY


def deposit_elsewhere(psbt: PSBT) -> None:
    psbt.outputs[0].script_pubkey = Script(script_of(STRANGER))


def deposit_less(psbt: PSBT) -> None:
    psbt.outputs[0].value -= 1
    _change(psbt).value += 1


def other_order_id(psbt: PSBT) -> None:
    psbt.outputs[1].script_pubkey = Script(bytes([0x6A, 32]) + bytes(32))


def misstated_input(psbt: PSBT) -> None:
    psbt.inputs[0].witness_utxo.value += 100_000  # the fee looks 100 000 sats smaller
    _change(psbt).value += 100_000


TAMPERINGS: dict[str, tuple[Callable[..., None], str]] = {
    "another output": (another_output, "bitcoin-outputs"),
    "a bigger fee": (bigger_fee, "bitcoin-fee-rate"),
    "a foreign input": (foreign_input, "bitcoin-inputs"),
    "another sighash": (other_sighash, "bitcoin-sighash"),
    "the deposit to another address": (deposit_elsewhere, "bitcoin-deposit"),
    "a smaller deposit": (deposit_less, "bitcoin-deposit"),
    "another order id": (other_order_id, "bitcoin-outputs"),
    "a misstated input amount": (misstated_input, "bitcoin-utxos"),
}


@pytest.fixture(scope="module")
def proxy(world: Any) -> Iterator[TamperingProxy]:
    with TamperingProxy(world.service_url) as running:
        yield running


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_a_tampered_psbt_is_refused_before_signing(
    world: Any, proxy: TamperingProxy, tmp_path: Path, name: str
) -> None:
    cli = BitcoinCli(world, tmp_path)
    world.bitcoin.pay(f"faucet:{cli.btc_address}", cli.btc_address, 5_000_000)
    change, guard = TAMPERINGS[name]
    if change is foreign_input:
        proxy.tamper = _edit(lambda psbt: foreign_input(psbt, world))
    else:
        proxy.tamper = _edit(change)
    try:
        done = cli.invoke(
            "bridge", "--origin-chain", BITCOIN, "--origin-currency", "BTC",
            "--destination-chain", "8453", "--destination-currency", "ETH",
            "--amount-human", "0.001", "--recipient", cli.address, "--yes", "--json",
            CROSSDECK_SERVICE__URL=proxy.url,
        )  # fmt: skip
    finally:
        proxy.tamper = None
    assert done.exit_code == 7, done.output
    assert f'"name":"{guard}","ok":false' in done.output.replace(" ", ""), done.output
    assert '"event":"Signed"' not in done.output
    # nothing left the wallet: its only transaction is the world's funding
    assert len(cli.txs()) == 1
    assert cli.held() == 5_000_000


def test_a_psbt_paying_more_than_asked_everywhere_is_held_to_the_request(
    world: Any, proxy: TamperingProxy, tmp_path: Path
) -> None:
    """The PSBT's deposit, paymentDetails and currencyIn all agree on twice the amount: only
    the request says otherwise, and the one payment rule holds the PSBT to it."""
    cli = BitcoinCli(world, tmp_path)
    world.bitcoin.pay(f"faucet:{cli.btc_address}", cli.btc_address, 5_000_000)

    def more(psbt: PSBT) -> None:
        psbt.outputs[0].value += 100_000
        _change(psbt).value -= 100_000

    def tamper(quote: dict[str, Any]) -> None:
        _edit(more)(quote)
        quote["protocol"]["v2"]["paymentDetails"]["amount"] = "200000"
        quote["details"]["currencyIn"]["amount"] = "200000"

    proxy.tamper = tamper
    try:
        done = cli.invoke(
            "bridge", "--origin-chain", BITCOIN, "--origin-currency", "BTC",
            "--destination-chain", "8453", "--destination-currency", "ETH",
            "--amount-human", "0.001", "--recipient", cli.address, "--yes", "--json",
            CROSSDECK_SERVICE__URL=proxy.url,
        )  # fmt: skip
    finally:
        proxy.tamper = None
    assert done.exit_code == 7, done.output
    flat = done.output.replace(" ", "")
    for guard in ("bitcoin-deposit", "payment-request", "request-amount"):
        assert f'"name":"{guard}","ok":false' in flat, done.output
    assert "you asked to send exactly 0.001 BTC (100000)" in done.output
    assert '"event":"Signed"' not in done.output
    assert len(cli.txs()) == 1
    assert cli.held() == 5_000_000
