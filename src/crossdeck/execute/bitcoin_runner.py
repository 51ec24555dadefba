"""Bitcoin deposits (a PSBT) through the journalled template.

prepare: the item guards (`guards.bitcoin`: the PSBT decoded in full and held to the quote),
  then against the node: every input is an unspent output of this wallet of exactly the amount
  the PSBT says (`bitcoin-utxos`), and the fee rate is at most `guards.bitcoin_fee_multiple`
  times the node's fastest estimate (`bitcoin-fee-rate`); the confirm request says every input,
  output, the change and the fee in words. Nothing is asked before all of this passes.
sign: every input signed SIGHASH_ALL by the wallet's key (`wallet.bitcoin`); the raw
  transaction and its txid are journalled (synced) before anything is broadcast.
send: broadcast once to the Esplora-style API; the transaction is followed until it is in a
  block. A transaction the node no longer knows was replaced (another transaction spends one of
  its inputs: it is named; the run ends) or dropped (every input unspent: nothing left the
  wallet). Neither is sent again silently: a dropped one stays journalled as sent, and the
  user is told the exact `crossdeck resume` that decides it.
finish (resume): the journalled txid is looked up: known, it is followed on; unknown and an
  input spent by another transaction, it was replaced: the run ends in words, nothing is
  re-sent; unknown and every input still unspent (dropped, or never reached the node): while
  the service still waits for the deposit, the SAME signed bytes are broadcast again (same
  inputs, same txid: it can never pay twice); once the service has given the request up, the
  run ends in words (nothing would fill it) with the command that asks for a new quote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.describe.bitcoin import btc, psbt_lines
from crossdeck.execute.errors import ExecutionError
from crossdeck.execute.events import SignRequest
from crossdeck.execute.guards import GuardResult, refused, require
from crossdeck.execute.guards.bitcoin import deposit_address
from crossdeck.execute.items import Item, Prepared
from crossdeck.execute.journal import ItemRecord
from crossdeck.execute.polled_runner import Broadcast, Landed, PolledRunner, Waiting
from crossdeck.models.addresses import BITCOIN_CHAIN_ID
from crossdeck.wallet.bitcoin_psbt import DecodedPsbt, decode_psbt
from crossdeck.wallet.errors import InvalidKeyError

if TYPE_CHECKING:
    from crossdeck.models import QuoteRequest
    from crossdeck.wallet.bitcoin import BitcoinParts

FASTEST_TARGET = "1"


def new_quote_command(request: QuoteRequest | None) -> str:
    """The `crossdeck bridge` that asks again for what the run asked (the wallet's own
    inputs, still unspent, pay it): the exact command when the request is known."""
    if request is None:
        return "`crossdeck bridge` with the same options"
    words = [
        "crossdeck bridge",
        f"--origin-chain {request.origin_chain_id}",
        f"--origin-currency {request.origin_currency}",
        f"--destination-chain {request.destination_chain_id}",
        f"--destination-currency {request.destination_currency}",
        f"--amount {request.amount}",
    ]
    if request.trade_type != "EXACT_INPUT":
        words.append(f"--trade-type {request.trade_type}")
    if request.recipient:
        words.append(f"--recipient {request.recipient}")
    return "`" + " ".join(words) + "`"


async def utxo_guard(decoded: DecodedPsbt, bitcoin: BitcoinParts, where: str) -> GuardResult:
    """Every input is an unspent output of the wallet, of the amount the PSBT says."""
    held = await bitcoin.gateway.utxos(bitcoin.signer.address)
    for number, spent in enumerate(decoded.inputs):
        value = held.get((spent.txid, spent.vout))
        if value is None:
            return GuardResult(
                "bitcoin-utxos", False,
                f"input {number} ({spent.txid}:{spent.vout}) is not an unspent output of this "
                "wallet on chain: refused", where,
            )  # fmt: skip
        if value != spent.value:
            return GuardResult(
                "bitcoin-utxos", False,
                f"input {number} holds {value} sats on chain, the PSBT says {spent.value}: "
                "refused (the fee would not be what it shows)", where,
            )  # fmt: skip
    return GuardResult(
        "bitcoin-utxos", True, "every input is an unspent output of this wallet on chain", where
    )


async def fee_rate_guard(
    decoded: DecodedPsbt, bitcoin: BitcoinParts, multiple: float, where: str
) -> GuardResult:
    fee = decoded.fee or 0
    rate = fee / decoded.vsize
    estimates = await bitcoin.gateway.fee_estimates()
    fastest = estimates.get(FASTEST_TARGET) or max(estimates.values(), default=0.0)
    bound = fastest * multiple
    if fastest <= 0:
        return GuardResult("bitcoin-fee-rate", False,
                           "the node gives no fee estimate to bound the fee by", where)  # fmt: skip
    if rate > bound:
        return GuardResult(
            "bitcoin-fee-rate", False,
            f"the fee {fee} sats is {rate:.1f} sat/vB, above {multiple:g}x the node's fastest "
            f"estimate {fastest:g} sat/vB (guards.bitcoin_fee_multiple): refused", where,
        )  # fmt: skip
    return GuardResult(
        "bitcoin-fee-rate", True,
        f"{rate:.1f} sat/vB, within {multiple:g}x the node's fastest estimate {fastest:g}", where,
    )  # fmt: skip


@dataclass(frozen=True)
class BitcoinSent(Broadcast):
    bitcoin: BitcoinParts
    """The wallet's key and the Esplora-style API it goes out through."""


