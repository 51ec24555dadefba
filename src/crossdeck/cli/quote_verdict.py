"""What a trader reads first of a quote on the command line: the verdict (can this wallet do it,
and if not, why) and the one-line pay / get / fees summary that `quote` leads with and that
`bridge` repeats right above its question."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from crossdeck.models.display import Unit, amount_text, decimal_amount_text, usd, usd_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from crossdeck.execute.guards import GuardResult
    from crossdeck.models import ChainsResponse, CurrencyAmount, Quote

LABEL = 13  # the width of the describer's labels ('Checks       ...')

# the fees a user pays, each in words; `relayer` already holds relayer gas and service fee
_FEES = (("gas", "origin gas"), ("relayer", "relayer"), ("app", "app fee"))


def _amount(value: CurrencyAmount | None, chains: ChainsResponse | None) -> str:
    """'0.1 ETH on Base ($300.00)', as a wallet shows it."""
    if value is None:
        return "?"
    symbol = value.symbol or "?"
    if value.amount is not None and value.decimals is not None:
        text = amount_text(value.amount, Unit(symbol, value.decimals))
    elif (formatted := value.amount_formatted_decimal) is not None:
        text = decimal_amount_text(formatted, symbol)
    else:
        text = f"? {symbol}"
    info = value.currency_info
    if info is not None and info.chain_id is not None:
        chain = chains.by_id(info.chain_id) if chains is not None else None
        name = (chain.display_name or chain.name) if chain is not None else None
        text += f" on {name or f'chain {info.chain_id}'}"
    if value.amount_usd is not None:
        text += f" ({usd(value.amount_usd)})"
    return text


def _usd(fees: object, name: str) -> Decimal | None:
    value = getattr(fees, name, None) if fees is not None else None
    return value.amount_usd_decimal if value is not None else None


def fees_words(quote: Quote) -> str:
    """'$0.31 (origin gas $0.01, relayer $0.30)'; '-' when the quote names no fee in USD."""
    fees = quote.fees
    parts: list[str] = []
    total = Decimal(0)
    for name, words in _FEES:
        dollars = _usd(fees, name)
        if dollars is None and name == "relayer":
            # a /quote/v3 answer prices execution and platform apart (read as relayerGas and
            # relayerService), and their sum, the relayer, without a price of its own
            found = [d for part in ("relayer_gas", "relayer_service") if (d := _usd(fees, part))]
            dollars = sum(found, Decimal(0)) if found else None
        if dollars is None or dollars == 0:
            continue
        total += dollars
        parts.append(f"{words} {usd_of(dollars)}")
    if not parts:
        return "-"
    return f"{usd_of(total)} ({', '.join(parts)})"


def summary_line(
    quote: Quote, chains: ChainsResponse | None = None, extra_fees: Sequence[str] = ()
) -> str:
    """'pay 0.1 ETH on Base ($300.00) · get 29.97 HYPE on HyperEVM ($299.70) · fees $0.30
    (relayer $0.30)'. `extra_fees` are fees the quote does not price but the user pays, each
    named in words with its unit ('venue first-send fee 1 USDC')."""
    details = quote.details
    pay = _amount(details.currency_in if details else None, chains)
    get = _amount(details.currency_out if details else None, chains)
    priced = fees_words(quote)
    fees = " + ".join(([] if priced == "-" and extra_fees else [priced]) + list(extra_fees))
    return f"pay {pay} · get {get} · fees {fees}"


def verdict(results: list[GuardResult]) -> tuple[bool, str]:
    """Whether every pre-sign check passed, and the verdict in words: affordable or not (the
    funds check's own words), then how many checks refuse it and the first reason."""
    failed = [r for r in results if not r.ok]
    funds = next((r for r in results if r.name == "funds"), None)
    if funds is None:
        afford = "affordability not checked (no RPC for the paying chain)"
    elif funds.ok:
        afford = f"affordable: {funds.message}"
    else:
        afford = f"NOT AFFORDABLE: {funds.message}"
    if not failed:
        return True, f"{afford}; all {len(results)} pre-sign checks pass"
    others = [r for r in failed if r is not funds]
    if not others:
        return False, f"{afford}; bridge would refuse it (exit 7)"
    first = others[0]
    more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
    return False, f"{afford}; REFUSED by {first.name}: {first.message}{more} (exit 7)"


def lead_lines(
    quote: Quote,
    results: list[GuardResult],
    chains: ChainsResponse | None,
    extra_fees: Sequence[str] = (),
) -> list[str]:
    """The lines `crossdeck quote` opens with."""
    _, said = verdict(results)
    return [
        f"{'Verdict':<{LABEL}}{said}",
        f"{'Summary':<{LABEL}}{summary_line(quote, chains, extra_fees)}",
        "",
    ]
