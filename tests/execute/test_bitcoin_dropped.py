"""A Bitcoin deposit dropped (not replaced) from the mempool, end to end on the CLI against the
demo world: the world's UTXO chain is told (its demo-only control, `POST /_sim/drop-next`) to
drop the next broadcast before a block takes it. The run says what happened and what the user
can do: the transaction never confirmed, nothing left the wallet (its inputs are unspent), the
exact `crossdeck resume` and `crossdeck bridge` commands; the run stays journalled (resume
lists it), nothing is broadcast again by itself. Once the service has given the request up,
`resume` ends the run in words without broadcasting (nothing would fill it), and it is no longer
listed; the wallet holds what it held before."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from execute_support import json_events
from test_bitcoin_cli import BitcoinCli, bridge


@pytest.fixture
async def cli(world: Any, tmp_path: Any) -> BitcoinCli:
    made = BitcoinCli(world, tmp_path)
    world.bitcoin.pay(f"faucet:{made.btc_address}", made.btc_address, 5_000_000)
    return made


def node_knows(cli: BitcoinCli, txid: str) -> bool:
    return httpx.get(f"{cli.esplora}/tx/{txid}").status_code == 200


async def service_status(world: Any, request_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30) as client:
        answer = await client.get(
            f"{world.service_url}/intents/status", params={"requestId": request_id}
        )
    found: dict[str, Any] = answer.json()
    return found


async def test_a_dropped_deposit_is_reported_kept_and_never_sent_twice(
    world: Any, cli: BitcoinCli
) -> None:
    before = cli.held()
    async with httpx.AsyncClient(timeout=30) as client:
        armed = await client.post(f"{cli.esplora}/_sim/drop-next", params={"count": "1"})
    assert armed.status_code == 200 and armed.json() == {"armed": 1}
    done = bridge(
        cli, "--destination-chain", "8453", "--destination-currency", "ETH",
        "--amount-human", "0.001", "--recipient", cli.address,
    )  # fmt: skip
    assert done.returncode != 0
    lines = json_events(done)
    [sent] = [e for e in lines if e.get("event") == "TxSent"]  # broadcast once
    txid = sent["hash"]
    failed = lines[-1]
    assert failed["event"] == "Failed", failed
    request_id = failed["request_id"]
    error = failed["error"]
    # what happened and what the user can do, in words
    assert f"Bitcoin transaction {txid} was dropped from the node's mempool" in error
    assert "never confirmed" in error and "nothing left the wallet" in error
    assert "It was not broadcast again" in error
    assert f"`crossdeck resume {request_id}`" in error
    assert (
        "crossdeck bridge --origin-chain 8253038 --origin-currency "
        "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8 --destination-chain 8453" in error
    ), error
    assert f"--recipient {cli.address}" in error
    # the funds never left, and the node no longer knows the transaction
    assert not node_knows(cli, txid)
    assert cli.held() == before
    # not abandoned: still journalled as sent, and resume lists it
    journal = cli.journal()
    try:
        assert [run.request_id for run in journal.unfinished()] == [request_id]
        [item] = journal.items(request_id)
        assert item.state == "sent" and item.tx_hash == txid
    finally:
        journal.close()
    # the service saw the deposit in the mempool, then gave the request up
    for _ in range(200):
        status = await service_status(world, request_id)
        if status.get("status") in ("failure", "refund"):
            break
        await asyncio.sleep(0.1)
    assert status["status"] == "failure", status
    # resume: the service has given it up, so the same bytes are not broadcast again
    resumed = await asyncio.to_thread(
        cli.invoke, "resume", request_id, "--yes", "--json",
        CROSSDECK_TRACKING__WEBSOCKET="false",
    )  # fmt: skip
    assert resumed.exit_code != 0
    out = [json.loads(line) for line in resumed.stdout.splitlines() if line.startswith("{")]
    assert not [e for e in out if e.get("event") == "TxSent"]
    ended = out[-1]
    assert ended["event"] == "Failed", ended
    assert f"the service has given request {request_id} up (status failure" in ended["error"]
    assert "it is not broadcast again" in ended["error"]
    assert "Nothing left the wallet" in ended["error"]
    assert "ask for a new quote: `crossdeck bridge --origin-chain 8253038" in ended["error"]
    assert not node_knows(cli, txid)
    assert cli.held() == before  # never spent, never spent twice
    journal = cli.journal()
    try:
        assert journal.unfinished() == []  # the run ended: resume no longer offers it
        [item] = journal.items(request_id)
        assert item.state == "expired"
    finally:
        journal.close()
