"""A transaction a wallet sent itself (the browser wallet), held to the one the guards passed.

Such a wallet returns a hash, not signed bytes: the user could have edited the transaction in
the wallet, or the wallet could be broken or hostile. So crossdeck fetches the transaction by
its hash from the chain's own RPC and compares what decides where the money goes (chain, from,
to, value, data) with the guarded transaction. Gas, fees and nonce are the wallet's to choose.
A difference stops the run and says what differs.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from crossdeck.execute.errors import ExecutionError
from crossdeck.models.units import tx_int

if TYPE_CHECKING:
    from crossdeck.wallet.gateway import EvmGateway


class WalletSentOther(ExecutionError):
    """The wallet sent a transaction other than the one crossdeck checked."""


def _lower(value: Any) -> str:
    return str(value or "").lower()


def differences(guarded: dict[str, Any], found: dict[str, Any], chain_id: int) -> list[str]:
    """What differs between the guarded transaction and the one found on chain, in words."""
    diffs: list[str] = []
    found_chain = found.get("chainId")
    if found_chain is not None and tx_int("chainId", found_chain) != chain_id:
        diffs.append(f"chain {found_chain} instead of {chain_id}")
    if _lower(found.get("from")) != _lower(guarded.get("from")):
        diffs.append(f"from {found.get('from')} instead of {guarded.get('from')}")
    if _lower(found.get("to")) != _lower(guarded.get("to")):
        diffs.append(f"to {found.get('to')} instead of {guarded.get('to')}")
    value = tx_int("value", found.get("value") or 0)
    if value != tx_int("value", guarded.get("value") or 0):
        diffs.append(f"value {value} instead of {guarded.get('value') or 0}")
    data = _lower(found.get("input", found.get("data")) or "0x")
    want = _lower(guarded.get("data") or "0x")
    if data != want:
        diffs.append(f"data {_cut(data)} instead of {_cut(want)}")
    return diffs


def _cut(data: str) -> str:
    return data if len(data) <= 26 else f"{data[:18]}…{data[-6:]} ({(len(data) - 2) // 2} bytes)"


async def fetch_sent(gateway: EvmGateway, tx_hash: str, wait: float, poll: float) -> dict[str, Any]:
    """The transaction by hash, waiting for the node to know it (a wallet may hand back the
    hash before its RPC has passed the transaction on)."""
    deadline = time.monotonic() + wait
    while True:
        found = await gateway.get_transaction(tx_hash)
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            raise ExecutionError(
                f"the wallet says it sent {tx_hash}, but chain {gateway.expected_chain_id} "
                f"does not know it after {wait:g} s",
                hint="look the hash up in the wallet; `crossdeck resume` finds it once mined",
            )
        await asyncio.sleep(poll)


def hold(guarded: dict[str, Any], found: dict[str, Any], chain_id: int, tx_hash: str) -> None:
    """Raise `WalletSentOther` when the sent transaction is not the guarded one."""
    diffs = differences(guarded, found, chain_id)
    if diffs:
        raise WalletSentOther(
            f"the wallet sent {tx_hash}, which is not the transaction crossdeck checked: "
            + "; ".join(diffs),
            hint="the run stops here; check the wallet's history for what it sent",
        )
