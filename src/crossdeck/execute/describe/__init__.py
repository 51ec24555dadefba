"""What will be signed, and the quote it comes from, in words: the one describer.

It returns structured lines (`Line`: label, value, the raw figure, a kind) grouped in `Section`s;
the CLI prints them (`text_lines`, and `to_json` for `--json`) and the app renders them (the
confirm dialog, the Quote view, the Execute screen). Nothing here formats for a screen.

Every amount is written in its currency's units with the symbol, next to the exact integer the
wire carries ("10 USDC (10000000)"); the symbols and decimals come from the quote and `/chains`
(`Currencies`). Calldata is decoded by ABI (`guards.calldata`), typed data and POST bodies are
shown as JSON, USD values to the cent, times in local ISO time. Money stays integers: `Decimal`
appears only to round a USD string for display.

One module per job, and one per chain family:
- `lines`: `Line`, `Section` and the text forms they share; `currencies`: units and `money`;
- `evm` (transactions), `typed_data` (EIP-712 / EIP-191 signatures and their POST), `venue`
  (venue actions), `solana` (instructions), `bitcoin` (a PSBT: inputs, outputs, change, fee):
  each says what its runner will sign, and gives
  `ITEMS`, its step items' lines by kind (`family.ItemDescriber`);
- `items`: a quote's steps, each item through its family's `ITEMS` (a new family adds its
  module to `items.FAMILIES`, no branch); `quote`: the quote's sections and headline;
- `legs`: what a request's legs are called after the signing.
Everything the runners, the CLI and the app use is importable from here.
"""

from __future__ import annotations

from crossdeck.execute.describe.currencies import Currencies, money
from crossdeck.execute.describe.evm import call_words, transaction_lines, transaction_title
from crossdeck.execute.describe.items import item_lines, step_section, step_words
from crossdeck.execute.describe.legs import out_leg
from crossdeck.execute.describe.lines import (
    LABEL_WIDTH,
    Line,
    LineKind,
    Section,
    json_text,
    label_width,
    text_lines,
    time_line,
)
from crossdeck.execute.describe.quote import Headline, headline, quote_sections
from crossdeck.execute.describe.solana import solana_lines
from crossdeck.execute.describe.typed_data import (
    message_lines,
    post_lines,
    signature_title,
    typed_data_lines,
)
from crossdeck.execute.describe.venue import venue_lines, venue_title, venue_transfer_words

__all__ = [
    "LABEL_WIDTH",
    "Currencies",
    "Headline",
    "Line",
    "LineKind",
    "Section",
    "call_words",
    "headline",
    "item_lines",
    "json_text",
    "label_width",
    "message_lines",
    "money",
    "out_leg",
    "post_lines",
    "quote_sections",
    "signature_title",
    "solana_lines",
    "step_section",
    "step_words",
    "text_lines",
    "time_line",
    "transaction_lines",
    "transaction_title",
    "typed_data_lines",
    "venue_lines",
    "venue_title",
    "venue_transfer_words",
]
