"""A Bitcoin item (a PSBT) in words: each input it spends, each output it pays (the deposit,
the change back to the wallet, the OP_RETURN carrying the order id), and the fee in sats and
sat/vB. `ITEMS` gives the step lists (`crossdeck quote`, the Quote view) what the item does;
the runner (`execute.bitcoin_runner`) adds whose each input and output is, once the wallet and
the deposit address are known."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from crossdeck.execute.describe.lines import Line
from crossdeck.models import StepItem
from crossdeck.models.bitcoin import BitcoinPsbtData
from crossdeck.wallet.bitcoin_psbt import DecodedPsbt, PsbtError, decode_psbt

if TYPE_CHECKING:
    from crossdeck.execute.describe.currencies import Currencies
    from crossdeck.execute.describe.family import ItemDescriber

SATS_PER_BTC = 100_000_000


def btc(sats: int) -> str:
    """'0.001 BTC (100000 sats)'."""
    whole = (Decimal(sats) / SATS_PER_BTC).normalize()
    return f"{whole:f} BTC ({sats} sats)"


def bitcoin_lines(
    data: BitcoinPsbtData,
    *,
    wallet: str | None = None,
    deposit: str | None = None,
    order_id: str | None = None,
) -> list[Line]:
    try:
        decoded = decode_psbt(data.psbt)
    except PsbtError as exc:
        return [Line("bitcoin", f"a PSBT crossdeck cannot read ({exc}): refused", kind="warning")]
    return psbt_lines(decoded, wallet=wallet, deposit=deposit, order_id=order_id)


def psbt_lines(
    decoded: DecodedPsbt,
    *,
    wallet: str | None = None,
    deposit: str | None = None,
    order_id: str | None = None,
) -> list[Line]:
    lines = [
        Line(
            "bitcoin",
            f"one transaction on Bitcoin: {len(decoded.inputs)} inputs, "
            f"{len(decoded.outputs)} outputs",
        )
    ]
    for number, spent in enumerate(decoded.inputs):
        whose = ""
        if wallet is not None:
            whose = " (this wallet's)" if spent.address == wallet else " (NOT this wallet's)"
        amount = btc(spent.value) if spent.value is not None else "an unknown amount"
        lines.append(Line(
            f"input {number}", f"spends {amount} of {spent.address or 'a script'}{whose}",
            raw=f"{spent.txid}:{spent.vout}", kind="amount",
        ))  # fmt: skip
    for out in decoded.outputs:
        if out.is_op_return:
            data = (out.op_return or b"").hex()
            what = (
                "the quote's order id"
                if order_id and data == order_id.removeprefix("0x")
                else "data"
            )
            words = f"OP_RETURN carrying {what} 0x{data} (no value)"
        elif deposit is not None and out.address == deposit:
            words = f"deposit {btc(out.value)} to {out.address}"
        elif wallet is not None and out.address == wallet:
            words = f"change {btc(out.value)} back to this wallet {out.address}"
        else:
            words = f"pays {btc(out.value)} to {out.address or out.script.hex()} (unexplained)"
        lines.append(Line(f"output {out.index}", words, raw=out.script.hex(), kind="amount"))
    fee = decoded.fee
    if fee is not None:
        rate = Decimal(fee) / decoded.vsize
        lines.append(Line(
            "fee", f"{btc(fee)}, {rate:.1f} sat/vB over {decoded.vsize} vB (signed)",
            raw=str(fee), kind="amount",
        ))  # fmt: skip
    return lines


def bitcoin_item_lines(item: StepItem, currencies: Currencies, *, full: bool = True) -> list[Line]:
    """The PSBT as the quote's own terms read it: the request's sender is the wallet, the
    payment's depository the deposit, its orderId the OP_RETURN's (the step's depositAddress,
    when there is one, is the runner's to add)."""
    quote = currencies.quote
    details = quote.details if quote is not None else None
    payment = quote.payment_details if quote is not None else None
    return bitcoin_lines(
        item.as_bitcoin(),
        wallet=details.sender if details is not None else None,
        deposit=payment.depository if payment is not None else None,
        order_id=quote.order_id if quote is not None else None,
    )


ITEMS: dict[str, ItemDescriber] = {"bitcoin": bitcoin_item_lines}
