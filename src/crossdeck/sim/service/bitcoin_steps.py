"""The deposit step of a Bitcoin-origin quote, as the public service sends it: one transaction
item whose data is `{"psbt": "<hex>"}` (realdata/quote/docs-bitcoin-*.json).

The PSBT spends the user's own UTXOs (largest first, each input with its `witness_utxo`: the
previous output's amount and script, what a signer needs for the BIP-143 digest), and pays
exactly the quote's input amount to the solver's address, the order id in an OP_RETURN output
(how the solver ties the deposit to its request), and the change back to the user (none when it
would be dust). The fee is priced at the chain's estimate for the deposit target. The step's
`depositAddress` is "" as in the public answer without a deposit address.
"""

from __future__ import annotations

from typing import Any

from embit.psbt import PSBT
from embit.script import Script
from embit.transaction import TransactionOutput

from crossdeck.sim.bitcoin import op_return_script, script_of
from crossdeck.sim.service.currencies import Currency
from crossdeck.sim.service.errors import invalid
from crossdeck.sim.service.nonevm import NonEvmChain
from crossdeck.sim.service.steps import deposit_step


def bitcoin_deposit_step(
    chain: NonEvmChain,
    *,
    request_id: str,
    user: str,
    currency: Currency,
    amount: int,
    order_id: str,
) -> dict[str, Any]:
    ledger = chain.bitcoin
    if ledger is None:
        raise invalid("Bitcoin as origin needs the world's Bitcoin chain", "UNSUPPORTED_ROUTE")
    order = bytes.fromhex(order_id.removeprefix("0x"))
    outputs = [(script_of(chain.depository), amount), (op_return_script(order), 0)]
    try:
        tx, values = ledger.build_spend(user, outputs)
    except ValueError as exc:
        raise invalid(
            f"{user} cannot pay {amount} sats and the fee: {exc}", "INSUFFICIENT_FUNDS"
        ) from None
    psbt = PSBT(tx)
    for scope, value in zip(psbt.inputs, values, strict=True):
        scope.witness_utxo = TransactionOutput(value, Script(script_of(user)))
    psbt_data = {"psbt": psbt.serialize().hex()}
    return deposit_step(request_id, psbt_data, f"Depositing {currency.symbol} to the relayer")
