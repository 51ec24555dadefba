"""SVM transactions (Solana, Eclipse, any chain /chains lists as 'svm') through the journalled
template. An item is for the chain the quote pays on (`guards.solana.svm_chain`): its RPC is
that chain's (`rpc.<chain id>`), its depository the one /chains names for it; the journal keeps
the chain id, so `resume` asks the same chain.

prepare: the item guards (`guards.solana`: every instruction read and held to the quote), the
  lookup tables fetched, a v0 message compiled and read back (every account it resolves
  through a table must be the instruction's own), and `simulateTransaction` must succeed:
  all before the user is asked.
sign: right before signing the message is built again on a fresh blockhash (one lives about a
  minute, the user may have taken longer) with the tables fetched again, read back the same
  way, and signed by every signer it needs; the signed bytes and their signature are journalled
  (synced) before anything is sent.
send: the bytes go out once; the signature is confirmed until the blockhash expires; then the
  service is told (`POST /transactions/index`, the signature in base58 and the chain id as a
  string, as the public SDK does).
finish (resume): the journalled signature is looked up; not landed and its blockhash still
  valid, the same bytes (same signature) are sent again; expired, it can never land and
  nothing was taken. An expiry is journalled (`expired`): the run ended, so `resume` and the
  app's resume offer no longer list it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crossdeck.execute import describe
from crossdeck.execute.announce import announce
from crossdeck.execute.errors import ExecutionError
from crossdeck.execute.events import SignRequest
from crossdeck.execute.guards import GuardResult, refused, require
from crossdeck.execute.guards.solana import (
    LEDGER_GUARDS,
    SvmChain,
    ledger_guards,
    rent_accounts,
    solana_ledger,
    svm_chain,
)
from crossdeck.execute.guards.solana_ledger import Ledger
from crossdeck.execute.guards.solana_size import instructions, size_guard, wire_size
from crossdeck.execute.items import Item, Prepared
from crossdeck.execute.journal import ItemRecord
from crossdeck.execute.polled_runner import Broadcast, Landed, PolledRunner, Waiting
from crossdeck.models.display import Unit, units_text
from crossdeck.models.solana import SolanaTransactionData

if TYPE_CHECKING:
    from crossdeck.wallet.solana import SolanaGateway, SolanaKeySigner, SolanaParts

SOL = Unit("SOL", 9)


async def _tables(gateway: SolanaGateway, data: SolanaTransactionData) -> dict[str, list[str]]:
    return {
        address: await gateway.lookup_table(address)
        for address in data.address_lookup_table_addresses
    }


def _compile(
    data: SolanaTransactionData, payer: str, tables: dict[str, list[str]], blockhash: str
) -> Any:
    from solders.address_lookup_table_account import AddressLookupTableAccount
    from solders.hash import Hash
    from solders.message import MessageV0
    from solders.pubkey import Pubkey

    accounts = [
        AddressLookupTableAccount(Pubkey.from_string(key), [Pubkey.from_string(a) for a in keys])
        for key, keys in tables.items()
    ]
    return MessageV0.try_compile(
        Pubkey.from_string(payer), instructions(data), accounts, Hash.from_string(blockhash)
    )


def read_back(message: Any, tables: dict[str, list[str]]) -> list[tuple[str, list[str], bytes]]:
    """Each compiled instruction as (program, accounts, data), its accounts resolved the way
    the chain will: the static keys, then each lookup's writable, then read-only entries of
    `tables` (as fetched). What the message will do, read from the message itself."""
    static = [str(k) for k in message.account_keys]
    writable: list[str] = []
    readonly: list[str] = []
    for lookup in message.address_table_lookups:
        entries = tables.get(str(lookup.account_key))
        if entries is None:
            raise ValueError(f"the message uses lookup table {lookup.account_key}, not fetched")
        for index in bytes(lookup.writable_indexes):
            writable.append(entries[index])
        for index in bytes(lookup.readonly_indexes):
            readonly.append(entries[index])
    keys = static + writable + readonly
    return [
        (keys[ix.program_id_index], [keys[i] for i in bytes(ix.accounts)], bytes(ix.data))
        for ix in message.instructions
    ]


def lookup_guard(
    data: SolanaTransactionData, message: Any, tables: dict[str, list[str]], where: str
) -> GuardResult:
    """`solana-lookup-table`: the message, resolved through the tables as they are on chain,
    runs exactly the quote's instructions on exactly their accounts."""
    try:
        resolved = read_back(message, tables)
    except (ValueError, IndexError) as exc:
        return GuardResult("solana-lookup-table", False, f"the message cannot be read: {exc}",
                           where)  # fmt: skip
    wanted = [
        (ix.program_id, [k.pubkey for k in ix.keys], ix.data_bytes()) for ix in data.instructions
    ]
    for number, (got, want) in enumerate(zip(resolved, wanted, strict=False), start=1):
        if got != want:
            moved = [f"{w} -> {g}" for g, w in zip(got[1], want[1], strict=False) if g != w]
            detail = "; ".join(moved) or "its program or data"
            return GuardResult(
                "solana-lookup-table",
                False,
                f"instruction {number} would resolve an account elsewhere through a lookup "
                f"table ({detail}): refused",
                where,
            )
    if len(resolved) != len(wanted):
        return GuardResult("solana-lookup-table", False,
                           "the message holds another number of instructions", where)  # fmt: skip
    used = len(message.address_table_lookups)
    return GuardResult(
        "solana-lookup-table",
        True,
        f"every account resolves to the quote's own ({used} lookup tables used, as the node "
        "holds them)",
        where,
    )


