"""Send and resume for the families whose signed bytes crossdeck broadcasts itself and then
follows by asking the node again and again until a block holds them (Solana and the other SVM
chains, Bitcoin). `items.ItemRunner.run` already asks the user and signs; this is the rest,
once: the bytes out and held to the journalled id, the follow-up to a block under
`receipt_timeout`, and resume's choice between "already known" and "the same bytes again".

A family's runner says only what differs: how it broadcasts, how it reads the node's answer
(`_look`: in a block, still waiting, or never landing, which it raises), and when the same
bytes must not go out again (`_resend_words` raises). EVM transactions are not here: their
gateway waits for a receipt itself (`tx_runner`).
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from crossdeck.execute import crash
from crossdeck.execute.errors import ExecutionError
from crossdeck.execute.events import Note, RunEvent, TxConfirmed, TxSent
from crossdeck.execute.items import Item, ItemRunner, Prepared
from crossdeck.execute.journal import ItemRecord
from crossdeck.wallet.errors import RpcError

POLL_SECONDS = 0.25


@dataclass(frozen=True)
class Broadcast:
    """One signed transaction as the runner sends and follows it (a family adds what its node
    must be asked with)."""

    txid: str
    chain_id: int
    raw: str
    """The signed bytes in hex, without 0x: what goes out, the same every time."""


@dataclass(frozen=True)
class Landed:
    height: int
    """The block (Bitcoin) or slot (SVM) that holds the transaction."""


@dataclass(frozen=True)
class Waiting:
    note: str | None = None
    """Words for the user about the wait (said once), or None."""


B = TypeVar("B", bound=Broadcast)


class PolledRunner(ItemRunner, Generic[B]):
    family: ClassVar[str]
    """How the user reads the transaction's kind: 'Solana', 'Bitcoin'."""
    node: ClassVar[str]
    """Who answers a broadcast, in the mismatch error: 'the Solana RPC', 'the Bitcoin node'."""
    id_name: ClassVar[str]
    """What the node calls the transaction's id: 'signature', 'txid'."""
    known_words: ClassVar[str]
    """What resume says of a transaction the node knows already."""
    not_landed_words: ClassVar[str]
    """What the timeout says the transaction is not yet."""
    timeout_hint: ClassVar[str]
    nudge_on_send: ClassVar[bool] = False
    """The service sees the transaction before a block holds it (Bitcoin's mempool): the
    follower is nudged at the broadcast already, not only once it lands."""

    @abstractmethod
    def _sent(self, prepared: Prepared, signed: dict[str, Any]) -> B:
        """The transaction `sign` just made, as it will be sent and followed."""

    @abstractmethod
    def _journalled(self, item: Item, record: ItemRecord) -> B:
        """The transaction the journal holds (resume), as it will be followed."""

    @abstractmethod
    async def _broadcast(self, sent: B) -> str:
        """Send the bytes once; the id the node gives for them."""

    @abstractmethod
    async def _known(self, sent: B) -> bool:
        """The node knows the transaction (resume: it is not sent again)."""

    @abstractmethod
    async def _resend_words(self, item: Item, sent: B) -> str:
        """Why the same bytes may go out again (resume, the node not knowing them); raises
        (and journals the end) when they must not."""

    @abstractmethod
    async def _look(self, item: Item, sent: B) -> Landed | Waiting:
        """What the node says of the transaction now; raises (and journals the end) when it
        can never land."""

    async def _landed(self, sent: B) -> None:
        """What else the family does once a block holds it (before the follower's nudge)."""

    async def send(
        self, item: Item, prepared: Prepared, signed: dict[str, Any]
    ) -> AsyncIterator[RunEvent]:
        sent = self._sent(prepared, signed)
        given = await self._broadcast(sent)
        if given != sent.txid:
            raise ExecutionError(
                f"{self.node} gave {self.id_name} {given} for journalled {sent.txid}"
            )
        self.journal.record(*item.key, "sent")
        yield TxSent(sent.txid, sent.chain_id, 0, item.step.id, item.item_index)
        # looked up on the module at the call: a test swaps `crash.crash_point` for its own kill
        crash.crash_point("after-send", item.step.id)
        if self.nudge_on_send:
            self.shop.acted(item.run)
        async for event in self._confirmed(item, sent):
            yield event

    async def finish(self, item: Item, record: ItemRecord) -> AsyncIterator[RunEvent]:
        sent = self._journalled(item, record)
        if await self._known(sent):
            yield Note(f"{self.family} transaction {sent.txid} {self.known_words}; not resent")
        else:
            yield Note(await self._resend_words(item, sent))
            await self._broadcast(sent)
            yield TxSent(sent.txid, sent.chain_id, 0, item.step.id, item.item_index)
        self.journal.record(*item.key, "sent")
        async for event in self._confirmed(item, sent):
            yield event

    async def _confirmed(self, item: Item, sent: B) -> AsyncIterator[RunEvent]:
        """Follow the transaction into a block, within `receipt_timeout` (a limit: resume
        follows it on, it is journalled)."""
        timeout = self.shop.options.receipt_timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        said: set[str] = set()
        while True:
            looked = await self._look(item, sent)
            if isinstance(looked, Landed):
                break
            if looked.note is not None and looked.note not in said:
                said.add(looked.note)
                yield Note(looked.note)
            if loop.time() > deadline:
                raise RpcError(
                    f"{self.family} transaction {sent.txid} is not {self.not_landed_words} "
                    f"after {timeout:.0f} s",
                    hint=self.timeout_hint,
                )
            await asyncio.sleep(POLL_SECONDS)
        self.journal.record(*item.key, "done")
        yield TxConfirmed(sent.txid, sent.chain_id, looked.height, 0, item.step.id,
                          item.item_index)  # fmt: skip
        await self._landed(sent)
        self.shop.acted(item.run)
