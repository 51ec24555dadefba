"""EVM transactions through the journalled template: checked against the chain, signed, sent,
mined; a deposit is announced to the service (`POST /transactions/index`) and the follower is
nudged. Resumed, a journalled transaction is found on chain by hash or re-broadcast as the same
signed bytes (never signed twice)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from crossdeck.base.concurrently import answer
from crossdeck.execute import describe, wallet_sent
from crossdeck.execute.announce import INDEX_TIMEOUT_SECONDS as INDEX_TIMEOUT_SECONDS  # tests use
from crossdeck.execute.announce import announce
from crossdeck.execute.crash import crash_point
from crossdeck.execute.errors import ExecutionError, NonceTakenError
from crossdeck.execute.events import Note, RunEvent, SignRequest, TxConfirmed, TxSent
from crossdeck.execute.guards import GuardResult, refused, require, rpc_chain_guard
from crossdeck.execute.guards.chain import chain_guards
from crossdeck.execute.guards.gas import gas_limit_guard
from crossdeck.execute.guards.simulation import NAME as SIMULATED
from crossdeck.execute.items import Item, ItemRunner, Prepared, RunOptions
from crossdeck.execute.journal import ItemRecord
from crossdeck.wallet.errors import ChainMismatchError, TransactionRevertedError

if TYPE_CHECKING:
    from crossdeck.models.steps import TransactionData
    from crossdeck.wallet.gateway import EvmGateway


class TransactionRunner(ItemRunner):
    def gateway(self, chain_id: int | None, where: str) -> EvmGateway:
        gateway = self.shop.parts.gateways.get(chain_id) if chain_id is not None else None
        if gateway is None:
            raise refused(
                "rpc-configured",
                f"no RPC is configured for chain {chain_id} (set rpc.{chain_id})",
                where,
            )
        return gateway

    async def prepare(self, item: Item) -> Prepared:
        tx = item.data.as_transaction()
        gateway = self.gateway(tx.chain_id, item.where)
        assert tx.chain_id is not None
        chain_id = tx.chain_id
        address = self.shop.parts.signer.address
        results = self.shop.item_guards(item)
        run, options = item.run, self.shop.options
        value = tx.value or 0
        deposit_address = _deposit_address_terms(item, tx)
        if deposit_address is not None and run.deposit_amount is not None:
            value = run.deposit_amount
        data = tx.data or "0x"
        call = {"from": address, "to": tx.to, "value": value, "data": data}  # value: the deposit's
        # the chain's id, the nonce, the gas and the fees are read at once (one round trip, not
        # four); nothing read is believed, nor any read's error said, before the guards and
        # the chain id have passed, as when they were read one by one
        chain_read, nonce_read, gas_read, fees_read = await asyncio.gather(
            _rpc_guard(gateway, chain_id, item.where),
            gateway.nonce(address),
            _gas(gateway, tx, call, options, item.where),
            _fees(gateway, tx),
            return_exceptions=True,
        )
        results.append(answer(chain_read))
        require(results)
        nonce = answer(nonce_read)
        gas, held = answer(gas_read)
        max_fee, priority = answer(fees_read)
        if deposit_address is not None and run.deposit_amount is not None:
            results.append(
                GuardResult(
                    "deposit-amount",
                    True,
                    f"sending {value} to the deposit address where the quote says {tx.value}",
                    item.where,
                )
            )
        results += [held] if held is not None else []
        unsigned: dict[str, Any] = {
            "chainId": chain_id,
            "nonce": nonce,
            "to": tx.to,
            "value": value,
            "data": data,
            "gas": gas,
            "maxFeePerGas": max_fee,
            "maxPriorityFeePerGas": priority,
        }
        # against the chain itself: its fee market, the wallet's funds, a dry run
        results += await chain_guards(
            gateway, unsigned, address, run.quote, options.fee_cap_multiple, item.where
        )
        # calldata the decoders cannot read: this transaction and those after it, simulated on
        # the chain as it is now and held to the quote, right before this signature
        results += await self.shop.simulation_guards(run.quote, (item.step_index, item.item_index))
        require(results)
        title = describe.transaction_title(
            chain_id, item.step.id, deposit_address=deposit_address is not None
        )
        lines = describe.transaction_lines(
            unsigned,
            sender=address,
            payment=run.quote.payment_details,
            deposit_address=deposit_address,
            currencies=describe.Currencies(run.quote, self.shop.chains),
        )
        lines += _simulated_lines(results)
        request = SignRequest(
            kind="transaction",
            step_id=item.step.id,
            item_index=item.item_index,
            title=title,
            lines=tuple(lines),
            payload={**unsigned, "from": address},
            guards=tuple(results),
            chain_id=chain_id,
        )
        return Prepared(
            request,
            intent={"kind": "transaction", "chain_id": chain_id, "from_nonce": nonce},
            detail={"unsigned": unsigned, "from": tx.from_ or address, "gateway": gateway},
        )

    async def sign(self, prepared: Prepared) -> dict[str, Any]:
        unsigned, signer = prepared.detail["unsigned"], self.shop.parts.signer
        tx = {**unsigned, "from": prepared.detail["from"]}
        words = prepared.request.describe().splitlines()
        if signer.wallet_sends:
            # the wallet signs and sends in one go: its hash is journalled as soon as it is
            # back (the caller writes it), so a crash from here on finds the transaction
            return {"tx_hash": await signer.send_transaction(tx, words)}
        signed = await signer.sign_transaction(tx, words)
        return {"raw_tx": "0x" + signed.raw.hex(), "tx_hash": signed.hash}

    async def send(
        self, item: Item, prepared: Prepared, signed: dict[str, Any]
    ) -> AsyncIterator[RunEvent]:
        gateway: EvmGateway = prepared.detail["gateway"]
        unsigned = prepared.detail["unsigned"]
        chain_id, nonce = unsigned["chainId"], unsigned["nonce"]
        if "raw_tx" in signed:
            tx_hash = await gateway.send_raw(bytes.fromhex(signed["raw_tx"].removeprefix("0x")))
            self.journal.record(*item.key, "sent", tx_hash=tx_hash)
        else:  # the wallet sent it: hold what it sent to what the guards passed
            tx_hash = signed["tx_hash"]
            self.journal.record(*item.key, "sent", tx_hash=tx_hash)
            guarded = {**unsigned, "from": prepared.detail["from"]}
            nonce = await self._held(gateway, guarded, chain_id, tx_hash)
        yield TxSent(tx_hash, chain_id, nonce, item.step.id, item.item_index)
        crash_point("after-send", item.step.id)
        async for event in self._mined(item, gateway, tx_hash, chain_id):
            yield event

    async def finish(self, item: Item, record: ItemRecord) -> AsyncIterator[RunEvent]:
        """A transaction journalled as signed or sent: find it, or re-send the same bytes."""
        gateway = self.gateway(item.data.as_transaction().chain_id, item.where)
        assert record.tx_hash is not None
        tx_hash, chain_id = record.tx_hash, record.chain_id or gateway.expected_chain_id
        if record.raw_tx is None:  # the wallet sent it: found by hash, never sent from here
            guarded = self._guarded_again(item)
            await self._held(gateway, guarded, chain_id, tx_hash)
            yield Note(f"transaction {tx_hash} the wallet sent is on chain {chain_id}")
            self.journal.record(item.run.request_id, record.step_index, item.item_index, "sent")
            async for event in self._mined(item, gateway, tx_hash, chain_id):
                yield event
            return
        receipt = await gateway.get_receipt(tx_hash)
        if receipt is None and await gateway.get_transaction(tx_hash) is None:
            used = await gateway.nonce(self.shop.parts.signer.address)
            if record.from_nonce is not None and used > record.from_nonce:
                raise NonceTakenError(
                    f"journalled transaction {tx_hash} is unknown on chain {chain_id}, and "
                    f"the wallet's nonce {record.from_nonce} was used by another transaction",
                    hint="it can never be mined; check the wallet's history and ask for a new "
                    "quote if the deposit did not happen",
                )
            yield Note(
                f"transaction {tx_hash} never reached chain {chain_id}: re-broadcasting the "
                "same signed bytes (same hash, same nonce)"
            )
            sent = await gateway.send_raw(bytes.fromhex(record.raw_tx.removeprefix("0x")))
            if sent.lower() != tx_hash.lower():
                raise ExecutionError(f"the node gave hash {sent} for journalled tx {tx_hash}")
            self.journal.record(item.run.request_id, record.step_index, item.item_index, "sent")
            yield TxSent(tx_hash, chain_id, record.from_nonce or 0, item.step.id, item.item_index)
        else:
            found = "mined" if receipt is not None else "pending"
            yield Note(f"transaction {tx_hash} is already {found} on chain {chain_id}; not resent")
            self.journal.record(item.run.request_id, record.step_index, item.item_index, "sent")
        async for event in self._mined(item, gateway, tx_hash, chain_id):
            yield event

    async def _held(
        self, gateway: EvmGateway, guarded: dict[str, Any], chain_id: int, tx_hash: str
    ) -> int:
        """Fetch what the wallet sent by its hash and hold it to `guarded`; its nonce."""
        options = self.shop.options
        found = await wallet_sent.fetch_sent(
            gateway, tx_hash, options.receipt_timeout, options.receipt_poll
        )
        wallet_sent.hold(guarded, found, chain_id, tx_hash)
        return int(found.get("nonce") or 0)

    def _guarded_again(self, item: Item) -> dict[str, Any]:
        """The guarded transaction's terms from the journalled quote (resume): what it must
        be, whatever gas the wallet chose."""
        tx = item.data.as_transaction()
        value = tx.value or 0
        if _deposit_address_terms(item, tx) is not None and item.run.deposit_amount is not None:
            value = item.run.deposit_amount
        return {
            "to": tx.to,
            "value": value,
            "data": tx.data or "0x",
            "from": tx.from_ or self.shop.parts.signer.address,
        }

    async def _mined(
        self, item: Item, gateway: EvmGateway, tx_hash: str, chain_id: int
    ) -> AsyncIterator[RunEvent]:
        options = self.shop.options
        try:
            receipt = await gateway.wait_receipt(
                tx_hash, timeout=options.receipt_timeout, poll=options.receipt_poll
            )
        except TransactionRevertedError as exc:
            # not `done`: resume must never skip past a revert (e.g. to a deposit whose approve
            # reverted); it refuses the whole run instead
            self.journal.record(*item.key, "reverted")
            raise ExecutionError(
                f"transaction {tx_hash} ({item.step.id}) reverted on chain {chain_id}",
                hint=exc.hint,
            ) from exc
        self.journal.record(*item.key, "done")
        yield TxConfirmed(
            tx_hash,
            chain_id,
            receipt.block_number,
            receipt.gas_used,
            item.step.id,
            item.item_index,
        )
        if item.step.id != "approve":
            await announce(self.shop.parts.service.index_transaction(tx_hash, chain_id))
            self.shop.acted(item.run)


async def _gas(
    gateway: EvmGateway, tx: TransactionData, call: dict[str, Any], options: RunOptions, where: str
) -> tuple[int, GuardResult | None]:
    """The gas limit: the quote's, held to the node's estimate now (the guard's result, or None
    when the node says the call reverts: the dry run refuses it); else the estimate plus the
    margin."""
    if tx.gas is not None:
        multiple, chain_id = options.gas_limit_multiple, gateway.expected_chain_id
        return tx.gas, await gas_limit_guard(gateway, call, tx.gas, multiple, chain_id, where)
    estimate = await gateway.estimate_gas(call)
    return estimate * (100 + options.gas_margin_percent) // 100, None


async def _fees(gateway: EvmGateway, tx: TransactionData) -> tuple[int, int]:
    """The quote's EIP-1559 fees when it names both, else the node's."""
    if tx.max_fee_per_gas is not None and tx.max_priority_fee_per_gas is not None:
        return tx.max_fee_per_gas, tx.max_priority_fee_per_gas
    return await gateway.fee_params()


async def _rpc_guard(gateway: EvmGateway, chain_id: int, where: str) -> GuardResult:
    try:
        actual = await gateway.chain_id()
    except ChainMismatchError as exc:
        return GuardResult("rpc-chain-id", False, exc.message, where)
    return rpc_chain_guard(chain_id, actual, where)


def _deposit_address_terms(item: Item, tx: TransactionData) -> dict[str, Any] | None:
    request = item.run.request
    payment = item.run.quote.payment_details
    if request is None or not request.use_deposit_address or payment is None:
        return None
    # the public service names the deposit address on the step (and in the tx `to`); the
    # depository stays the contract behind it. Older answers sent it as the depository.
    deposit_to = item.step.deposit_address or payment.depository
    if not tx.to or not deposit_to or tx.to.lower() != deposit_to.lower():
        return None
    return {
        "type": "strict" if request.strict else "open",
        "refund_to": request.effective_refund_to(),
        "quoted_amount": tx.value,
    }


def _simulated_lines(results: list[GuardResult]) -> list[describe.Line]:
    """What the simulation showed, beside what will be signed (the confirm dialog, the CLI's
    prompt): 'you send 0.01 ETH, you receive at least 29.81 USDC (...)'."""
    lines = []
    for result in results:
        if result.name == SIMULATED and result.ok:
            _, _, shown = result.message.partition("): ")
            lines.append(describe.Line("simulated", shown or result.message, kind="amount"))
    return lines