def ledger_lines(ledger: Ledger, unit: Unit = SOL) -> list[describe.Line]:
    """What the wallet pays, line by line, as the ledger counted it: the dialog's fees are
    these lines, and `solana-ledger` held the lamports leaving the wallet to their sum.
    `unit`: the chain's native currency (9 decimals on every SVM chain: SOL, Eclipse's ETH)."""
    lines = []
    for charge in ledger.charges:
        whose = "" if charge.payer == ledger.wallet else f" (paid by {charge.payer})"
        bound = "at most " if charge.at_most else ""
        sign = "-" if charge.lamports < 0 else ""
        sol = sign + units_text(abs(charge.lamports), unit)
        lines.append(describe.Line(
            charge.kind, f"{bound}{sol}: {charge.what}{whose}", raw=str(charge.lamports),
            kind="amount",
        ))  # fmt: skip
    total = units_text(ledger.leaving, unit)
    lines.append(describe.Line("leaves wallet", f"{total} in all, to the lamport",
                               raw=str(ledger.leaving), kind="amount"))  # fmt: skip
    return lines


@dataclass(frozen=True)
class SolanaSent(Broadcast):
    gateway: SolanaGateway
    """The RPC of the chain it was signed for."""
    valid_height: int
    """Its blockhash's last valid block height: past it, unlanded, it never lands."""


