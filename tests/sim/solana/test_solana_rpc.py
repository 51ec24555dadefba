"""The world's Solana through its JSON-RPC only: raw JSON-RPC over httpx, transactions built and
signed with `solders`, as a client or a common Solana library would talk to a validator."""

from __future__ import annotations

import base64
import struct
from itertools import count
from pathlib import Path
from typing import Any

import httpx
import pytest
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from crossdeck.sim.solana import depository
from crossdeck.sim.solana.b58 import b58encode
from crossdeck.sim.solana.node import (
    DEMO_KEYPAIR,
    LOOKUP_TABLE,
    USDC_MINT,
    WALLET_LAMPORTS,
    WALLET_USDC_UNITS,
    start_solana,
)
from crossdeck.sim.solana.spl import TOKEN_PROGRAM, ata

_ids = count(1)
USER = DEMO_KEYPAIR


class Rpc:
    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.AsyncClient(timeout=30)

    async def raw(self, method: str, *params: Any) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": list(params)}
        reply = await self.http.post(self.url, json=body)
        reply.raise_for_status()
        return reply.json()

    async def __call__(self, method: str, *params: Any) -> Any:
        answer = await self.raw(method, *params)
        assert "error" not in answer, answer
        return answer["result"]

    async def blockhash(self) -> Hash:
        result = await self("getLatestBlockhash", {"commitment": "confirmed"})
        return Hash.from_string(result["value"]["blockhash"])

    async def sign(
        self, instructions: list[Instruction], signers: list[Keypair], tables: list[Any] = ()
    ) -> VersionedTransaction:
        message = MessageV0.try_compile(
            signers[0].pubkey(), instructions, list(tables), await self.blockhash()
        )
        return VersionedTransaction(message, signers)

    async def send(self, tx: VersionedTransaction, encoding: str = "base64") -> str:
        wire = bytes(tx)
        text = base64.b64encode(wire).decode() if encoding == "base64" else b58encode(wire)
        return await self("sendTransaction", text, {"encoding": encoding})

    async def token_amount(self, account: Pubkey) -> int:
        result = await self("getTokenAccountBalance", str(account))
        return int(result["value"]["amount"])

    async def lamports(self, key: Pubkey) -> int:
        return (await self("getBalance", str(key)))["value"]


@pytest.fixture
async def rpc(tmp_path: Path):
    node = await start_solana(slot_seconds=0.05)
    client = Rpc(node.rpc_url)
    try:
        yield client
    finally:
        await client.http.aclose()
        await node.stop()


def transfer_checked(source: Pubkey, mint: Pubkey, dest: Pubkey, owner: Pubkey, amount: int):
    return Instruction(
        TOKEN_PROGRAM,
        bytes([12]) + struct.pack("<QB", amount, 6),
        [
            AccountMeta(source, False, True),
            AccountMeta(mint, False, False),
            AccountMeta(dest, False, True),
            AccountMeta(owner, True, False),
        ],
    )


def create_ata(payer: Pubkey, owner: Pubkey, mint: Pubkey) -> Instruction:
    from crossdeck.sim.solana.spl import ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM

    return Instruction(
        ASSOCIATED_TOKEN_PROGRAM,
        bytes([1]),  # CreateIdempotent
        [
            AccountMeta(payer, True, True),
            AccountMeta(ata(owner, mint), False, True),
            AccountMeta(owner, False, False),
            AccountMeta(mint, False, False),
            AccountMeta(SYSTEM_PROGRAM, False, False),
            AccountMeta(TOKEN_PROGRAM, False, False),
        ],
    )


