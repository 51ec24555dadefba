"""The Solana ledger (`guards.solana_ledger`) on its own: honest shapes count to the lamport
(wrapping SOL into the wallet's own account and closing it back, a Token-2022 account's rent,
a fee payer paying the fees, an account the node says exists paying no rent, the priority fee
rounded up), and the attack the issue found is real: the fund-then-close transaction the
guards refuse, signed outside crossdeck and sent to the world's LiteSVM (the real System, SPL
Token and ATA programs), takes a SOL and the rent from the wallet to another key."""

from __future__ import annotations

import asyncio
import struct
from typing import Any

from crossdeck.execute.guards.solana import solana_ledger
from crossdeck.execute.guards.solana_addresses import (
    TOKEN_ACCOUNT_RENT,
    associated_token_account,
    depository_config,
    depository_vault,
)
from crossdeck.execute.guards.solana_ledger import WRAPPED_SOL_MINT, priority_fee
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.models.base58 import b58encode
from crossdeck.models.solana import (
    ASSOCIATED_TOKEN_PROGRAM,
    COMPUTE_BUDGET_PROGRAM,
    DEPOSIT_NATIVE,
    DEPOSITORY_PROGRAM,
    SYSTEM_PROGRAM,
    TOKEN_2022_PROGRAM,
    TOKEN_PROGRAM,
    SolanaTransactionData,
    decode,
)
from crossdeck.models.solana import SolanaInstruction as Ix

WALLET = "27q8k7t3VAdZgeG679xpgmm9WD4g3EgVfNQaVgfGocPL"
PAYER = b58encode(bytes(range(1, 33)))
OTHER = b58encode(bytes(range(100, 132)))
SOL = 10**9
FEE = 5000


def ix(program: str, keys: list[tuple[str, bool, bool]], data: bytes) -> dict[str, Any]:
    return {
        "programId": program,
        "keys": [{"pubkey": k, "isSigner": s, "isWritable": w} for k, s, w in keys],
        "data": data.hex(),
    }


def deposit_native(wallet: str, lamports: int) -> dict[str, Any]:
    return ix(DEPOSITORY_PROGRAM, [
        (depository_config(), False, False), (wallet, True, True), (wallet, False, False),
        (depository_vault(), False, True), (SYSTEM_PROGRAM, False, False),
    ], DEPOSIT_NATIVE + struct.pack("<Q", lamports) + b"\x11" * 32)  # fmt: skip


def create_ata(wallet: str, owner: str, mint: str, program: str = TOKEN_PROGRAM) -> dict[str, Any]:
    account = associated_token_account(owner, mint, program)
    assert account is not None
    return ix(ASSOCIATED_TOKEN_PROGRAM, [
        (wallet, True, True), (account, False, True), (owner, False, False), (mint, False, False),
        (SYSTEM_PROGRAM, False, False), (program, False, False),
    ], b"\x01")  # fmt: skip


def wsol(wallet: str) -> str:
    account = associated_token_account(wallet, WRAPPED_SOL_MINT, TOKEN_PROGRAM)
    assert account is not None
    return account


def fund_then_close(wallet: str, to: str, lamports: int = SOL) -> list[dict[str, Any]]:
    return [
        create_ata(wallet, wallet, WRAPPED_SOL_MINT),
        ix(SYSTEM_PROGRAM, [(wallet, True, True), (wsol(wallet), False, True)],
           struct.pack("<IQ", 2, lamports)),
        ix(TOKEN_PROGRAM, [(wsol(wallet), False, True)], bytes([17])),
        ix(TOKEN_PROGRAM, [(wsol(wallet), False, True), (to, False, True), (wallet, True, False)],
           bytes([9])),
    ]  # fmt: skip


def data_of(instructions: list[dict[str, Any]]) -> SolanaTransactionData:
    return SolanaTransactionData.from_wire({"instructions": instructions})


