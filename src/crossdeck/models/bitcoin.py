"""A Bitcoin-origin item: `{"psbt": "<hex>"}`, the deposit as a PSBT for the wallet to sign
(realdata/quote/docs-bitcoin-*.json); `wallet.bitcoin_psbt` decodes it in full."""

from __future__ import annotations

from crossdeck.models.base import WireModel


class BitcoinPsbtData(WireModel):
    psbt: str
