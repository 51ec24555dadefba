"""`solana-size`: a Solana transaction must fit the 1232-byte packet (the public service refuses
larger quotes with `SOLANA_TX_TOO_LARGE`; a larger one can be neither signed usefully nor
sent). It is measured before the user is asked anything: over the quote when the item uses no
lookup table (the message is then the same bytes whatever the blockhash), and by the runner on
the message it compiled, with the tables as the node has them, before the confirm dialog.

What to do about it: the service routes a Solana swap over fewer hops when asked
(`maxRouteLength`, `--max-route-length` here), so the refusal names that re-quote.
"""

from __future__ import annotations

from typing import Any

from crossdeck.execute.guards.base import GuardResult, _fail, _ok
from crossdeck.models import QuoteRequest
from crossdeck.models.solana import SolanaTransactionData

PACKET_DATA_SIZE = 1232
SIGNATURE_SIZE = 64
SHORTER_ROUTE = (
    "ask for a shorter route: quote again with --max-route-length 1 (the service's "
    "maxRouteLength), or with fewer options that add instructions"
)


def instructions(data: SolanaTransactionData) -> list[Any]:
    """The item's instructions as solders builds them."""
    from solders.instruction import AccountMeta, Instruction
    from solders.pubkey import Pubkey

    return [
        Instruction(
            Pubkey.from_string(ix.program_id),
            ix.data_bytes(),
            [
                AccountMeta(Pubkey.from_string(k.pubkey), k.is_signer, k.is_writable)
                for k in ix.keys
            ],
        )
        for ix in data.instructions
    ]


def wire_size(message: Any) -> int:
    """The bytes of the signed transaction: its signatures (a one-byte count below 128) and
    the message."""
    count = int(message.header.num_required_signatures)
    return 1 + SIGNATURE_SIZE * count + len(bytes(message))


def size_guard(size: int, where: str, *, node: bool) -> GuardResult:
    said = "compiled with the lookup tables the node has" if node else "measured on the quote"
    if size > PACKET_DATA_SIZE:
        return _fail(
            "solana-size",
            f"the transaction is {size} bytes, {size - PACKET_DATA_SIZE} over Solana's "
            f"{PACKET_DATA_SIZE}-byte limit ({said}; the service's SOLANA_TX_TOO_LARGE): it "
            f"cannot be sent; {SHORTER_ROUTE}",
            where,
        )
    return _ok("solana-size", f"{size} of {PACKET_DATA_SIZE} bytes ({said})", where)


def quote_size_guard(
    data: SolanaTransactionData, wallet: str | None, request: QuoteRequest | None, where: str
) -> GuardResult:
    if data.address_lookup_table_addresses:
        return _ok(
            "solana-size",
            "measured right before you are asked, once the node has given the lookup tables",
            where,
        )
    payer = (request.deposit_fee_payer if request else None) or wallet
    if payer is None:
        return _fail("solana-size", "no Solana wallet to pay for the transaction", where)
    from solders.hash import Hash
    from solders.message import MessageV0
    from solders.pubkey import Pubkey

    try:
        message = MessageV0.try_compile(
            Pubkey.from_string(payer), instructions(data), [], Hash.default()
        )
    except Exception as exc:  # solders: CompileError, a key that is no key, data not hex
        return _fail("solana-size", f"the instructions make no v0 message: {exc}", where)
    return size_guard(wire_size(message), where, node=False)