def test_wrapping_sol_and_closing_it_back_costs_the_payment_and_the_fee() -> None:
    data = data_of([*fund_then_close(WALLET, WALLET), deposit_native(WALLET, SOL // 10)])
    ledger = solana_ledger(data, WALLET, None)
    assert ledger is not None and ledger.problems == []
    assert ledger.leaving == ledger.shown == SOL // 10 + FEE
    kinds = [c.kind for c in ledger.charges]
    assert kinds == ["fee", "rent", "wrap", "returned", "payment"]
    [returned] = [c for c in ledger.charges if c.kind == "returned"]
    assert returned.lamports == -(SOL + TOKEN_ACCOUNT_RENT[TOKEN_PROGRAM])


def test_closed_to_another_key_it_is_refused_and_the_sums_differ() -> None:
    data = data_of([*fund_then_close(WALLET, OTHER), deposit_native(WALLET, SOL // 10)])
    ledger = solana_ledger(data, WALLET, None)
    assert ledger is not None
    assert [g for g, _ in ledger.problems] == ["solana-close"]
    # the SOL and the rent that went into the account have no line once it closes elsewhere
    assert ledger.leaving == SOL // 10 + FEE + SOL + TOKEN_ACCOUNT_RENT[TOKEN_PROGRAM]
    assert ledger.shown == ledger.leaving  # the lines name the wrap and the rent ...
    assert any(c.kind == "wrap" for c in ledger.charges)  # ... but the close is refused


def test_a_token_2022_account_costs_its_own_rent_and_the_node_can_say_it_exists() -> None:
    mint = b58encode(bytes([9]) * 32)
    instructions = [create_ata(WALLET, WALLET, mint, TOKEN_2022_PROGRAM),
                    deposit_native(WALLET, 1000)]  # fmt: skip
    ledger = solana_ledger(data_of(instructions), WALLET, None)
    assert ledger is not None and ledger.problems == []
    [rent] = [c for c in ledger.charges if c.kind == "rent"]
    assert rent.lamports == 2_074_080 == TOKEN_ACCOUNT_RENT[TOKEN_2022_PROGRAM] and rent.at_most
    account = associated_token_account(WALLET, mint, TOKEN_2022_PROGRAM)
    assert account is not None
    known = solana_ledger(data_of(instructions), WALLET, None, {account: True})
    assert known is not None and known.node_asked
    assert [c.kind for c in known.charges] == ["fee", "payment"]
    assert known.leaving == 1000 + FEE


def test_a_fee_payer_pays_the_fees_and_the_wallet_only_the_deposit() -> None:
    from crossdeck.models import QuoteRequest

    request = QuoteRequest.build(
        user=WALLET, originChainId=SOLANA_CHAIN_ID, destinationChainId=8453,
        originCurrency=SYSTEM_PROGRAM, destinationCurrency="0x" + "0" * 40, amount="1000",
        tradeType="EXACT_INPUT", depositFeePayer=PAYER,
        recipient="0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    )  # fmt: skip
    ledger = solana_ledger(data_of([deposit_native(WALLET, 1000)]), WALLET, request)
    assert ledger is not None and ledger.problems == []
    [fee] = [c for c in ledger.charges if c.kind == "fee"]
    assert fee.payer == PAYER and fee.lamports == 2 * FEE  # two signatures
    assert ledger.leaving == ledger.shown == 1000


def test_the_priority_fee_is_rounded_up_as_the_runtime_does() -> None:
    limit = Ix.from_wire({"programId": COMPUTE_BUDGET_PROGRAM, "keys": [],
                          "data": struct.pack("<BI", 2, 300_001).hex()})  # fmt: skip
    price = Ix.from_wire({"programId": COMPUTE_BUDGET_PROGRAM, "keys": [],
                          "data": struct.pack("<BQ", 3, 3).hex()})  # fmt: skip
    assert priority_fee([decode(limit), decode(price)]) == 1  # 0.900003 lamports, rounded up


def test_the_fund_then_close_attack_is_real_on_the_worlds_chain(world: Any) -> None:
    """Signed outside crossdeck, the shape its guards refuse drains the signer: a fresh key
    (given 2 SOL by the demo wallet) creates its own USDC account, funds it with a SOL and
    closes it to another key, which receives the SOL and the rent."""
    from solders.hash import Hash
    from solders.keypair import Keypair
    from solders.message import MessageV0
    from solders.transaction import VersionedTransaction

    from crossdeck.execute.guards.solana_size import instructions
    from crossdeck.sim.solana.node import USDC_MINT
    from crossdeck.wallet.solana import SolanaGateway

    demo = Keypair.from_base58_string(world.info["wallet"]["solana_private_key"])
    key = Keypair()
    signer = str(key.pubkey())
    victim = b58encode(bytes(range(150, 182)))
    usdc = str(USDC_MINT)
    account = associated_token_account(signer, usdc, TOKEN_PROGRAM)
    assert account is not None
    attack = [
        create_ata(signer, signer, usdc),
        ix(SYSTEM_PROGRAM, [(signer, True, True), (account, False, True)],
           struct.pack("<IQ", 2, SOL)),
        ix(TOKEN_PROGRAM, [(account, False, True), (victim, False, True), (signer, True, False)],
           bytes([9])),
    ]  # fmt: skip
    ledger = solana_ledger(data_of(attack), signer, None)
    assert ledger is not None and [g for g, _ in ledger.problems] == ["solana-close"]
    give = data_of([ix(SYSTEM_PROGRAM, [(str(demo.pubkey()), True, True), (signer, False, True)],
                       struct.pack("<IQ", 2, 2 * SOL))])  # fmt: skip

    async def send(gateway: SolanaGateway, data: SolanaTransactionData, payer: Keypair) -> None:
        blockhash, _ = await gateway.latest_blockhash()
        message = MessageV0.try_compile(
            payer.pubkey(), instructions(data), [], Hash.from_string(blockhash)
        )
        signature = await gateway.send(bytes(VersionedTransaction(message, [payer])))
        for _ in range(100):
            status = await gateway.signature_status(signature)
            if status is not None and status.landed:
                assert status.err is None, status.err
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"{signature} did not land")

    async def run() -> tuple[int, int, int, int]:
        gateway = SolanaGateway(world.rpc[SOLANA_CHAIN_ID])
        try:
            await send(gateway, give, demo)
            before = (await gateway.balance(signer), await gateway.balance(victim))
            await send(gateway, data_of(attack), key)
            return (*before, await gateway.balance(signer), await gateway.balance(victim))
        finally:
            await gateway.aclose()

    signer_before, victim_before, signer_after, victim_after = asyncio.run(run())
    rent = TOKEN_ACCOUNT_RENT[TOKEN_PROGRAM]
    assert victim_after - victim_before == SOL + rent
    assert signer_before - signer_after == SOL + rent + FEE


def test_the_size_is_measured_on_the_quote_when_no_lookup_table_is_used() -> None:
    from crossdeck.execute.guards.solana_size import quote_size_guard

    honest = data_of([deposit_native(WALLET, 1000)])
    fits = quote_size_guard(honest, WALLET, None, "here")
    assert fits.ok and "of 1232 bytes (measured on the quote)" in fits.message
    nothing = ix(SYSTEM_PROGRAM, [(WALLET, True, True), (WALLET, False, True)],
                 struct.pack("<IQ", 2, 0))  # fmt: skip
    big = data_of([deposit_native(WALLET, 1000), *[nothing] * 90])
    over = quote_size_guard(big, WALLET, None, "here")
    assert not over.ok and "over Solana's 1232-byte limit" in over.message
    assert "--max-route-length 1" in over.message
    tables = SolanaTransactionData.from_wire(
        {**big.to_wire(), "addressLookupTableAddresses": [OTHER]}
    )
    deferred = quote_size_guard(tables, WALLET, None, "here")
    assert deferred.ok and "once the node has given the lookup tables" in deferred.message
