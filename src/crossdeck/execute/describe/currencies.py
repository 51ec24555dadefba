"""Symbols and decimals by chain and address (`Currencies`), and a quote's currency amounts in
words (`money`): every family's lines write amounts through these, in the currency's units with
the symbol beside the exact integer the wire carries ("10 USDC (10000000)")."""

from __future__ import annotations

from crossdeck.execute.describe.lines import Line
from crossdeck.models import (
    NATIVE_ADDRESS,
    NATIVE_DECIMALS,
    VENUE_CHAIN_ID,
    ChainsResponse,
    CurrencyAmount,
    Quote,
)
from crossdeck.models.addresses import (
    NATIVE_CURRENCY,
    Family,
    UnknownFamily,
    canonical_address,
    family_of,
)
from crossdeck.models.display import Unit, chain_label, shown_number, units_text, usd
from crossdeck.models.text import short


class Currencies:
    """Symbols and decimals by (chain id, address), from `/chains` and the quote's own amounts;
    a chain's native currency by chain id (18 decimals on EVM when nothing names it)."""

    def __init__(self, quote: Quote | None = None, chains: ChainsResponse | None = None) -> None:
        self.chains = chains
        self.quote = quote  # a family's describer may read the quote's own terms (Bitcoin)
        self._tokens: dict[tuple[int, str], Unit] = {}
        for amount in _quote_amounts(quote):
            info = amount.currency_info
            if info and info.chain_id is not None and info.address and info.decimals is not None:
                self._add(info.chain_id, info.address, info.symbol, info.decimals)
        for chain in chains.chains if chains else ():
            if chain.id is None:
                continue
            for currency in chain.currencies:
                if currency.address and currency.decimals is not None:
                    self._add(chain.id, currency.address, currency.symbol, currency.decimals)

    def _add(self, chain_id: int, address: str, symbol: str | None, decimals: int) -> None:
        self._tokens.setdefault(
            (chain_id, canonical_address(address)), Unit(symbol or short(address), decimals)
        )

    def token(self, chain_id: int | None, address: str | None) -> Unit | None:
        if chain_id is None or not address:
            return None
        return self._tokens.get((chain_id, canonical_address(address)))

    def native(self, chain_id: int | None) -> Unit:
        known = self.token(chain_id, NATIVE_ADDRESS)
        if known is None and chain_id is not None:  # SOL, BTC: the family's native address
            known = self.token(chain_id, NATIVE_CURRENCY[self._family(chain_id)])
        if known is not None and chain_id != VENUE_CHAIN_ID:
            return known
        return Unit("native", NATIVE_DECIMALS)

    def _family(self, chain_id: int) -> Family:
        try:
            return self.chains.family(chain_id) if self.chains else family_of(chain_id)
        except UnknownFamily:
            return Family.EVM

    def chain_name(self, chain_id: int | None) -> str:
        """'Base (8453)', or 'chain 8453' when /chains does not name it."""
        return "chain ?" if chain_id is None else chain_label(self.chains, chain_id)


def _quote_amounts(quote: Quote | None) -> list[CurrencyAmount]:
    if quote is None:
        return []
    found: list[CurrencyAmount | None] = []
    details = quote.details
    if details is not None:
        found += [
            details.currency_in,
            details.currency_out,
            details.currency_gas_topup,
            details.refund_currency,
        ]
    fees = quote.fees
    if fees is not None:
        found += [getattr(fees, name) for name in FEE_LABELS]
    return [amount for amount in found if amount is not None]


# the quote's fee fields, by the label each is shown with
FEE_LABELS = {
    "gas": "origin gas",
    "relayer": "relayer total",
    "relayer_gas": "  destination gas",
    "relayer_service": "  service fee",
    "app": "app fee",
    "subsidized": "sponsored",
    "swap": "swap fee",  # /quote/v3 only (its fees' `swap` component; v2 sent none)
}


def money(value: CurrencyAmount | None, currencies: Currencies | None = None) -> str:
    """A currency amount of the quote: '10 USDC (10000000) on Base (8453), $10.00'."""
    if value is None:
        return "-"
    info = value.currency_info
    symbol = value.symbol or "?"
    if value.amount is not None and value.decimals is not None:
        text = units_text(value.amount, Unit(symbol, value.decimals))
    elif value.amount_formatted is not None:
        raw = f" ({value.amount})" if value.amount is not None else ""
        formatted = value.amount_formatted_decimal
        shown = shown_number(formatted) if formatted is not None else value.amount_formatted
        text = f"{shown} {symbol}{raw}"
    elif value.amount is not None:
        text = f"{value.amount} (smallest unit of {symbol}, decimals unknown)"
    else:
        text = f"? {symbol}"
    if info is not None and info.chain_id is not None:
        text += " on " + (currencies or Currencies()).chain_name(info.chain_id)
    if value.amount_usd is not None:
        text += f", {usd(value.amount_usd)}"
    return text


def amount_line(label: str, value: CurrencyAmount, currencies: Currencies) -> Line:
    raw = str(value.amount) if value.amount is not None else None
    return Line(label, money(value, currencies), raw=raw, kind="amount")
