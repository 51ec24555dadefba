"""What a refund paid back, read from the refund's own transaction on its chain.

The status says `refund` and names the refund's transaction, but not what it moved. The chain
does: the transaction's ERC-20 Transfer events to the refund address, else the native value it
sent there. This reads them, so that a run that ends in refund can say how much came back, of
what, on which chain, to whom, with which transaction. What cannot be read (no RPC for the
chain, a venue refund, a node that does not answer) leaves the amount unknown, never guessed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.models import NATIVE_ADDRESS

if TYPE_CHECKING:
    from crossdeck.execute.gateways import Gateways
    from crossdeck.models import Currency


@dataclass(frozen=True)
class RefundPaid:
    """One refund: `amount` in the smallest unit of `currency` (an address; the native
    currency is the zero address), None when the chain could not say."""

    tx_hash: str
    chain_id: int | None = None
    currency: str | None = None
    amount: int | None = None
    to: str | None = None
    # the currency's symbol and decimals, as the quote named it (None: not one the quote names)
    symbol: str | None = None
    decimals: int | None = None

    def words(self, chain_name: str | None = None) -> str:
        """'0.1 ETH (100000000000000000) refunded on Base (8453) to 0xabc…, tx 0x…'."""
        from crossdeck.models.display import Unit, units_text

        if self.amount is None:
            what = "an amount the chain did not say"
        elif self.decimals is not None:  # as a wallet shows it, the exact integer beside
            what = units_text(self.amount, Unit(self.symbol or "?", self.decimals))
        else:
            what = f"{self.amount} units of {self.currency}"
        where = chain_name or (f"chain {self.chain_id}" if self.chain_id is not None else None)
        said = f"{what} refunded"
        if where:
            said += f" on {where}"
        if self.to:
            said += f" to {self.to}"
        return f"{said}, tx {self.tx_hash}"

    def to_json(self) -> dict[str, Any]:
        return {
            "chainId": self.chain_id,
            "currency": self.currency,
            "amount": None if self.amount is None else str(self.amount),
            "txHash": self.tx_hash,
            "to": self.to,
            "symbol": self.symbol,
            "decimals": self.decimals,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RefundPaid:
        amount = data.get("amount")
        return cls(
            tx_hash=str(data.get("txHash")),
            chain_id=data.get("chainId"),
            currency=data.get("currency"),
            amount=None if amount is None else int(amount),
            to=data.get("to"),
            symbol=data.get("symbol"),
            decimals=data.get("decimals"),
        )


def named(refund: RefundPaid, known: Iterable[Currency]) -> RefundPaid:
    """`refund` with the symbol and decimals of the one of `known` (the quote's currencies)
    it was paid in."""
    for currency in known:
        same_chain = currency.chain_id is None or currency.chain_id == refund.chain_id
        address = (currency.address or "").lower()
        if same_chain and refund.currency is not None and address == refund.currency.lower():
            return dataclasses.replace(refund, symbol=currency.symbol, decimals=currency.decimals)
    return refund


async def read_refund(
    gateways: Gateways,
    chain_ids: Iterable[int],
    tx_hashes: Sequence[str],
    refund_to: str | None,
    known: Iterable[Currency] = (),
) -> RefundPaid | None:
    """The refund the first of `tx_hashes` found on one of `chain_ids` paid to `refund_to`
    (None when no transaction names a refund), named after the one of `known` it is in."""
    found = await _find(gateways, chain_ids, tx_hashes, refund_to)
    return named(found, list(known)) if found is not None else None


async def _find(
    gateways: Gateways,
    chain_ids: Iterable[int],
    tx_hashes: Sequence[str],
    refund_to: str | None,
) -> RefundPaid | None:
    if not tx_hashes:
        return None
    unread = RefundPaid(tx_hash=tx_hashes[0], to=refund_to)
    chain_ids = list(dict.fromkeys(chain_ids))  # in order, once each
    for tx_hash in tx_hashes:
        for chain_id in chain_ids:  # in order, once each
            gateway = gateways.get(chain_id)
            if gateway is None:
                continue
            try:
                found = await _read(gateway, chain_id, tx_hash, refund_to)
            except (CrossdeckError, OSError):
                continue  # this node cannot say; another chain's might
            if found is not None:
                return found
    return unread


async def _read(
    gateway: Any, chain_id: int, tx_hash: str, refund_to: str | None
) -> RefundPaid | None:
    tx = await gateway.get_transaction(tx_hash)
    if tx is None:
        return None
    receipt = await gateway.get_receipt(tx_hash)
    to = (refund_to or "").lower()
    paid = RefundPaid(tx_hash=tx_hash, chain_id=chain_id, to=refund_to)
    if receipt is not None:
        tokens: dict[str, int] = {}
        for token, _sender, receiver, amount in receipt.transfers:
            if not to or receiver.lower() == to:
                tokens[token] = tokens.get(token, 0) + amount
        if len(tokens) == 1:
            [(token, amount)] = tokens.items()
            return dataclasses.replace(paid, currency=token, amount=amount)
    value = tx.get("value") or 0
    receiver = str(tx.get("to") or "").lower()
    if value and (not to or receiver == to):
        return dataclasses.replace(paid, currency=NATIVE_ADDRESS, amount=int(value))
    return paid