class BitcoinRunner(PolledRunner[BitcoinSent]):
    family = "Bitcoin"
    node = "the Bitcoin node"
    id_name = "txid"
    known_words = "is already known to the node"
    not_landed_words = "in a block"
    timeout_hint = "`crossdeck resume` follows it on (it is journalled)"
    nudge_on_send = True  # the service sees it in the mempool: pending

    def parts(self, where: str) -> BitcoinParts:
        bitcoin = self.shop.parts.bitcoin
        if bitcoin is None:
            raise refused(
                "bitcoin-configured",
                "no Bitcoin key and API to send with (import one with `crossdeck wallet "
                "import-bitcoin` and set rpc.8253038 to an Esplora-style API)",
                where,
            )
        return bitcoin

    async def prepare(self, item: Item) -> Prepared:
        bitcoin = self.parts(item.where)
        results = self.shop.item_guards(item)
        require(results)
        data = item.data.as_bitcoin()
        decoded = decode_psbt(data.psbt)  # the guards read it already
        results.append(await utxo_guard(decoded, bitcoin, item.where))
        require(results)
        multiple = self.shop.options.bitcoin_fee_multiple
        results.append(await fee_rate_guard(decoded, bitcoin, multiple, item.where))
        require(results)
        quote = item.run.quote
        lines = psbt_lines(
            decoded,
            wallet=bitcoin.signer.address,
            deposit=deposit_address(quote, item.step),
            order_id=quote.order_id,
        )
        change = sum(o.value for o in decoded.outputs if o.address == bitcoin.signer.address)
        request = SignRequest(
            kind="transaction",
            step_id=item.step.id,
            item_index=item.item_index,
            title=f"Send a Bitcoin transaction (step {item.step.id}): fee {btc(decoded.fee or 0)}, "
            f"change {btc(change)}",
            lines=tuple(lines),
            payload={"chainId": BITCOIN_CHAIN_ID, "psbt": data.psbt},
            guards=tuple(results),
            chain_id=BITCOIN_CHAIN_ID,
        )
        return Prepared(
            request,
            intent={"kind": "bitcoin", "chain_id": BITCOIN_CHAIN_ID},
            detail={"item": item, "bitcoin": bitcoin, "psbt": data.psbt},
        )

    async def sign(self, prepared: Prepared) -> dict[str, Any]:
        bitcoin: BitcoinParts = prepared.detail["bitcoin"]
        item: Item = prepared.detail["item"]
        try:
            raw, txid = bitcoin.signer.sign_psbt(prepared.detail["psbt"])
        except InvalidKeyError as exc:
            raise refused("bitcoin-inputs", str(exc), item.where) from None
        return {"raw_tx": raw, "tx_hash": txid, "chain_id": BITCOIN_CHAIN_ID}

    def _sent(self, prepared: Prepared, signed: dict[str, Any]) -> BitcoinSent:
        raw = signed["raw_tx"].removeprefix("0x")
        return BitcoinSent(signed["tx_hash"], BITCOIN_CHAIN_ID, raw, prepared.detail["bitcoin"])

    def _journalled(self, item: Item, record: ItemRecord) -> BitcoinSent:
        bitcoin = self.parts(item.where)
        assert record.tx_hash is not None and record.raw_tx is not None
        raw = record.raw_tx.removeprefix("0x")
        return BitcoinSent(record.tx_hash, BITCOIN_CHAIN_ID, raw, bitcoin)

    async def _broadcast(self, sent: BitcoinSent) -> str:
        return await sent.bitcoin.gateway.broadcast(sent.raw)

    async def _known(self, sent: BitcoinSent) -> bool:
        return await sent.bitcoin.gateway.tx_state(sent.txid) is not None

    async def _resend_words(self, item: Item, sent: BitcoinSent) -> str:
        txid = sent.txid
        await self._end_if_replaced(
            item, sent, "check the wallet's transactions before asking for a new quote"
        )
        given_up = await self._given_up(item)
        if given_up is not None:
            # broadcast now, the deposit would pay a request nobody fills any more
            self.journal.record(*item.key, "expired")
            raise ExecutionError(
                f"Bitcoin transaction {txid} never confirmed (the node no longer knows it: "
                f"dropped) and the service has given request {item.run.request_id} up "
                f"({given_up}): it is not broadcast again. Nothing left the wallet: every "
                "input it spends is still unspent.",
                hint=f"ask for a new quote: {new_quote_command(item.run.request)}",
            )
        return (
            f"Bitcoin transaction {txid} is unknown to the node and its inputs are unspent: "
            "broadcasting the same signed bytes again (same inputs, same txid: it cannot pay "
            "twice)"
        )

    async def _given_up(self, item: Item) -> str | None:
        """None while the service still waits for the deposit (the same bytes may go out
        again: they can never pay twice); else why they must not: the request's status says
        the service is done with it (failure: it fills nothing; refund; success), or the
        service cannot be asked (a deposit to a request it gave up would be lost)."""
        from crossdeck.models.status import RequestStatus, parse_status

        try:
            answer = await self.shop.parts.service.status(item.run.request_id)
        except CrossdeckError as exc:
            raise ExecutionError(
                f"the service cannot say whether it still waits for request "
                f"{item.run.request_id} ({exc.message}): nothing is broadcast until it can",
                hint=f"run `crossdeck resume {item.run.request_id}` again later",
            ) from None
        known = parse_status(answer.status)
        done = (RequestStatus.FAILURE, RequestStatus.REFUND, RequestStatus.FALLBACK,
                RequestStatus.SUCCESS)  # fmt: skip
        if known not in done:
            return None
        details = f": {answer.details}" if isinstance(answer.details, str) else ""
        return f"status {answer.status}{details}"

    async def _end_if_replaced(self, item: Item, sent: BitcoinSent, hint: str) -> None:
        """A transaction the node no longer knows, one of whose inputs another spends, can
        never confirm: the run ends (journalled), and it is never sent again."""
        replaced = await self._replaced_by(sent.bitcoin, sent.raw)
        if replaced:
            self.journal.record(*item.key, "expired")
            raise ExecutionError(
                f"Bitcoin transaction {sent.txid} was replaced ({replaced}); it is not "
                "sent again (that could pay twice)",
                hint=hint,
            )

    @staticmethod
    async def _replaced_by(bitcoin: BitcoinParts, raw: str) -> str:
        """'' when every input of `raw` is still unspent, else which transaction spent which."""
        from embit.transaction import Transaction

        tx = Transaction.parse(bytes.fromhex(raw))
        for vin in tx.vin:
            spender = await bitcoin.gateway.spender(vin.txid.hex(), vin.vout)
            if spender is not None:
                return f"its input {vin.txid.hex()}:{vin.vout} is spent by {spender}"
        return ""

    async def _look(self, item: Item, sent: BitcoinSent) -> Landed | Waiting:
        """In a block, or in the mempool; a replaced or dropped one is reported."""
        txid = sent.txid
        state = await sent.bitcoin.gateway.tx_state(txid)
        if state is not None and state.confirmed:
            return Landed(state.block_height or 0)
        if state is None:
            await self._end_if_replaced(item, sent, "`crossdeck status` says what the service saw")
            # dropped: the journal keeps it as sent, so `resume` finds it and decides
            raise ExecutionError(
                f"Bitcoin transaction {txid} was dropped from the node's mempool before a "
                "block took it: it never confirmed, and every input it spends is still "
                "unspent, so nothing left the wallet. It was not broadcast again.",
                hint=f"`crossdeck resume {item.run.request_id}` broadcasts the same signed "
                "transaction again if the service still waits for it (same inputs, same "
                "txid: it cannot pay twice), or ends the run if the service has given the "
                f"request up; then ask for a new quote: {new_quote_command(item.run.request)}",
            )
        return Waiting(f"Bitcoin transaction {txid} is in the mempool")