async def test_node_answers_the_common_read_methods(rpc: Rpc):
    assert await rpc("getHealth") == "ok"
    assert "solana-core" in await rpc("getVersion")
    slot = await rpc("getSlot")
    assert isinstance(slot, int) and slot > 0
    assert isinstance(await rpc("getBlockHeight"), int)
    assert await rpc.lamports(USER.pubkey()) == WALLET_LAMPORTS
    assert await rpc.token_amount(ata(USER.pubkey(), USDC_MINT)) == WALLET_USDC_UNITS
    assert await rpc("getMinimumBalanceForRentExemption", 165) == 2039280

    mint = (await rpc("getAccountInfo", str(USDC_MINT), {"encoding": "jsonParsed"}))["value"]
    assert mint["owner"] == str(TOKEN_PROGRAM)
    assert mint["data"]["parsed"]["type"] == "mint"
    assert mint["data"]["parsed"]["info"]["decimals"] == 6
    raw = (await rpc("getAccountInfo", str(USDC_MINT), {"encoding": "base64"}))["value"]
    assert len(base64.b64decode(raw["data"][0])) == 82
    assert (await rpc("getAccountInfo", str(Pubkey.new_unique())))["value"] is None

    table = (await rpc("getAccountInfo", str(LOOKUP_TABLE), {"encoding": "jsonParsed"}))["value"]
    addresses = table["data"]["parsed"]["info"]["addresses"]
    assert str(depository.VAULT) in addresses and str(USDC_MINT) in addresses

    many = (
        await rpc(
            "getMultipleAccounts",
            [str(USDC_MINT), str(Pubkey.new_unique())],
            {"encoding": "base64"},
        )
    )["value"]
    assert many[0]["owner"] == str(TOKEN_PROGRAM) and many[1] is None

    owned = await rpc(
        "getTokenAccountsByOwner",
        str(USER.pubkey()),
        {"mint": str(USDC_MINT)},
        {"encoding": "jsonParsed"},
    )
    [entry] = owned["value"]
    assert entry["pubkey"] == str(ata(USER.pubkey(), USDC_MINT))
    assert entry["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"] == str(
        WALLET_USDC_UNITS
    )

    latest = (await rpc("getLatestBlockhash"))["value"]
    assert (await rpc("isBlockhashValid", latest["blockhash"]))["value"] is True
    assert (await rpc("isBlockhashValid", str(Hash.new_unique())))["value"] is False

    answer = await rpc.raw("getNoSuchThing")
    assert answer["error"]["code"] == -32601
    answer = await rpc.raw("getBalance", "not-a-key")
    assert answer["error"]["code"] == -32602


async def test_spl_transfer_creating_the_recipients_token_account(rpc: Rpc):
    recipient = Pubkey.new_unique()
    source = ata(USER.pubkey(), USDC_MINT)
    tx = await rpc.sign(
        [
            create_ata(USER.pubkey(), recipient, USDC_MINT),
            transfer_checked(
                source, USDC_MINT, ata(recipient, USDC_MINT), USER.pubkey(), 1_500_000
            ),
        ],
        [USER],
    )
    fee = (await rpc("getFeeForMessage", base64.b64encode(bytes(tx.message)).decode()))["value"]
    assert fee == 5000
    simulated = (
        await rpc(
            "simulateTransaction",
            base64.b64encode(bytes(tx)).decode(),
            {"encoding": "base64", "sigVerify": True},
        )
    )["value"]
    assert simulated["err"] is None, simulated
    assert any(str(TOKEN_PROGRAM) in line for line in simulated["logs"]), simulated

    signature = await rpc.send(tx, encoding="base58")
    assert signature == str(tx.signatures[0])
    statuses = (await rpc("getSignatureStatuses", [signature]))["value"]
    assert statuses[0]["err"] is None
    assert statuses[0]["confirmationStatus"] in ("confirmed", "finalized")
    assert await rpc.token_amount(ata(recipient, USDC_MINT)) == 1_500_000
    assert await rpc.token_amount(source) == WALLET_USDC_UNITS - 1_500_000

    found = await rpc(
        "getTransaction", signature, {"encoding": "json", "maxSupportedTransactionVersion": 0}
    )
    assert found["meta"]["err"] is None and found["version"] == 0
    post = {b["owner"]: b["uiTokenAmount"]["amount"] for b in found["meta"]["postTokenBalances"]}
    assert post[str(recipient)] == "1500000"
    assert found["transaction"]["signatures"] == [signature]
    answer = await rpc.raw("getTransaction", signature)
    assert (
        answer["error"]["code"] == -32015
    )  # a v0 transaction needs maxSupportedTransactionVersion

    again = await rpc.raw(
        "sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"}
    )
    assert again["error"]["code"] == -32002
    assert again["error"]["data"]["err"] == "AlreadyProcessed"


