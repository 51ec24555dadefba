"""The Solana item runner against the world's Solana (LiteSVM behind a Solana JSON-RPC on
127.0.0.1): a deposit_native in the public layout, with the world's lookup table, is guarded,
simulated, built again right before signing, signed, journalled, sent once and confirmed (the
vault gains the amount, the wallet loses it and the fee); a lookup table that would resolve an
account elsewhere is refused with nothing sent; a run killed after signing resumes and finds
the journalled signature instead of sending twice; a missing Solana key is refused in words."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from crossdeck.api import ServiceClient
from crossdeck.base.secret import Secret
from crossdeck.execute import Collaborators, Journal, RunOptions, SignRequest
from crossdeck.execute.events import TxConfirmed, TxSent
from crossdeck.execute.gateways import GatewayPool
from crossdeck.execute.guards import GuardRefused
from crossdeck.execute.items import Item, Run, Workshop
from crossdeck.execute.solana_runner import SolanaRunner, read_back
from crossdeck.models import ChainsResponse, Quote
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.sim.solana.depository import VAULT, native_instruction
from crossdeck.sim.solana.node import LOOKUP_TABLE
from crossdeck.venue import VenueClient
from crossdeck.wallet.signer import Signer
from crossdeck.wallet.signers import KeySigner
from crossdeck.wallet.solana import SolanaGateway, SolanaKeySigner, SolanaParts
from helpers.funding import new_key

AMOUNT = 10_000_000  # 0.01 SOL


class NoFollower:
    def nudge(self, request_id: str, *, read: bool = False) -> None:
        return None


def quote_for(wallet: str, order: bytes, amount: int = AMOUNT) -> Quote:
    from solders.pubkey import Pubkey

    owner = Pubkey.from_string(wallet)
    instruction = native_instruction(owner, owner, amount, order)
    item = {
        "instructions": [
            {
                "programId": str(instruction.program_id),
                "keys": [
                    {"pubkey": str(a.pubkey), "isSigner": a.is_signer,
                     "isWritable": a.is_writable}
                    for a in instruction.accounts
                ],
                "data": bytes(instruction.data).hex(),
            }
        ],
        "addressLookupTableAddresses": [str(LOOKUP_TABLE)],
    }  # fmt: skip
    return Quote.from_wire(
        {
            "steps": [
                {
                    "id": "deposit",
                    "kind": "transaction",
                    "requestId": "0x" + order.hex(),
                    "items": [{"status": "incomplete", "data": item}],
                }
            ],
            "protocol": {
                "v2": {
                    "orderId": "0x" + order.hex(),
                    "orderData": {"version": "v1"},
                    "paymentDetails": {
                        "chainId": "solana",
                        "depository": str(instruction.program_id),
                        "currency": "11111111111111111111111111111111",
                        "amount": str(amount),
                    },
                }
            },
        }
    )


@pytest.fixture
async def shop(world: Any, tmp_path: Path) -> AsyncIterator[Workshop]:
    service = ServiceClient(world.service_url, api_key=world.api_key)
    venue = VenueClient(world.venue_url)
    journal = Journal(tmp_path / "journal.sqlite3")
    solana = SolanaParts(
        SolanaKeySigner(Secret(world.info["wallet"]["solana_private_key"]), "world"),
        {SOLANA_CHAIN_ID: world.rpc[SOLANA_CHAIN_ID]},
    )
    parts = Collaborators(
        service, venue, KeySigner(Signer(Secret(new_key()))),
        GatewayPool({}), journal, follower=NoFollower(), solana=solana,  # type: ignore[arg-type]
    )  # fmt: skip
    asked: list[SignRequest] = []

    async def confirm(request: SignRequest) -> bool:
        asked.append(request)
        return True

    shop = Workshop(
        parts, parts.follower, confirm, RunOptions(trust_quote=True, receipt_timeout=30)
    )
    shop.chains = await service.chains()
    shop.asked = asked  # type: ignore[attr-defined]
    try:
        yield shop
    finally:
        await solana.aclose()
        await service.aclose()
        await venue.aclose()
        journal.close()


def solana_gateway(solana: SolanaParts) -> SolanaGateway:
    gateway = solana.gateway(SOLANA_CHAIN_ID)
    assert gateway is not None
    return gateway


def item_of(quote: Quote) -> Item:
    run = Run(quote.request_id or "", quote, None, 1, None)
    return Item(run, 0, 0, quote.steps[0], quote.steps[0].items[0])


async def vault_and_wallet(shop: Workshop) -> tuple[int, int]:
    solana = shop.parts.solana
    assert solana is not None
    return (
        await solana_gateway(solana).balance(str(VAULT)),
        await solana_gateway(solana).balance(solana.signer.address),
    )


async def test_a_deposit_is_guarded_simulated_signed_sent_once_and_confirmed(
    shop: Workshop,
) -> None:
    assert shop.parts.solana is not None
    wallet = shop.parts.solana.signer.address
    quote = quote_for(wallet, os.urandom(32))
    vault_before, wallet_before = await vault_and_wallet(shop)
    runner = SolanaRunner(shop)
    events = [event async for event in runner.run(item_of(quote), None)]
    sent = [e for e in events if isinstance(e, TxSent)]
    confirmed = [e for e in events if isinstance(e, TxConfirmed)]
    assert len(sent) == 1 and len(confirmed) == 1
    assert sent[0].chain_id == SOLANA_CHAIN_ID
    vault_after, wallet_after = await vault_and_wallet(shop)
    assert vault_after - vault_before == AMOUNT
    fee = wallet_before - wallet_after - AMOUNT
    assert 0 < fee <= 10_000  # the signature fee, nothing else
    asked = shop.asked  # type: ignore[attr-defined]
    assert len(asked) == 1
    guards = {g.name: g.ok for g in asked[0].guards}
    assert guards["solana-deposit"] and guards["solana-lookup-table"]
    assert guards["solana-simulation"]
    described = asked[0].describe()
    assert f"deposit {AMOUNT} lamports of SOL" in described
    record = shop.parts.journal.item(quote.request_id or "", 0, 0)
    assert record is not None and record.state == "done" and record.tx_hash == sent[0].hash


async def test_a_lookup_table_that_resolves_an_account_elsewhere_is_refused(
    shop: Workshop, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert shop.parts.solana is not None
    wallet = shop.parts.solana.signer.address
    quote = quote_for(wallet, os.urandom(32))
    real = SolanaGateway.lookup_table

    async def elsewhere(gateway: SolanaGateway, address: str) -> list[str]:
        entries = await real(gateway, address)
        return [str(VAULT) if e == str(VAULT) else e for e in entries]

    # the table as the chain gives it resolves through solders' compile; now make the read
    # back see a table whose vault entry is another key
    compiled: dict[str, Any] = {}

    def tampered_read_back(message: Any, tables: dict[str, list[str]]) -> Any:
        swapped = {
            k: ["So11111111111111111111111111111111111111112" if e == str(VAULT) else e
                for e in v]
            for k, v in tables.items()
        }  # fmt: skip
        compiled["lookups"] = len(message.address_table_lookups)
        return read_back(message, swapped)

    monkeypatch.setattr(SolanaGateway, "lookup_table", elsewhere)
    monkeypatch.setattr("crossdeck.execute.solana_runner.read_back", tampered_read_back)
    before = await vault_and_wallet(shop)
    runner = SolanaRunner(shop)
    with pytest.raises(GuardRefused) as refused:
        [event async for event in runner.run(item_of(quote), None)]
    assert compiled["lookups"] >= 1, "the world's table was not used"
    assert "solana-lookup-table" in str(refused.value)
    assert "elsewhere" in str(refused.value)
    assert await vault_and_wallet(shop) == before
    assert shop.parts.journal.item(quote.request_id or "", 0, 0) is None


async def test_a_run_killed_after_signing_resumes_without_sending_twice(
    shop: Workshop, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert shop.parts.solana is not None
    wallet = shop.parts.solana.signer.address
    quote = quote_for(wallet, os.urandom(32))
    item = item_of(quote)
    runner = SolanaRunner(shop)

    class Killed(Exception):
        pass

    def crash(point: str, step: str | None) -> None:
        if point == "after-send":
            raise Killed

    monkeypatch.setattr("crossdeck.execute.crash.crash_point", crash)
    before = await vault_and_wallet(shop)
    with pytest.raises(Killed):
        [event async for event in runner.run(item, None)]
    record = shop.parts.journal.item(*item.key)
    assert record is not None and record.state == "sent" and record.raw_tx
    monkeypatch.undo()
    sends: list[bytes] = []
    real_send = SolanaGateway.send

    async def counted(gateway: SolanaGateway, wire: bytes) -> str:
        sends.append(wire)
        return await real_send(gateway, wire)

    monkeypatch.setattr(SolanaGateway, "send", counted)
    events = [event async for event in runner.run(item, record)]
    assert sends == []  # found on chain: not sent again
    assert any(isinstance(e, TxConfirmed) for e in events)
    vault_after, _ = await vault_and_wallet(shop)
    assert vault_after - before[0] == AMOUNT  # once
    final = shop.parts.journal.item(*item.key)
    assert final is not None and final.state == "done"


async def test_without_a_solana_key_the_item_is_refused_in_words(shop: Workshop) -> None:
    solana = shop.parts.solana
    assert solana is not None
    quote = quote_for(solana.signer.address, os.urandom(32))
    shop.parts.solana = None
    try:
        with pytest.raises(GuardRefused, match="no Solana key"):
            [event async for event in SolanaRunner(shop).run(item_of(quote), None)]
    finally:
        shop.parts.solana = solana


def test_chains_lists_solana_with_its_family(world: Any) -> None:
    import httpx

    chains = ChainsResponse.from_wire(httpx.get(f"{world.service_url}/chains").json())
    assert chains.family(SOLANA_CHAIN_ID).value == "svm"


def _drop_sends_and_shorten_blockhashes(
    monkeypatch: pytest.MonkeyPatch, sends: list[bytes]
) -> None:
    """The node answers every send with its signature and drops it (as a leader under load
    does), and hands out blockhashes that live 2 blocks (the world's slots are 0.4 s): the
    transaction never lands and expires within about a second."""
    real_blockhash = SolanaGateway.latest_blockhash

    async def dropped(gateway: SolanaGateway, wire: bytes) -> str:
        from solders.transaction import VersionedTransaction

        sends.append(wire)
        return str(VersionedTransaction.from_bytes(wire).signatures[0])

    async def short_lived(gateway: SolanaGateway) -> tuple[str, int]:
        blockhash, _ = await real_blockhash(gateway)
        return blockhash, await gateway.block_height() + 2

    monkeypatch.setattr(SolanaGateway, "send", dropped)
    monkeypatch.setattr(SolanaGateway, "latest_blockhash", short_lived)


def _journalled_run(shop: Workshop, quote: Quote, wallet: str) -> str:
    request_id = quote.request_id or ""
    shop.parts.journal.start_run(request_id, wallet=wallet, quote=quote.to_wire(), options={})
    return request_id


@pytest.mark.parametrize("where", ["while confirming", "on resume"])
async def test_an_expired_unlanded_transaction_ends_the_run_in_the_journal(
    shop: Workshop, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    from crossdeck.execute import NothingToResume
    from crossdeck.execute.errors import ExecutionError
    from crossdeck.execute.run_record import resumable_run

    assert shop.parts.solana is not None
    wallet = shop.parts.solana.signer.address
    quote = quote_for(wallet, os.urandom(32))
    item = item_of(quote)
    journal = shop.parts.journal
    request_id = _journalled_run(shop, quote, wallet)
    before = await vault_and_wallet(shop)
    sends: list[bytes] = []
    _drop_sends_and_shorten_blockhashes(monkeypatch, sends)
    runner = SolanaRunner(shop)
    if where == "on resume":

        class Killed(Exception):
            pass

        def crash(point: str, step: str | None) -> None:
            if point == "after-send":
                raise Killed

        monkeypatch.setattr("crossdeck.execute.crash.crash_point", crash)
        with pytest.raises(Killed):
            [event async for event in runner.run(item, None)]
        record = journal.item(*item.key)
        assert record is not None and record.state == "sent"
        assert [r.request_id for r in journal.unfinished()] == [request_id]  # killed: listed
        solana = shop.parts.solana
        valid = int((record.signed or {})["lastValidBlockHeight"])
        for _ in range(50):  # the blockhash lives 2 blocks of 0.4 s
            if await solana_gateway(solana).block_height() > valid:
                break
            await asyncio.sleep(0.2)
        with pytest.raises(ExecutionError, match="expired") as ended:
            [event async for event in runner.run(item, record)]
        assert len(sends) == 1  # not sent again on resume: it could never land
    else:
        with pytest.raises(ExecutionError, match="expired unlanded") as ended:
            [event async for event in runner.run(item, None)]
        assert len(sends) == 1
    assert "nothing was taken" in str(ended.value)
    journal.set_run_state(request_id, "failed", error=str(ended.value))  # as the executor does
    item_record = journal.item(*item.key)
    assert item_record is not None and item_record.state == "expired"
    run = journal.run(request_id)
    assert run is not None and not run.sent and not run.unfinished and run.expired
    assert run.label == "expired unlanded, nothing taken"
    assert journal.unfinished() == [] and journal.latest_unfinished() is None
    with pytest.raises(NothingToResume, match="expired unlanded"):
        resumable_run(journal, request_id, wallet, SOLANA_CHAIN_ID)
    assert await vault_and_wallet(shop) == before  # nothing was taken, not even a fee