class SolanaRunner(PolledRunner[SolanaSent]):
    family = "Solana"
    node = "the Solana RPC"
    id_name = "signature"
    known_words = "is already on chain"
    not_landed_words = "confirmed"
    timeout_hint = "`crossdeck resume` finds it (it is journalled)"

    def parts(self, where: str) -> SolanaParts:
        solana = self.shop.parts.solana
        if solana is None:
            raise refused(
                "solana-configured",
                "no Solana key (the SVM wallet) to send with (import one with `crossdeck wallet "
                "import-solana`)",
                where,
            )
        return solana

    def chain(self, item: Item) -> SvmChain:
        """The SVM chain the item is for, or refused (guards.solana's `solana-chain`)."""
        chain = svm_chain(item.run.quote, self.shop.chains, item.run.request)
        if chain.problem is not None or chain.chain_id is None:
            raise refused("solana-chain", chain.problem or "no chain", item.where)
        return chain

    def gateway(self, item: Item, solana: SolanaParts, chain_id: int) -> SolanaGateway:
        """The RPC of the item's chain: never another SVM chain's (a transaction built on
        one chain's blockhash and sent to another's never lands; worse, one whose depository
        is the same would pay on the wrong chain)."""
        gateway = solana.gateway(chain_id)
        if gateway is None:
            raise refused(
                "solana-configured",
                f"no RPC for SVM chain {chain_id} to send with (set rpc.{chain_id})",
                item.where,
            )
        return gateway

    def _payer(self, item: Item, signer: SolanaKeySigner) -> str:
        request = item.run.request
        payer = request.deposit_fee_payer if request is not None else None
        return payer or signer.address

    async def _build(
        self, item: Item, solana: SolanaParts, gateway: SolanaGateway
    ) -> tuple[Any, dict[str, list[str]], int, GuardResult]:
        data = item.data.as_solana()
        payer = self._payer(item, solana.signer)
        blockhash, valid_height = await gateway.latest_blockhash()
        tables = await _tables(gateway, data)
        try:
            message = _compile(data, payer, tables, blockhash)
        except Exception as exc:  # solders: CompileError and friends
            raise refused(
                "solana-message", f"the instructions make no v0 message: {exc}", item.where
            ) from None
        return message, tables, valid_height, lookup_guard(data, message, tables, item.where)

    def _unsigned_wire(self, message: Any) -> bytes:
        from solders.signature import Signature
        from solders.transaction import VersionedTransaction

        count = message.header.num_required_signatures
        return bytes(VersionedTransaction.populate(message, [Signature.default()] * count))

    async def _ledger(
        self, item: Item, solana: SolanaParts, gateway: SolanaGateway, chain: SvmChain,
        results: list[GuardResult],
    ) -> tuple[list[GuardResult], Ledger | None]:  # fmt: skip
        """The item guards with the ledger counted again, now that the node says which of the
        accounts whose rent depends on it exist (its words replace the quote-time count's)."""
        data = item.data.as_solana()
        exists = {
            account: await gateway.account_data(account) is not None
            for account in rent_accounts(data, chain)
        }
        ledger = solana_ledger(data, solana.signer.address, item.run.request, exists, chain)
        if ledger is None:
            return results, None
        kept = [r for r in results if r.name not in (*LEDGER_GUARDS, "solana-ledger")]
        return kept + ledger_guards(ledger, item.where), ledger

    async def prepare(self, item: Item) -> Prepared:
        solana = self.parts(item.where)
        results = self.shop.item_guards(item)
        require(results)
        chain = self.chain(item)
        assert chain.chain_id is not None
        chain_id = chain.chain_id
        gateway = self.gateway(item, solana, chain_id)
        results, ledger = await self._ledger(item, solana, gateway, chain, results)
        require(results)
        message, _tables, _, lookup = await self._build(item, solana, gateway)
        results.append(lookup)
        results = [r for r in results if r.name != "solana-size"]
        results.append(size_guard(wire_size(message), item.where, node=True))
        require(results)
        missing = self._missing_signers(message, solana)
        if missing:
            results.append(GuardResult(
                "solana-signers", False,
                f"the transaction needs the signature of {missing[0]}, whose key crossdeck "
                "does not hold (a depositFeePayer's key is given with "
                "--deposit-fee-payer-keypair)", item.where,
            ))  # fmt: skip
            require(results)
        err, logs = await gateway.simulate(self._unsigned_wire(message))
        if err is not None:
            tail = "; ".join(logs[-3:])
            results.append(GuardResult(
                "solana-simulation", False, f"the simulation fails: {err} ({tail})", item.where
            ))  # fmt: skip
            require(results)
        results.append(GuardResult(
            "solana-simulation", True, "the node's simulation succeeds (a second layer: no "
            "guard above rests on it)", item.where,
        ))  # fmt: skip
        currencies = describe.Currencies(item.run.quote, self.shop.chains)
        data = item.data.as_solana()
        lines = describe.solana_lines(data, currencies)
        lines.append(describe.Line("fee payer", self._payer(item, solana.signer)))
        if ledger is not None:
            lines += ledger_lines(ledger, Unit(chain.native, SOL.decimals))
        request = SignRequest(
            kind="transaction",
            step_id=item.step.id,
            item_index=item.item_index,
            title=f"Send a Solana transaction (step {item.step.id})",
            lines=tuple(lines),
            payload={"chainId": chain_id, **data.to_wire(),
                     "message": base64.b64encode(bytes(message)).decode()},
            guards=tuple(results),
            chain_id=chain_id,
        )  # fmt: skip
        return Prepared(
            request,
            intent={"kind": "solana", "chain_id": chain_id},
            detail={"item": item, "solana": solana, "gateway": gateway},
        )

    @staticmethod
    def _signers(message: Any) -> list[str]:
        count = message.header.num_required_signatures
        return [str(k) for k in message.account_keys[:count]]

    def _missing_signers(self, message: Any, solana: SolanaParts) -> list[str]:
        held = solana.keys()
        return [key for key in self._signers(message) if key not in held]

    async def sign(self, prepared: Prepared) -> dict[str, Any]:
        from solders.transaction import VersionedTransaction

        item: Item = prepared.detail["item"]
        solana: SolanaParts = prepared.detail["solana"]
        gateway: SolanaGateway = prepared.detail["gateway"]
        # built again right before signing: a fresh blockhash, the tables as they are now
        message, _, valid_height, lookup = await self._build(item, solana, gateway)
        require([lookup, size_guard(wire_size(message), item.where, node=True)])
        missing = self._missing_signers(message, solana)
        if missing:
            raise refused("solana-signers", f"no key here for signer {missing[0]}", item.where)
        # every signer the message needs (the wallet, and a depositFeePayer given for the
        # run), in the message's order; the item guards allowed exactly these two
        held = solana.keys()
        tx = VersionedTransaction(message, [held[key].keypair() for key in self._signers(message)])
        return {
            "raw_tx": "0x" + bytes(tx).hex(),
            "tx_hash": str(tx.signatures[0]),
            "chain_id": gateway.chain_id,
            "signed": {"lastValidBlockHeight": valid_height},
        }

    def _sent(self, prepared: Prepared, signed: dict[str, Any]) -> SolanaSent:
        gateway: SolanaGateway = prepared.detail["gateway"]
        valid = int(signed["signed"]["lastValidBlockHeight"])
        return SolanaSent(signed["tx_hash"], gateway.chain_id, _hex(signed["raw_tx"]), gateway,
                          valid)  # fmt: skip

    def _journalled(self, item: Item, record: ItemRecord) -> SolanaSent:
        solana = self.parts(item.where)
        # the chain the journal says it was signed for: the RPC asked is that chain's
        journalled = record.chain_id if record.chain_id else self.chain(item).chain_id
        assert journalled is not None
        gateway = self.gateway(item, solana, journalled)
        assert record.tx_hash is not None and record.raw_tx is not None
        valid = int((record.signed or {}).get("lastValidBlockHeight") or 0)
        return SolanaSent(record.tx_hash, gateway.chain_id, _hex(record.raw_tx), gateway, valid)

    async def _broadcast(self, sent: SolanaSent) -> str:
        return await sent.gateway.send(bytes.fromhex(sent.raw))

    async def _known(self, sent: SolanaSent) -> bool:
        return await sent.gateway.signature_status(sent.txid) is not None

    async def _resend_words(self, item: Item, sent: SolanaSent) -> str:
        await self._end_if_expired(item, sent)
        return (
            f"Solana transaction {sent.txid} has not landed: sending the same signed "
            "bytes again (same signature)"
        )

    async def _look(self, item: Item, sent: SolanaSent) -> Landed | Waiting:
        status = await sent.gateway.signature_status(sent.txid)
        if status is not None and status.err is not None:
            self.journal.record(*item.key, "reverted")
            raise ExecutionError(
                f"Solana transaction {sent.txid} ({item.step.id}) failed: {status.err}",
                hint="its fee was paid, nothing else moved; ask for a new quote",
            )
        if status is not None and status.landed:
            return Landed(status.slot or 0)
        if status is None:
            await self._end_if_expired(item, sent)
        return Waiting()

    async def _end_if_expired(self, item: Item, sent: SolanaSent) -> None:
        """Unlanded past its blockhash's last valid block height, it can never land: the run
        ends, journalled `expired` (resume and the app no longer offer it)."""
        if await sent.gateway.block_height() > sent.valid_height:
            self.journal.record(*item.key, "expired")
            raise ExecutionError(
                f"Solana transaction {sent.txid} expired unlanded (its blockhash is past "
                "its last valid block height): nothing was taken",
                hint="ask for a new quote",
            )

    async def _landed(self, sent: SolanaSent) -> None:
        await announce(self.shop.parts.service.index_solana_transaction(sent.txid, sent.chain_id))


def _hex(raw_tx: str) -> str:
    return raw_tx.removeprefix("0x")