async def test_a_failed_transfer_is_refused_in_preflight_or_recorded_without_it(rpc: Rpc):
    recipient = Pubkey.new_unique()
    too_much = transfer(
        TransferParams(from_pubkey=USER.pubkey(), to_pubkey=recipient, lamports=WALLET_LAMPORTS * 2)
    )
    tx = await rpc.sign([too_much], [USER])
    answer = await rpc.raw(
        "sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"}
    )
    assert answer["error"]["code"] == -32002
    assert answer["error"]["data"]["err"] == {"InstructionError": [0, {"Custom": 1}]}
    assert (await rpc("getSignatureStatuses", [str(tx.signatures[0])]))["value"] == [None]

    signature = await rpc(
        "sendTransaction",
        base64.b64encode(bytes(tx)).decode(),
        {"encoding": "base64", "skipPreflight": True},
    )
    [status] = (await rpc("getSignatureStatuses", [signature]))["value"]
    assert status["err"] == {"InstructionError": [0, {"Custom": 1}]}
    assert await rpc.lamports(recipient) == 0
    assert await rpc.lamports(USER.pubkey()) == WALLET_LAMPORTS - 5000  # the fee is paid


async def test_a_tampered_signature_or_an_unknown_blockhash_is_refused(rpc: Rpc):
    recipient = Pubkey.new_unique()
    other = Keypair()
    ix = transfer(TransferParams(from_pubkey=USER.pubkey(), to_pubkey=recipient, lamports=1000))
    message = MessageV0.try_compile(USER.pubkey(), [ix], [], await rpc.blockhash())
    forged = VersionedTransaction.populate(message, [other.sign_message(bytes(message))])
    answer = await rpc.raw(
        "sendTransaction", base64.b64encode(bytes(forged)).decode(), {"encoding": "base64"}
    )
    assert answer["error"]["code"] == -32003

    stale = MessageV0.try_compile(USER.pubkey(), [ix], [], Hash.new_unique())
    tx = VersionedTransaction(stale, [USER])
    answer = await rpc.raw(
        "sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"}
    )
    assert answer["error"]["code"] == -32002
    assert answer["error"]["data"]["err"] == "BlockhashNotFound"
    assert await rpc.lamports(recipient) == 0


async def _lookup_table(rpc: Rpc):
    from solders.address_lookup_table_account import AddressLookupTableAccount

    table = (await rpc("getAccountInfo", str(LOOKUP_TABLE), {"encoding": "jsonParsed"}))["value"]
    addresses = [Pubkey.from_string(a) for a in table["data"]["parsed"]["info"]["addresses"]]
    return AddressLookupTableAccount(LOOKUP_TABLE, addresses)


async def test_deposit_native_moves_sol_to_the_vault_and_logs_the_event(rpc: Rpc):
    order_id = bytes(range(32))
    amount = 250_000_000
    ix = depository.native_instruction(USER.pubkey(), USER.pubkey(), amount, order_id)
    assert ix.data.hex().startswith("0d9e0ddf5fd51c06")
    vault_before = await rpc.lamports(depository.VAULT)
    user_before = await rpc.lamports(USER.pubkey())
    tx = await rpc.sign([ix], [USER], [await _lookup_table(rpc)])
    assert tx.message.address_table_lookups, "the vault and config are loaded from the table"
    signature = await rpc.send(tx)
    assert await rpc.lamports(depository.VAULT) == vault_before + amount
    assert await rpc.lamports(USER.pubkey()) == user_before - amount - 5000

    found = await rpc(
        "getTransaction", signature, {"encoding": "base64", "maxSupportedTransactionVersion": 0}
    )
    assert base64.b64decode(found["transaction"][0]) == bytes(tx)  # what the user signed
    logs = found["meta"]["logMessages"]
    assert logs[0] == f"Program {depository.PROGRAM_ID} invoke [1]"
    assert logs[-1] == f"Program {depository.PROGRAM_ID} success"
    event = next(line for line in logs if line.startswith("Program data: "))
    body = base64.b64decode(event.removeprefix("Program data: "))
    assert body[:8] == depository.DEPOSIT_EVENT
    assert body[8:40] == bytes(USER.pubkey()) and body[40] == 0
    assert struct.unpack("<Q", body[41:49])[0] == amount and body[49:81] == order_id
    assert found["meta"]["loadedAddresses"]["writable"] == [str(depository.VAULT)]


