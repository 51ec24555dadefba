"""The solver's hands on the SVM chains and Bitcoin: real System / SPL transfers on each of the
world's SVM chains (the recipient's token account created when missing), payments on the
world's Bitcoin ledger, and the depository deposits an SVM chain executed, as payments to match
to requests."""

from __future__ import annotations

import asyncio
import struct

from solders.instruction import AccountMeta, Instruction
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from crossdeck.sim.bitcoin import SOLVER_ADDRESS as BITCOIN_SOLVER
from crossdeck.sim.bitcoin import BitcoinChain
from crossdeck.sim.bitcoin import DepositSeen as BitcoinDepositSeen
from crossdeck.sim.service.nonevm import BITCOIN_CHAIN_ID, SOL_ADDRESS
from crossdeck.sim.service.state import RequestRecord, Tx
from crossdeck.sim.solana.chain import DepositSeen, SolanaChain
from crossdeck.sim.solana.node import SOLVER_KEYPAIR, SolanaNode
from crossdeck.sim.solana.spl import ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM, ata

TRANSFER_CHECKED = 12
CREATE_IDEMPOTENT = 1


def _payment_instructions(
    chain: SolanaChain, currency: str, to: Pubkey, amount: int
) -> list[Instruction]:
    solver = SOLVER_KEYPAIR.pubkey()
    if currency == SOL_ADDRESS:
        return [transfer(TransferParams(from_pubkey=solver, to_pubkey=to, lamports=amount))]
    mint = Pubkey.from_string(currency)
    mint_account = chain.account(mint)
    decimals = chain.decimals(mint)
    if mint_account is None or decimals is None:
        raise RuntimeError(f"{currency} is no mint on the world's Solana")
    token_program = mint_account.owner
    destination = ata(to, mint)
    return [
        Instruction(
            ASSOCIATED_TOKEN_PROGRAM,
            bytes([CREATE_IDEMPOTENT]),
            [
                AccountMeta(solver, True, True),
                AccountMeta(destination, False, True),
                AccountMeta(to, False, False),
                AccountMeta(mint, False, False),
                AccountMeta(SYSTEM_PROGRAM, False, False),
                AccountMeta(token_program, False, False),
            ],
        ),
        Instruction(
            token_program,
            bytes([TRANSFER_CHECKED]) + struct.pack("<QB", amount, decimals),
            [
                AccountMeta(ata(solver, mint), False, True),
                AccountMeta(mint, False, False),
                AccountMeta(destination, False, True),
                AccountMeta(solver, True, False),
            ],
        ),
    ]


async def pay_on_solana(node: SolanaNode, currency: str, to: str, amount: int) -> Tx:
    """Sign and send the solver's transfer; raises when the chain refuses it (nothing paid)."""
    recipient = Pubkey.from_string(to)

    def send(chain: SolanaChain) -> tuple[str, int, int]:
        blockhash, _ = chain.latest_blockhash()
        from solders.hash import Hash

        instructions = _payment_instructions(chain, currency, recipient, amount)
        message = MessageV0.try_compile(
            SOLVER_KEYPAIR.pubkey(), instructions, [], Hash.from_string(blockhash)
        )
        tx = VersionedTransaction(message, [SOLVER_KEYPAIR])
        signature = chain.send(bytes(tx), preflight=True)
        record = chain.records[signature]
        return signature, int(record["slot"]), int(record["blockTime"])

    try:
        signature, slot, when = await node.run(send)
    except Exception as exc:
        raise RuntimeError(
            f"Solana transfer of {amount} {currency} to {to} refused: {exc}"
        ) from exc
    return Tx(
        hash=signature,
        chain_id=node.chain_id,
        from_=str(SOLVER_KEYPAIR.pubkey()),
        to=to,
        value=amount,
        timestamp=when,
        block=slot,
    )


def pay_on_bitcoin(chain: BitcoinChain, leg: str, to: str, amount: int) -> Tx:
    """The solver's payment: a real transaction into the mempool (mined at the world's pace)."""
    payment = chain.pay(leg, to, amount)
    record = chain.tx(payment.txid)
    return Tx(
        hash=payment.txid,
        chain_id=BITCOIN_CHAIN_ID,
        from_=BITCOIN_SOLVER,
        to=to,
        value=amount,
        fee=record.fee if record is not None else 0,
        timestamp=payment.timestamp,
    )


def bitcoin_deposit_tx(seen: BitcoinDepositSeen) -> Tx:
    return Tx(
        hash=seen.txid,
        chain_id=BITCOIN_CHAIN_ID,
        from_=seen.sender or "",
        to=BITCOIN_SOLVER,
        value=seen.amount,
        timestamp=seen.timestamp,
    )


async def bitcoin_confirmed(
    chain: BitcoinChain, record: RequestRecord, poll_s: float
) -> str | None:
    """Wait until the request's Bitcoin deposit is in a block: None then; else the words for
    why it never will be (replaced by another spend of its inputs, or dropped)."""
    txids = [tx.hash for tx in record.in_txs if tx.chain_id == BITCOIN_CHAIN_ID]
    while True:
        for txid in txids:
            found = chain.tx(txid)
            if found is not None and found.height is not None:
                return None
        if txids and all(chain.tx(t) is None for t in txids):
            why = "; ".join(f"{t}: {chain.gone.get(t, 'unknown to the node')}" for t in txids)
            return f"the Bitcoin deposit left the mempool unmined ({why})"
        await asyncio.sleep(poll_s)


def deposit_tx(node: SolanaNode, seen: DepositSeen, timestamp: int) -> Tx:
    deposit = seen.deposit
    return Tx(
        hash=seen.signature,
        chain_id=node.chain_id,
        from_=str(deposit.sender),
        to=str(node.setup.program.program_id),
        value=deposit.amount,
        timestamp=timestamp,
        block=seen.slot,
    )


def deposit_currency(seen: DepositSeen) -> str:
    return SOL_ADDRESS if seen.deposit.mint is None else str(seen.deposit.mint)
