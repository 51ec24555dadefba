"""The solver of the demo world: it watches real payments and fills requests for real.

What it watches
---------------
- Each EVM chain, from the block after the one current at start: the depository's ``Deposit``
  logs (matched to a request by ``id`` = the quote's ``protocol.v2.orderId``), USDC ``Transfer``
  logs and value-carrying transactions into deposit addresses (matched by address).
- Each EVM chain: the router's ``Swap`` logs, by order id: a self-executed same-chain swap is
  done in the user's own transaction (``pending`` then ``success``, that transaction both in
  and out).
- The venue: every accepted ``sendAsset`` whose destination is the venue depository's account
  (an account of its own, not the solver's),
  matched by (user, nonce) through the nonce mapping made by ``POST /authorize``. A sendAsset
  with no mapping stays in ``unmatched`` (the funds stay with the solver, nothing is refunded);
  it is matched if the mapping arrives later, since the nonce is what ties it to a request.

Rules (the amount compared is the quote's ``amount_in``)
-------------------------------------------------------
- Exact payment: ``waiting``/``depositing`` -> ``pending`` -> ``submitted`` -> ``success``.
  The fill is a real transaction from the solver's operator account on the destination chain
  (native or USDC, plus the quoted native gas top-up), or a credit on the venue ledger for
  destination 1337 (debited from the venue depository's account). ``submitted`` carries the mined
  fill; ``success`` follows when its receipt is ok. A subsidized request records
  ``feeSponsorship.actual`` with ``sponsorPayment`` on success.
- Underpaid (depository or strict deposit address): ``pending`` then a refund of what arrived
  to ``refundTo`` on the origin chain: ``refund`` with failReason DEPOSITED_AMOUNT_TOO_LOW_TO_FILL.
- Overpaid: the quoted amount is filled, and the excess is refunded in a child request
  (kind ``refund``, ``pending`` -> ``refund``, failReason INCORRECT_PAYMENT).
- Open deposit address: whatever arrives is filled at the quoted rate (amounts are amended);
  a later payment to the same open address becomes a child request (kind ``deposit``) filled
  the same way.
- Wrong currency: ``pending`` then a refund in the currency that arrived,
  failReason INCORRECT_DEPOSIT_CURRENCY.
- A second payment for an order id (or a venue nonce) whose request already has its deposit:
  a child request (kind ``duplicate``) refunds it, ``refund`` with failReason DOUBLE_SPEND.
- Demo trigger (quote ``referrer`` ``demo:fail`` or ``demo:fail:<REASON>``, see
  ``crossdeck.sim.service.demo_fail_reason``): after the deposit, ``failure`` with that reason,
  then after a settle period a refund of the deposit: ``refund`` keeping the failReason.
- A permit deposit (submitted by the service) passes through ``depositing`` before ``pending``.
- A fill transaction that reverts: ``failure`` TRANSACTION_REVERTED, then the refund.
- A fill sent whose outcome is unknown (no answer from the node after broadcasting it):
  ``failure`` with the error in ``details``, not refunded (it may have been paid).
- Once a fill is paid nothing refunds the deposit: a failed gas top-up (or bookkeeping error)
  after it is logged and recorded in ``details``, and the request still ends in ``success``.
- A refund leg that fails (or an amount too low to refund, refundFailReason
  AMOUNT_TOO_LOW_TO_REFUND; else UNKNOWN) leaves the request in ``failure`` with its
  refundFailReason and the error in ``details``, announced by webhook.

Deposit-address funds are swept to the operator after they are seen. Refunds and fills are paid
from the operator's own liquidity. Venue legs have no chain transaction; their hashes are
``keccak`` of a stable description (user and nonce for a sendAsset, request and leg for a
payment), so they are unique and repeatable.

Pacing: ``speed`` divides every delay (1.0 = demo pacing, about a second per stage; 0 or
``inf`` = no delays, for tests). Polling runs at least every ``MIN_POLL_S``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_account.signers.local import LocalAccount
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from crossdeck.sim.bitcoin import BitcoinChain
from crossdeck.sim.chains import ChainNode
from crossdeck.sim.chains.rpc_client import ChainRpcError
from crossdeck.sim.service import demo_fail_reason
from crossdeck.sim.service.calls import Call, calls_from_record, calls_value
from crossdeck.sim.service.currencies import currency_key
from crossdeck.sim.service.nonevm import BITCOIN_CHAIN_ID, BTC_ADDRESS
from crossdeck.sim.service.state import (
    InvalidTransition,
    RequestRecord,
    ServiceState,
    Status,
    Tx,
)
from crossdeck.sim.solana.node import SolanaNode
from crossdeck.sim.solver_chain import (
    DEPOSIT_TOPIC,
    ERC20_TRANSFER_GAS,
    NATIVE,
    SWAP_TOPIC,
    SolverChain,
    Unconfirmed,
    is_native,
    topic_address,
)
from crossdeck.sim.solver_nonevm import (
    bitcoin_confirmed,
    bitcoin_deposit_tx,
    deposit_currency,
    deposit_tx,
    pay_on_bitcoin,
    pay_on_solana,
)
from crossdeck.sim.venue import SendAssetRecord, VenueLedger

log = logging.getLogger(__name__)

VENUE_CHAIN_ID = 1337
STAGE_DELAY_S = 1.0  # between pending, submitted and success at speed 1
SETTLE_DELAY_S = 3.0  # failure -> refund at speed 1
POLL_S = 0.5
MIN_POLL_S = 0.1

UNDERPAID = "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL"
OVERPAID = "INCORRECT_PAYMENT"
WRONG_CURRENCY = "INCORRECT_DEPOSIT_CURRENCY"
DOUBLE_SPEND = "DOUBLE_SPEND"
REVERTED = "TRANSACTION_REVERTED"
# refundFailReason (facts.md): the amount cannot pay for its own refund; anything else
TOO_LOW_TO_REFUND = "AMOUNT_TOO_LOW_TO_REFUND"
REFUND_FAILED = "UNKNOWN"

_STARTED = (Status.WAITING, Status.DEPOSITING)


@dataclass(frozen=True)
class Payment:
    """A payment the solver saw, on a chain or on the venue."""

    key: str  # unique per payment (tx hash and log index, or venue user and nonce)
    chain_id: int
    currency: str  # lowercase: EVM currency address, or chain-1337 currency address
    amount: int
    sender: str
    tx: Tx


def _int(hex_quantity: str) -> int:
    return int(hex_quantity, 16)


def venue_hash(*parts: object) -> str:
    return "0x" + keccak(text=":".join(str(p) for p in parts)).hex()


class Solver:
    def __init__(
        self,
        state: ServiceState,
        chains: Mapping[int, ChainNode],
        ledger: VenueLedger,
        *,
        operator_key: str,
        venue_depository: str,
        speed: float = 1.0,
        solana: SolanaNode | None = None,
        bitcoin: BitcoinChain | None = None,
        svm: Sequence[SolanaNode] = (),
    ) -> None:
        """`solana` and `svm`: the world's SVM chains (Solana, and any other, each its own
        node), watched and paid on by chain id."""
        if speed < 0 or math.isnan(speed):
            raise ValueError(f"speed must be >= 0, got {speed!r}")
        self.state = state
        self.ledger = ledger
        self.speed = speed
        self.operator: LocalAccount = Account.from_key(operator_key)
        self.address = self.operator.address
        # the venue account withdrawals pay and venue fills come from: not the solver's own
        self.venue_depository = to_checksum_address(venue_depository)
        self.unmatched: list[SendAssetRecord] = []
        self._nodes = dict(chains)
        self._chains: dict[int, SolverChain] = {}
        self._seen: set[str] = set()
        self._unnoticed: dict[tuple[int, str], list[Payment]] = {}
        """Other currencies paid into open deposit addresses: the monitor watches only the
        quoted one; POST /transactions/deposit-address/reindex brings them in (`reindex`)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._inbox: asyncio.Queue[SendAssetRecord] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._jobs: set[asyncio.Task[None]] = set()
        self._jobs_idle: asyncio.Event | None = None
        self._wake: dict[int, asyncio.Event] = {}
        self.solana = solana
        self.svm = {node.chain_id: node for node in (solana, *svm) if node is not None}
        self.bitcoin = bitcoin
        self._svm_seen = dict.fromkeys(self.svm, 0)  # per SVM chain: its deposits looked at
        self._bitcoin_seen = 0  # deposits of the Bitcoin chain looked at so far

    def __repr__(self) -> str:
        return f"Solver(address={self.address}, chains={sorted(self._nodes)}, speed={self.speed})"

    # ---- lifecycle ---------------------------------------------------------------------

    @property
    def poll_s(self) -> float:
        return max(MIN_POLL_S, self._delay(POLL_S))

    async def start(self, scanned: Mapping[int, int] | None = None) -> None:
        """`scanned`: per chain, the first block a solver before this one did not scan (a
        world restarted on its state): what was mined meanwhile is scanned, nothing twice."""
        self._loop = asyncio.get_running_loop()
        self._inbox = asyncio.Queue()
        self._jobs_idle = asyncio.Event()
        self._jobs_idle.set()
        for chain_id, node in self._nodes.items():
            chain = SolverChain(node)
            head = await chain.head()
            chain.next_block = min((scanned or {}).get(chain_id, head + 1), head + 1)
            self._chains[chain_id] = chain
            self._wake[chain_id] = asyncio.Event()
        # Solana and Bitcoin keep their deposits across a restart as the EVM chains keep their
        # blocks: those a solver before this one looked at are not payments again (a second
        # look would refund a deposit the venue or a recipient was already paid for)
        for chain_id, svm_node in self.svm.items():
            held = await svm_node.run(lambda chain: len(chain.deposits))
            self._svm_seen[chain_id] = min((scanned or {}).get(chain_id, held), held)
        if self.bitcoin is not None:
            held = len(self.bitcoin.deposits)
            self._bitcoin_seen = min((scanned or {}).get(BITCOIN_CHAIN_ID, held), held)
        self._unsubscribe = self.ledger.on_send_asset(self._on_send_asset)
        self.state.on_tx_indexed(self._on_tx_indexed)
        for chain in self._chains.values():
            self._spawn(self._watch_chain(chain), f"watch chain {chain.chain_id}")
        for chain_id, svm_node in self.svm.items():
            self._wake[chain_id] = asyncio.Event()
            self._spawn(self._watch_svm(svm_node), f"watch chain {svm_node.setup.name}")
        if self.bitcoin is not None:
            self._wake[BITCOIN_CHAIN_ID] = asyncio.Event()
            self._spawn(self._watch_bitcoin(self.bitcoin), "watch chain bitcoin")
        self._spawn(self._watch_venue(), "watch venue")

    def scanned(self) -> dict[int, int]:
        """Per chain, the first block not scanned yet (for `start` after a restart); for
        Solana and Bitcoin, how many of the chain's deposits were looked at."""
        done = {chain_id: chain.next_block for chain_id, chain in self._chains.items()}
        done.update(self._svm_seen)
        if self.bitcoin is not None:
            done[BITCOIN_CHAIN_ID] = self._bitcoin_seen
        return done

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for chain in self._chains.values():
            await chain.close()
        self._chains.clear()

    async def idle(self) -> None:
        """Wait until no fill, refund or sweep is running (watchers keep running)."""
        if self._jobs_idle is not None:
            await self._jobs_idle.wait()

    def _spawn(self, coro: Awaitable[None], name: str) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("solver task %s failed", task.get_name(), exc_info=task.exception())

    def _delay(self, seconds: float) -> float:
        if self.speed == 0 or math.isinf(self.speed):
            return 0.0
        return seconds / self.speed

    async def _pace(self, seconds: float = STAGE_DELAY_S) -> None:
        await asyncio.sleep(self._delay(seconds))

    # ---- watching chains ---------------------------------------------------------------

    async def _watch_chain(self, chain: SolverChain) -> None:
        while True:
            try:
                head = await chain.head()
                if head >= chain.next_block:
                    await self._scan(chain, chain.next_block, head)
                    chain.next_block = head + 1
            except asyncio.CancelledError:
                raise
            except Exception:  # a node hiccup: the same range is scanned again next time
                log.exception("chain %s: scan failed", chain.chain_id)
            wake = self._wake[chain.chain_id]
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_s):  # wait_for could swallow a stop
                    await wake.wait()
            wake.clear()

    async def _watch_svm(self, node: SolanaNode) -> None:
        """Deposits an SVM chain executed (the depository's DepositEvent), in order; a
        deposit is matched by its order id as the EVM depository's event is."""
        chain_id = node.chain_id
        while True:
            try:
                for seen in await node.deposits_since(self._svm_seen[chain_id]):
                    self._svm_seen[chain_id] += 1
                    key = f"{chain_id}:{seen.signature}:{self._svm_seen[chain_id]}"
                    if key in self._seen:
                        continue
                    self._seen.add(key)
                    record = self.state.by_order_id("0x" + seen.deposit.order_id.hex())
                    tx = deposit_tx(node, seen, int(time.time()))
                    payment = Payment(
                        key,
                        chain_id,
                        deposit_currency(seen),
                        seen.deposit.amount,
                        str(seen.deposit.depositor),
                        tx,
                    )
                    self._accept_logged(record, payment)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s: deposit scan failed", node.setup.name)
            wake = self._wake[chain_id]
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_s):
                    await wake.wait()
            wake.clear()

    async def _watch_bitcoin(self, chain: BitcoinChain) -> None:
        """Transactions paying the solver, as the mempool first shows them: matched by the
        order id of their OP_RETURN. The request is pending from then; `_fill` waits for the
        block (`bitcoin_confirmed`)."""
        while True:
            try:
                for seen in list(chain.deposits[self._bitcoin_seen :]):
                    self._bitcoin_seen += 1
                    key = f"{BITCOIN_CHAIN_ID}:{seen.txid}"
                    if key in self._seen:
                        continue
                    self._seen.add(key)
                    record = self.state.by_order_id(seen.order_id) if seen.order_id else None
                    payment = Payment(
                        key,
                        BITCOIN_CHAIN_ID,
                        currency_key(BTC_ADDRESS),
                        seen.amount,
                        seen.sender or "",
                        bitcoin_deposit_tx(seen),
                    )
                    self._accept_logged(record, payment)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bitcoin: deposit scan failed")
            wake = self._wake[BITCOIN_CHAIN_ID]
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_s):
                    await wake.wait()
            wake.clear()

    def _on_tx_indexed(self, chain_id: int, tx_hash: str) -> None:
        """POST /transactions/index: look at that chain now instead of at the next poll."""
        loop, wake = self._loop, self._wake.get(chain_id)
        if loop is not None and wake is not None and not loop.is_closed():
            loop.call_soon_threadsafe(wake.set)

    async def _scan(self, chain: SolverChain, first: int, last: int) -> None:
        # (block, tx index, position in the tx, item): a transaction's own value moves first
        events: list[tuple[int, int, int, dict[str, Any]]] = [
            (_int(e["blockNumber"]), _int(e["transactionIndex"]), _int(e["logIndex"]), e)
            for e in await chain.contract_logs(first, last)
        ]
        if self._watches_deposit_addresses(chain.chain_id):
            events += [
                (_int(tx["blockNumber"]), _int(tx["transactionIndex"]), -1, tx)
                for tx in await chain.value_transfers(first, last)
            ]
        for _, _, position, item in sorted(events, key=lambda e: e[:3]):
            if position < 0:
                await self._on_value_transfer(chain, item)
            else:
                await self._on_log(chain, item)

    def _watches_deposit_addresses(self, chain_id: int) -> bool:
        rows = self.state.query(
            "SELECT 1 FROM requests WHERE deposit_address IS NOT NULL AND origin_chain = ? LIMIT 1",
            (chain_id,),
        )
        return bool(rows)

    async def _on_log(self, chain: SolverChain, entry: dict[str, Any]) -> None:
        key = f"{chain.chain_id}:{entry['transactionHash']}:{_int(entry['logIndex'])}"
        if key in self._seen:
            return
        topics, amount = entry["topics"], _int(entry["data"])
        emitter = entry["address"].lower()
        if emitter == chain.depository.lower() and topics[0] == DEPOSIT_TOPIC:
            record = self.state.by_order_id(topics[3])
            token = topic_address(topics[2]).lower()
            sender = topic_address(topics[1])
        elif emitter == chain.router.lower() and topics[0] == SWAP_TOPIC:
            await self._swapped(chain, key, entry)
            return
        elif emitter == chain.usdc.lower() and len(topics) == 3:
            record = self._deposit_address_request(chain, topic_address(topics[2]))
            token, sender = chain.usdc.lower(), topic_address(topics[1])
            if record is None or sender.lower() == self.operator.address.lower():
                return  # not into a deposit address, or gas the solver sent for a sweep
        else:
            return
        await self._paid(chain, key, record, token, amount, sender, entry["transactionHash"])

    async def _on_value_transfer(self, chain: SolverChain, tx: dict[str, Any]) -> None:
        key = f"{chain.chain_id}:{tx['hash']}:value"
        if key in self._seen or tx["from"].lower() == self.operator.address.lower():
            return
        record = self._deposit_address_request(chain, tx["to"])
        if record is not None:
            sender = to_checksum_address(tx["from"])
            await self._paid(chain, key, record, NATIVE, _int(tx["value"]), sender, tx["hash"])

    async def _swapped(self, chain: SolverChain, key: str, entry: dict[str, Any]) -> None:
        """A self-executed swap ran through the router: the user's own transaction took the
        input and paid the recipient, so the request it names (by order id) is done, with that
        one transaction as both its deposit and its fill."""
        record = self.state.by_order_id(entry["topics"][3])
        tx = await chain.onchain_tx(entry["transactionHash"])
        self._seen.add(key)
        if record is None or record.status not in _STARTED:
            log.warning("router swap %s matches no waiting request", key)
            return
        self.state.advance(record.id, Status.PENDING, in_tx=tx)
        self.state.advance(record.id, Status.SUCCESS, out_tx=tx)

    def _deposit_address_request(self, chain: SolverChain, address: str) -> RequestRecord | None:
        requests = self.state.by_deposit_address(address)
        if requests and requests[0].origin_chain_id == chain.chain_id:
            return requests[0]
        return None

    async def _paid(
        self,
        chain: SolverChain,
        key: str,
        record: RequestRecord | None,
        currency: str,
        amount: int,
        sender: str,
        tx_hash: str,
    ) -> None:
        tx = await chain.onchain_tx(tx_hash)
        self._seen.add(key)
        if record is not None:
            # read again: while the tx was fetched, the service may have moved the request on
            # (a permit deposit it submitted itself is marked 'depositing' there)
            record = self.state.get(record.id)
        self._accept_logged(record, Payment(key, chain.chain_id, currency, amount, sender, tx))

    # ---- watching the venue ------------------------------------------------------------

    def _on_send_asset(self, record: SendAssetRecord) -> None:
        # The venue may call from any thread; the solver's own loop does the work.
        if self._loop is not None and self._inbox is not None:
            self._loop.call_soon_threadsafe(self._inbox.put_nowait, record)

    async def _watch_venue(self) -> None:
        assert self._inbox is not None
        while True:
            record = None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_s):  # wait_for could swallow a stop
                    record = await self._inbox.get()
            if record is not None and record.destination == self.venue_depository.lower():
                self.unmatched.append(record)
            # unmatched sends are tried again each round: a mapping may arrive after the send
            for send in list(self.unmatched):
                request = self.state.by_nonce(send.user, send.nonce)
                if request is None:
                    continue
                self.unmatched.remove(send)
                key = f"{VENUE_CHAIN_ID}:{send.user}:{send.nonce}"
                if key in self._seen:
                    continue
                self._seen.add(key)
                payment = Payment(
                    key=key,
                    chain_id=VENUE_CHAIN_ID,
                    currency=send.source_currency.lower(),
                    amount=send.amount,
                    sender=to_checksum_address(send.user),
                    tx=Tx(
                        hash=venue_hash("sendAsset", send.user, send.nonce),
                        chain_id=VENUE_CHAIN_ID,
                        from_=to_checksum_address(send.user),
                        to=self.venue_depository,
                        value=send.amount,
                        timestamp=send.time_ms // 1000,
                    ),
                )
                self._accept_logged(request, payment)

    # ---- the rules ---------------------------------------------------------------------

    def _accept_logged(self, record: RequestRecord | None, payment: Payment) -> None:
        # One payment that cannot be handled must not stall the watcher for every other one.
        try:
            self._accept(record, payment)
        except Exception:
            log.exception("payment %s could not be handled", payment.key)

    def _accept(
        self, record: RequestRecord | None, payment: Payment, *, reindexed: bool = False
    ) -> None:
        """Classify one payment and start what it calls for. Synchronous on purpose: the
        decision (first deposit, duplicate, ...) is made before any other payment is seen."""
        if record is None:
            log.warning("payment %s matches no request; it stays with the solver", payment.key)
            return
        if payment.chain_id in self.svm and payment.chain_id != record.origin_chain_id:
            # an order is paid on its origin chain: a deposit on another SVM chain that names it
            # (the same bytes' order id, a quote for one chain paid on another) fills nothing
            log.warning(
                "payment %s is on chain %s, request %s is paid on %s; it stays with the solver",
                payment.key, payment.chain_id, record.id, record.origin_chain_id,
            )  # fmt: skip
            return
        hashes = {tx.hash.lower() for tx in record.in_txs}
        origin_currency = currency_key(record.origin_currency)
        first = record.status in _STARTED and (
            not record.in_txs or payment.tx.hash.lower() in hashes
        )
        open_address = record.deposit_address is not None and record.deposit_address.type == "open"
        if open_address and first and payment.currency != origin_currency and not reindexed:
            # as the public monitor: only the quoted currency is watched at an open address
            assert record.deposit_address is not None
            where = (payment.chain_id, record.deposit_address.address.lower())
            self._unnoticed.setdefault(where, []).append(payment)
            log.info("payment %s in another currency waits for a reindex", payment.key)
            return
        if record.deposit_address is not None:
            self._job(self._sweep(record, payment), f"sweep {record.id}")
            if first:
                self.state.amend(
                    record.id, depositor=payment.sender, deposit_tx_hash=payment.tx.hash
                )

        if not first:
            if open_address and payment.currency == origin_currency:
                child = self.state.create_child(
                    record.id,
                    "deposit",
                    status=Status.PENDING,
                    amount_in=payment.amount,
                    amount_out=self._at_quoted_rate(record, payment.amount),
                    in_tx=payment.tx,
                )
                self._job(self._fill(child.id), f"fill {child.id}")
                return
            child = self.state.create_child(
                record.id,
                "duplicate",
                status=Status.PENDING,
                amount_in=payment.amount,
                amount_out=payment.amount,
                destination_currency=payment.currency,
                in_tx=payment.tx,
            )
            self._refund_job(child.id, payment.amount, payment.currency, DOUBLE_SPEND)
            return

        if payment.currency != origin_currency:
            self.state.advance(record.id, Status.PENDING, in_tx=payment.tx)
            self._refund_job(record.id, payment.amount, payment.currency, WRONG_CURRENCY)
            return
        expected = record.amount_in
        if open_address and payment.amount != expected:
            self.state.amend(
                record.id,
                amount_in=payment.amount,
                amount_out=self._at_quoted_rate(record, payment.amount),
            )
            expected = payment.amount
        if record.status is Status.WAITING and record.extra.get("permit"):
            # A permit deposit is submitted by the service (POST /execute/permits), which marks
            # it 'depositing' once mined; when the solver sees the event first it says so itself.
            # The service runs apart from the solver, so it may still get there first.
            with contextlib.suppress(InvalidTransition):
                self.state.advance(record.id, Status.DEPOSITING, in_tx=payment.tx)
        self.state.advance(record.id, Status.PENDING, in_tx=payment.tx)
        if payment.amount < expected:
            self._refund_job(record.id, payment.amount, payment.currency, UNDERPAID)
            return
        self._job(self._fill(record.id), f"fill {record.id}")
        if payment.amount > expected:
            excess = payment.amount - expected
            child = self.state.create_child(
                record.id,
                "refund",
                status=Status.PENDING,
                amount_in=excess,
                amount_out=excess,
                in_tx=payment.tx,
            )
            self._refund_job(child.id, excess, payment.currency, OVERPAID)

    @staticmethod
    def _at_quoted_rate(record: RequestRecord, amount_in: int) -> int:
        return record.amount_out * amount_in // record.amount_in if record.amount_in else 0

    def _job(self, coro: Awaitable[None], name: str) -> None:
        """A fill, refund or sweep: tracked so `idle()` can wait for all of them."""
        task = self._spawn(coro, name)
        self._jobs.add(task)
        assert self._jobs_idle is not None
        self._jobs_idle.clear()
        task.add_done_callback(self._job_done)

    def _job_done(self, task: asyncio.Task[None]) -> None:
        self._jobs.discard(task)
        if not self._jobs and self._jobs_idle is not None:
            self._jobs_idle.set()

    def _refund_job(self, request_id: str, amount: int, currency: str, reason: str) -> None:
        self._job(self._refund(request_id, amount, currency, reason), f"refund {request_id}")

    # ---- filling -----------------------------------------------------------------------

    async def _fill(self, request_id: str) -> None:
        record = self.state.get(request_id)
        try:
            if record.origin_chain_id == BITCOIN_CHAIN_ID and self.bitcoin is not None:
                gone = await bitcoin_confirmed(self.bitcoin, record, self.poll_s)
                if gone is not None:  # replaced or dropped: nothing arrived, nothing to refund
                    with contextlib.suppress(InvalidTransition):
                        self.state.advance(request_id, Status.FAILURE, details=gone)
                    return
            await self._pace()
            reason = demo_fail_reason(record)
            if reason is not None:
                await self._fail_then_refund(
                    record, reason, "demo trigger: the solver declined to fill this request"
                )
                return
            calls = calls_from_record(record.extra.get("calls"))
            if calls:
                refused = await self._run_calls(record, calls)
                if refused is not None:
                    await self._fail_then_refund(record, REVERTED, refused)
                    return
            sent_ok, out_tx = await self._deliver(
                record.destination_chain_id,
                record.destination_currency,
                record.recipient,
                record.amount_out - calls_value(calls),  # the calls' value came out of it
                leg=f"fill:{record.id}",
            )
        except Unconfirmed as exc:  # the fill may be paid: refunding could pay twice
            log.exception("fill of %s: outcome unknown, not refunded", request_id)
            with contextlib.suppress(InvalidTransition):
                self.state.advance(
                    request_id, Status.FAILURE, details=f"{exc}; not refunded automatically"
                )
            return
        except Exception as exc:  # nothing was paid out: the deposit goes back
            log.exception("fill of %s failed", request_id)
            await self._fail_then_refund(self.state.get(request_id), "UNKNOWN", str(exc))
            return
        if not sent_ok:
            with contextlib.suppress(InvalidTransition):
                self.state.advance(record.id, Status.SUBMITTED, out_tx=out_tx)
            await self._fail_then_refund(record, REVERTED, f"fill {out_tx.hash} reverted")
            return
        await self._filled(record, out_tx)

    async def _run_calls(self, record: RequestRecord, calls: tuple[Call, ...]) -> str | None:
        """Execute the request's calls on its destination chain, in order, each with its value
        (out of the output), from the solver; None when every one succeeded, else what
        reverted (the request then fails and is refunded, as the public service does). Each
        call's transaction is one of the request's out txs."""
        chain = self._chains[record.destination_chain_id]
        for i, call in enumerate(calls):
            try:
                sent = await chain.send(self.operator, to=call.to, value=call.value, data=call.data)
            except ChainRpcError as exc:  # refused at estimation: nothing was sent
                return f"call {i} to {call.to} reverts: {exc}"
            self.state.amend(record.id, out_tx=sent.tx)
            if not sent.ok:
                return f"call {i} to {call.to} reverted in {sent.tx.hash}"
        return None

    async def _filled(self, record: RequestRecord, out_tx: Tx) -> None:
        """The fill is paid. Nothing after this point may refund the deposit (the user would be
        paid twice): a failed gas top-up or bookkeeping error is logged and put in ``details``."""
        problems: list[str] = []
        try:
            self.state.advance(record.id, Status.SUBMITTED, out_tx=out_tx)
        except Exception as exc:
            log.exception("fill of %s paid in %s, but not recorded", record.id, out_tx.hash)
            problems.append(f"fill {out_tx.hash} not recorded as submitted: {exc}")
        topup = int(record.extra.get("topupNative") or 0)
        if topup and record.destination_chain_id != VENUE_CHAIN_ID:
            try:
                topup_ok, topup_tx = await self._deliver(
                    record.destination_chain_id,
                    NATIVE,
                    record.recipient,
                    topup,
                    leg=f"topup:{record.id}",
                )
                self.state.amend(record.id, out_tx=topup_tx)
                if not topup_ok:
                    problems.append(f"gas top-up {topup_tx.hash} reverted")
            except Exception as exc:
                problems.append(f"gas top-up failed: {exc}")
            if problems:
                log.error("fill of %s: %s", record.id, "; ".join(problems))
        try:
            await self._pace()
            self.state.advance(
                record.id, Status.SUCCESS, details="; ".join(problems) if problems else None
            )
        except Exception:
            log.exception("fill of %s paid in %s; success not recorded", record.id, out_tx.hash)
            with contextlib.suppress(Exception):
                self.state.amend(record.id, details="; ".join(problems) or None)

    async def _fail_then_refund(self, record: RequestRecord, reason: str, details: str) -> None:
        try:
            self.state.advance(record.id, Status.FAILURE, fail_reason=reason, details=details)
        except InvalidTransition:
            log.error("request %s cannot fail from %s", record.id, record.status)
            return
        await self._pace(SETTLE_DELAY_S)
        if record.in_txs:  # nothing to give back when no deposit was recorded
            await self._refund(record.id, record.amount_in, record.origin_currency, reason)

    async def _refund(self, request_id: str, amount: int, currency: str, reason: str) -> None:
        """Give `amount` back to ``refundTo`` on the origin chain. When that fails the request
        ends in ``failure`` with a refundFailReason (announced), never left hanging."""
        record = self.state.get(request_id)
        try:
            await self._pace()
            if amount <= 0:
                self._refund_not_paid(
                    record, TOO_LOW_TO_REFUND, reason, f"nothing to refund ({amount})"
                )
                return
            ok, tx = await self._deliver(
                record.origin_chain_id,
                currency,
                record.refund_to,
                amount,
                leg=f"refund:{record.id}",
            )
            if not ok:
                raise RuntimeError(f"refund transaction {tx.hash} reverted")
            self.state.advance(record.id, Status.REFUND, out_tx=tx, fail_reason=reason)
        except Exception as exc:
            log.exception("refund of %s failed", request_id)
            self._refund_not_paid(record, REFUND_FAILED, reason, f"refund failed: {exc}")

    def _refund_not_paid(
        self, record: RequestRecord, refund_fail_reason: str, reason: str, details: str
    ) -> None:
        try:
            self.state.refund_failed(
                record.id, refund_fail_reason, fail_reason=reason, details=details
            )
        except Exception:
            log.exception("refund failure of %s could not be recorded", record.id)

    async def _deliver(
        self, chain_id: int, currency: str, to: str, amount: int, *, leg: str
    ) -> tuple[bool, Tx]:
        """Pay `amount` of `currency` to `to` on `chain_id` from the solver's own funds (on
        the venue: from the venue depository's account)."""
        if chain_id == VENUE_CHAIN_ID:
            self.ledger.debit(self.venue_depository, currency, amount)
            self.ledger.credit(to, currency, amount)
            return True, Tx(
                hash=venue_hash(leg, to, amount),
                chain_id=VENUE_CHAIN_ID,
                from_=self.venue_depository,
                to=to_checksum_address(to),
                value=amount,
                timestamp=self.ledger.now_ms() // 1000,
            )
        if chain_id in self.svm:
            return True, await pay_on_solana(self.svm[chain_id], currency, to, amount)
        if chain_id == BITCOIN_CHAIN_ID and self.bitcoin is not None:
            return True, pay_on_bitcoin(self.bitcoin, leg, to, amount)
        chain = self._chains[chain_id]
        sent = await chain.pay(self.operator, currency, to, amount)
        return sent.ok, sent.tx

    # ---- deposit addresses -------------------------------------------------------------

    async def reindex(
        self, chain_id: int, address: str, currency: str | None
    ) -> tuple[list[dict[str, Any]], int]:
        """Look at a deposit address again (POST /transactions/deposit-address/reindex): what
        arrived there in a currency the monitor did not watch is handled now (refunded to the
        request's refundTo, failReason INCORRECT_DEPOSIT_CURRENCY). Returns the currencies it
        triggered and how many were checked (native and USDC, or `currency` alone)."""
        where = (chain_id, address.lower())
        waiting = self._unnoticed.pop(where, [])
        triggered, kept = [], []
        for payment in waiting:
            if currency is not None and payment.currency != currency.lower():
                kept.append(payment)
                continue
            requests = self.state.by_deposit_address(address)
            self._accept(requests[0] if requests else None, payment, reindexed=True)
            symbol = "ETH" if is_native(payment.currency) else "USDC"
            triggered.append(
                {"currency": payment.currency, "symbol": symbol, "balance": str(payment.amount)}
            )
        if kept:
            self._unnoticed[where] = kept
        return triggered, 1 if currency is not None else 2

    async def _sweep(self, record: RequestRecord, payment: Payment) -> None:
        """Move what a deposit address received to the operator, so refunds and fills are paid
        from liquidity the solver really holds."""
        if payment.chain_id not in self._chains:
            return
        chain = self._chains[payment.chain_id]
        account = self.state.deposit_account(record.id)
        try:
            if is_native(payment.currency):
                price = await chain.gas_price()
                balance = await chain.native_balance(account.address)
                value = balance - 21_000 * price
                if value > 0:
                    await chain.send(
                        account, to=self.operator.address, value=value, gas=21_000, gas_price=price
                    )
            else:
                balance = await chain.usdc_balance(account.address)
                if balance <= 0:
                    return
                # gas for the address's one transfer, at twice today's price
                gas = ERC20_TRANSFER_GAS * 2 * await chain.gas_price()
                await chain.send(self.operator, to=account.address, value=gas)
                await chain.pay(account, chain.usdc, self.operator.address, balance)
        except Exception:
            log.exception("sweep of deposit address %s failed", account.address)
