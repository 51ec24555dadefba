"""Solana transactions in words: each instruction decoded (amounts in their units where the
currency is listed), its program and raw data beside it, and the lookup tables it names; an
instruction that does not decode is said to be refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from crossdeck.execute.describe.currencies import Currencies
from crossdeck.execute.describe.lines import Line
from crossdeck.models import StepItem
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.models.display import Unit, units_text
from crossdeck.models.solana import SYSTEM_PROGRAM as SOLANA_SYSTEM
from crossdeck.models.solana import SolanaInstruction, SolanaTransactionData, Undecodable
from crossdeck.models.solana import decode as decode_solana
from crossdeck.models.solana import program_name as solana_program_name

if TYPE_CHECKING:
    from crossdeck.execute.describe.family import ItemDescriber


def solana_lines(data: SolanaTransactionData, currencies: Currencies) -> list[Line]:
    """A transaction on an SVM chain (the one the quote pays on): each instruction in words
    (amounts in their units where the currency is listed), its program and raw data beside;
    the lookup tables it names."""
    from crossdeck.execute.guards.solana import svm_chain

    chain = svm_chain(currencies.quote, currencies.chains, None) if currencies.quote else None
    chain_id = chain.chain_id if chain is not None and chain.chain_id is not None else None
    if chain_id is None:
        lines = [Line("solana", "one transaction on an SVM chain the quote does not name")]
    else:
        lines = [Line("solana", f"one transaction on {currencies.chain_name(chain_id)}")]
    depository = chain.depository if chain is not None else None
    for number, instruction in enumerate(data.instructions, start=1):
        raw = instruction.data or "(none)"
        try:
            decoded = decode_solana(
                instruction, depository or "", chain.native if chain is not None else "SOL"
            )
        except Undecodable as exc:
            lines.append(Line(f"ix {number}", f"{exc} (it is refused)", raw=raw, kind="calldata"))
            lines.append(_solana_data_line(instruction))
            continue
        words = decoded.words
        amount = decoded.fields.get("amount", decoded.fields.get("lamports"))
        unit = None
        if chain_id is None:
            pass
        elif decoded.name in ("deposit_native",) or (
            decoded.program == SOLANA_SYSTEM and decoded.name == "transfer"
        ):
            unit = currencies.token(chain_id, SOLANA_SYSTEM) or (
                Unit("SOL", 9) if chain_id == SOLANA_CHAIN_ID else None
            )
        elif isinstance(decoded.fields.get("mint"), str):
            unit = currencies.token(chain_id, str(decoded.fields["mint"]))
        if isinstance(amount, int) and unit is not None:
            words = f"{words} ({units_text(amount, unit)})"
        program = solana_program_name(instruction.program_id, depository or "")
        lines.append(Line(f"ix {number}", f"{program}: {words}", raw=raw, kind="calldata"))
        lines.append(Line("program", instruction.program_id, raw=instruction.program_id))
        lines.append(_solana_data_line(instruction))
    for table in data.address_lookup_table_addresses:
        lines.append(Line("lookup table", table, raw=table))
    return lines


def _solana_data_line(instruction: SolanaInstruction) -> Line:
    """An instruction's raw data beside its words, as `data` is beside decoded calldata (text
    that is not hex is not echoed: it came from the service and may hold escape codes)."""
    try:
        data = instruction.data_bytes()
    except ValueError:
        return Line("data", f"not hex ({len(instruction.data)} characters)", kind="calldata")
    if not data:
        return Line("data", "0 bytes", raw="", kind="calldata")
    return Line("data", f"{len(data)} bytes: {data.hex()}", raw=data.hex(), kind="calldata")


def solana_item_lines(item: StepItem, currencies: Currencies, *, full: bool) -> list[Line]:
    return solana_lines(item.as_solana(), currencies)


ITEMS: dict[str, ItemDescriber] = {"solana": solana_item_lines}