async def test_deposit_token_moves_usdc_to_the_vaults_account_with_a_second_fee_payer(rpc: Rpc):
    payer = Keypair()
    await _fund(rpc, payer.pubkey(), 10**9)
    order_id = b"\x42" * 32
    amount = 12_345_678
    vault_usdc = ata(depository.VAULT, USDC_MINT)
    before = await rpc.token_amount(vault_usdc)
    ix = depository.token_instruction(USER.pubkey(), USER.pubkey(), USDC_MINT, amount, order_id)
    message = MessageV0.try_compile(
        payer.pubkey(), [ix], [await _lookup_table(rpc)], await rpc.blockhash()
    )
    tx = VersionedTransaction(message, [payer, USER])
    user_lamports = await rpc.lamports(USER.pubkey())
    signature = await rpc.send(tx)
    assert await rpc.token_amount(vault_usdc) == before + amount
    assert await rpc.lamports(USER.pubkey()) == user_lamports  # the fee payer paid
    found = await rpc(
        "getTransaction", signature, {"encoding": "json", "maxSupportedTransactionVersion": 0}
    )
    assert any("Instruction: DepositToken" in line for line in found["meta"]["logMessages"])


@pytest.mark.parametrize(
    "tamper",
    ["config", "vault", "vault_token_account", "discriminator", "short_data"],
)
async def test_the_depository_refuses_what_the_program_would(rpc: Rpc, tamper: str):
    ix = depository.token_instruction(
        USER.pubkey(), USER.pubkey(), USDC_MINT, 1_000_000, b"\x01" * 32
    )
    keys = list(ix.accounts)
    data = bytes(ix.data)
    index = {"config": 0, "vault": 3, "vault_token_account": 6}.get(tamper)
    if index is not None:
        old = keys[index]
        keys[index] = AccountMeta(Pubkey.new_unique(), old.is_signer, old.is_writable)
    if tamper == "discriminator":
        data = b"\x00" * 8 + data[8:]
    if tamper == "short_data":
        data = data[:40]
    tx = await rpc.sign([Instruction(ix.program_id, data, keys)], [USER])
    before = await rpc.token_amount(ata(USER.pubkey(), USDC_MINT))
    answer = await rpc.raw(
        "sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"}
    )
    assert answer["error"]["code"] == -32002
    err = answer["error"]["data"]["err"]
    assert err["InstructionError"][0] == 0 and "Custom" in err["InstructionError"][1]
    assert await rpc.token_amount(ata(USER.pubkey(), USDC_MINT)) == before


async def _fund(rpc: Rpc, key: Pubkey, lamports: int) -> None:
    tx = await rpc.sign(
        [transfer(TransferParams(from_pubkey=USER.pubkey(), to_pubkey=key, lamports=lamports))],
        [USER],
    )
    await rpc.send(tx)


async def test_the_chain_is_kept_in_its_state_file(tmp_path: Path):
    state = tmp_path / "solana.json"
    node = await start_solana(state_file=state, slot_seconds=0.05)
    client = Rpc(node.rpc_url)
    recipient = Pubkey.new_unique()
    try:
        tx = await client.sign(
            [
                transfer(
                    TransferParams(
                        from_pubkey=USER.pubkey(), to_pubkey=recipient, lamports=1_000_000
                    )
                )
            ],
            [USER],
        )
        signature = await client.send(tx)
    finally:
        await client.http.aclose()
        await node.stop()
    node = await start_solana(state_file=state, slot_seconds=0.05)
    client = Rpc(node.rpc_url)
    try:
        assert await client.lamports(recipient) == 1_000_000
        assert await client.token_amount(ata(USER.pubkey(), USDC_MINT)) == WALLET_USDC_UNITS
        [status] = (await client("getSignatureStatuses", [signature]))["value"]
        assert status is not None and status["err"] is None
        answer = await client.raw(
            "sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"}
        )
        assert answer["error"]["code"] == -32002  # never executed twice, even after a restart
    finally:
        await client.http.aclose()
        await node.stop()
