"""The guards over one EVM transaction: its chain, its addresses, its RPC, its sender, and
what it pays (`payment.py`) and where it goes."""

from __future__ import annotations

from collections.abc import Collection

from crossdeck.execute.guards.base import (
    _EVM_ADDRESS,
    GuardResult,
    PaymentChain,
    _fail,
    _ok,
    _same_address,
)
from crossdeck.execute.guards.payment import (
    destination_guard,
    payment_guards,
)
from crossdeck.models import (
    ChainsResponse,
    Quote,
    QuoteRequest,
    Step,
    TransactionData,
)
from crossdeck.models.text import short


def transaction_guards(
    quote: Quote,
    step: Step,
    tx: TransactionData,
    where: str,
    wallet: str | None,
    rpc_chain_ids: Collection[int] | None,
    paid: PaymentChain,
    chains: ChainsResponse | None,
    request: QuoteRequest | None,
) -> list[GuardResult]:
    results: list[GuardResult] = []
    payment = quote.payment_details
    chain_id = tx.chain_id
    if chain_id is None or chain_id <= 0:
        results.append(_fail("tx-chain-id", "the transaction names no chainId", where))
    elif paid.problem is not None:
        results.append(
            _fail(
                "tx-chain-id",
                f"the transaction is on chain {chain_id}, and the payment's chain is unknown: "
                f"{paid.problem}",
                where,
            )
        )
    elif paid.chain_id is not None and chain_id != paid.chain_id:
        results.append(
            _fail(
                "tx-chain-id",
                f"the transaction is on chain {chain_id} but the payment is on chain "
                f"{paid.chain_id} (paymentDetails.chainId {paid.name!r})",
                where,
            )
        )
    else:
        results.append(_ok("tx-chain-id", f"on chain {chain_id}, the chain being paid on", where))
    odd = [
        f"`{name}` {value!r}"
        for name, value in (("from", tx.from_), ("to", tx.to))
        if value and not _EVM_ADDRESS.fullmatch(value)
    ]
    if odd:
        results.append(
            _fail(
                "tx-address",
                f"{' and '.join(odd)} is not an EVM address (0x and 40 hex digits): not a "
                "transaction crossdeck can sign",
                where,
            )
        )
    if rpc_chain_ids is not None and chain_id is not None:
        if chain_id in rpc_chain_ids:
            results.append(
                _ok("rpc-configured", f"an RPC is configured for chain {chain_id}", where)
            )
        else:
            results.append(
                _fail(
                    "rpc-configured",
                    f"no RPC is configured for chain {chain_id} (set rpc.{chain_id})",
                    where,
                )
            )
    if wallet is not None:
        if tx.from_ is None or _same_address(tx.from_, wallet):
            results.append(_ok("tx-from", f"sent from your wallet {short(wallet)}", where))
        else:
            results.append(
                _fail(
                    "tx-from", f"the transaction is from {tx.from_}, not the wallet {wallet}", where
                )
            )
    if not tx.to:
        results.append(
            _fail("tx-payment", "the transaction has no `to` (contract creation)", where)
        )
        return results
    results += payment_guards(quote, step, tx, wallet, chains, where, request)
    results.append(destination_guard(tx, step, payment, chains, request, where, quote))
    return results


def rpc_chain_guard(item_chain_id: int, rpc_chain_id: int | None, where: str) -> GuardResult:
    if rpc_chain_id == item_chain_id:
        return _ok("rpc-chain-id", f"the RPC serves chain {item_chain_id}", where)
    return _fail(
        "rpc-chain-id",
        f"the transaction is for chain {item_chain_id} but the RPC serves chain {rpc_chain_id}",
        where,
    )
