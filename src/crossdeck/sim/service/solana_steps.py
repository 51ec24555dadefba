"""The deposit step of a Solana-origin quote, in the public service's item shape.

``data`` is ``{instructions: [{programId, keys: [{pubkey, isSigner, isWritable}], data}],
addressLookupTableAddresses}`` with each instruction's data in hex without 0x: the depository's
``deposit_native`` / ``deposit_token`` (amount u64 LE, the 32-byte order id), preceded by a
compute-unit limit when the body asks for one.
"""

from __future__ import annotations

import struct
from typing import Any

from solders.instruction import Instruction
from solders.pubkey import Pubkey

from crossdeck.sim.service.currencies import Currency
from crossdeck.sim.service.nonevm import NonEvmChain
from crossdeck.sim.service.steps import deposit_step
from crossdeck.sim.solana import depository

COMPUTE_BUDGET = Pubkey.from_string("ComputeBudget111111111111111111111111111111")
COMPUTE_UNIT_LIMIT = 200_000
SET_COMPUTE_UNIT_LIMIT = 2


def instruction_json(ix: Instruction) -> dict[str, Any]:
    return {
        "programId": str(ix.program_id),
        "keys": [
            {"pubkey": str(m.pubkey), "isSigner": m.is_signer, "isWritable": m.is_writable}
            for m in ix.accounts
        ],
        "data": bytes(ix.data).hex(),
    }


def solana_deposit_step(
    chain: NonEvmChain,
    *,
    request_id: str,
    user: str,
    currency: Currency,
    amount: int,
    order_id: str,
    compute_unit_limit: bool,
) -> dict[str, Any]:
    sender = Pubkey.from_string(user)
    order = bytes.fromhex(order_id.removeprefix("0x"))
    program = depository.Program.at(Pubkey.from_string(chain.depository))  # this chain's
    if currency.is_native:
        deposit = depository.native_instruction(sender, sender, amount, order, program)
    else:
        mint = Pubkey.from_string(currency.address)
        deposit = depository.token_instruction(sender, sender, mint, amount, order, program=program)
    instructions = []
    if compute_unit_limit:
        data = struct.pack("<BI", SET_COMPUTE_UNIT_LIMIT, COMPUTE_UNIT_LIMIT)
        instructions.append({"programId": str(COMPUTE_BUDGET), "keys": [], "data": data.hex()})
    instructions.append(instruction_json(deposit))
    item_data = {
        "instructions": instructions,
        "addressLookupTableAddresses": [chain.lookup_table] if chain.lookup_table else [],
    }
    return deposit_step(request_id, item_data, f"Depositing {currency.symbol} to the relayer")
