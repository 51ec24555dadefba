"""The world's Bitcoin: a UTXO chain that checks P2WPKH spends as a node does (BIP-143
signatures verified), replaces by fee, mines at the world's pace behind an Esplora-style API,
and a service that quotes Bitcoin origins with a PSBT of the wallet's own UTXOs and fills once
the deposit is in a block."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from embit import ec
from embit.psbt import PSBT
from embit.script import Witness

from crossdeck.sim.bitcoin import (
    DEMO_ADDRESS,
    DEMO_KEY,
    SOLVER_ADDRESS,
    WALLET_COINS,
    BitcoinChain,
    ChainRefused,
    script_of,
    sign_p2wpkh,
)

BTC = "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8"
NATIVE = "0x0000000000000000000000000000000000000000"
STRANGER = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"


def spend(chain: BitcoinChain, satoshis: int, rate: float = 2.0, key: ec.PrivateKey = DEMO_KEY):
    tx, values = chain.build_spend(DEMO_ADDRESS, [(script_of(STRANGER), satoshis)], rate)
    return sign_p2wpkh(tx, values, key)


def test_a_signed_spend_is_taken_and_mined_with_its_change() -> None:
    chain = BitcoinChain()
    tx = spend(chain, 10_000)
    txid = chain.submit(tx.serialize().hex())
    assert chain.tx(txid).height is None  # in the mempool
    assert chain.mine()["height"] == 1
    assert chain.tx(txid).height == 1
    assert chain.received(STRANGER) == 10_000
    held = sum(o.value for o in chain.utxos(DEMO_ADDRESS))
    assert held == sum(WALLET_COINS) - 10_000 - chain.tx(txid).fee


def test_a_signature_by_another_key_is_refused() -> None:
    chain = BitcoinChain()
    tx = spend(chain, 10_000)
    stranger = ec.PrivateKey(b"\x07" * 32)
    forged = sign_p2wpkh(tx, [WALLET_COINS[0]], stranger)  # the key does not hash to the program
    with pytest.raises(ChainRefused, match="Witness program hash mismatch"):
        chain.submit(forged.serialize().hex())


def test_a_signature_over_other_outputs_is_refused() -> None:
    chain = BitcoinChain()
    tx = spend(chain, 10_000)
    tx.vout[0].value += 1  # signed for 10 000 sats: the BIP-143 digest no longer matches
    with pytest.raises(ChainRefused, match="CHECK\\(MULTI\\)SIG"):
        chain.submit(tx.serialize().hex())


def test_an_unsigned_input_is_refused() -> None:
    chain = BitcoinChain()
    tx = spend(chain, 10_000)
    tx.vin[0].witness = Witness([])
    with pytest.raises(ChainRefused):
        chain.submit(tx.serialize().hex())


def test_a_double_spend_replaces_only_with_a_higher_fee_and_the_first_is_gone() -> None:
    chain = BitcoinChain()
    first = chain.submit(spend(chain, 10_000, rate=2.0).serialize().hex())
    with pytest.raises(ChainRefused, match="insufficient fee"):
        chain.submit(_respend(chain, first, extra_fee=0).serialize().hex())
    second = chain.submit(_respend(chain, first, extra_fee=500).serialize().hex())
    assert chain.tx(first) is None and "replaced by " + second in chain.gone[first]
    chain.mine()
    with pytest.raises(ChainRefused, match="missingorspent"):
        chain.submit(_respend(chain, second, extra_fee=1000).serialize().hex())


def _respend(chain: BitcoinChain, txid: str, extra_fee: int):
    """The same inputs as `txid`, its change smaller by `extra_fee`."""
    tx = chain.parsed(txid)
    values = [chain.prevout(i.txid.hex(), i.vout).value for i in tx.vin]
    tx.vout[-1].value -= extra_fee
    tx.vin[0].sequence -= 1  # another transaction even at the same fee
    return sign_p2wpkh(tx, values, DEMO_KEY)


def test_the_state_file_keeps_the_chain(tmp_path: Any) -> None:
    path = tmp_path / "btc.json"
    chain = BitcoinChain(path)
    txid = chain.submit(spend(chain, 10_000).serialize().hex())
    chain.mine()
    again = BitcoinChain(path)
    assert again.tx(txid).height == 1 and again.received(STRANGER) == 10_000


def test_the_world_quotes_a_psbt_of_the_wallets_utxos_and_fills_after_the_block(
    world: Any,
) -> None:
    esplora = world.info["rpc"]["8253038"]
    assert world.info["wallet"]["bitcoin_address"] == DEMO_ADDRESS
    assert ec.PrivateKey.from_wif(world.info["wallet"]["bitcoin_private_key"]) == DEMO_KEY
    answer = httpx.post(world.service_url + "/quote/v2", json={
        "user": DEMO_ADDRESS, "recipient": world.wallet_address, "tradeType": "EXACT_INPUT",
        "originChainId": 8253038, "destinationChainId": 8453,
        "originCurrency": BTC, "destinationCurrency": NATIVE, "amount": "100000",
    })  # fmt: skip
    assert answer.status_code == 200, answer.text
    quote = answer.json()
    order_id = quote["protocol"]["v2"]["orderId"]
    psbt = PSBT.parse(bytes.fromhex(quote["steps"][0]["items"][0]["data"]["psbt"]))
    utxos = {(u["txid"], u["vout"]): u["value"] for u in httpx.get(
        f"{esplora}/address/{DEMO_ADDRESS}/utxo").json()}  # fmt: skip
    for scope in psbt.inputs:  # the wallet's own outputs, their amounts given
        assert utxos[(scope.vin.txid.hex(), scope.vin.vout)] == scope.witness_utxo.value
    paid = {str(o.vout.script_pubkey.address()) if o.vout.value else "op_return": o.vout.value
            for o in psbt.outputs}  # fmt: skip
    assert paid[SOLVER_ADDRESS] == 100_000
    assert bytes(psbt.outputs[1].vout.script_pubkey.data)[2:].hex() == order_id[2:]
    tx = psbt.tx
    sign_p2wpkh(tx, [s.witness_utxo.value for s in psbt.inputs], DEMO_KEY)
    request_id = quote["steps"][0]["requestId"]
    # every transition the service commits, as it commits it: sampling the status read can
    # miss a short 'pending' (mempool sighting to block) on an idle machine
    changes: list[str] = []
    unsubscribe = world.state.subscribe(
        lambda change: (
            changes.append(str(change.record.status)) if change.record.id == request_id else None
        )
    )
    sent = httpx.post(f"{esplora}/tx", content=tx.serialize().hex())
    assert sent.status_code == 200, sent.text
    seen = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = httpx.get(world.service_url + "/intents/status/v3",
                           params={"requestId": request_id}).json()  # fmt: skip
        seen.append(status["status"])
        if status["status"] in ("success", "failure", "refund"):
            break
        time.sleep(0.05)
    assert seen[-1] == "success", seen
    # (the callback runs just after the commit a read may already see)
    while "success" not in changes and time.monotonic() < deadline:
        time.sleep(0.01)
    unsubscribe()
    assert "pending" in changes and changes.index("pending") < changes.index("success"), changes
    confirmed = httpx.get(f"{esplora}/tx/{sent.text}/status").json()
    assert confirmed["confirmed"] is True
    again = httpx.post(f"{esplora}/tx", content=tx.serialize().hex())
    assert again.status_code == 400 and "already" in again.text
