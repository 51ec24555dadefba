"""Explorer links of a transaction from /chains' explorerUrl and explorerPaths templates."""

from __future__ import annotations

import json
from pathlib import Path

from crossdeck.history import ExplorerLinks
from crossdeck.models import ChainInfo, ChainsResponse

CHAINS = Path(__file__).parents[1] / "models" / "fixtures" / "chains.json"


def test_tx_links_of_the_recorded_chains_and_of_each_template_form() -> None:
    chains = ChainsResponse.from_wire(json.loads(CHAINS.read_text()))
    links = ExplorerLinks(chains)
    tx = "0x" + "11" * 32
    assert links.tx_url(8453, tx) == f"https://basescan.org/tx/{tx}"
    assert links.tx_url(1337, tx) == f"https://explorer.venue.example/tx/{tx}"
    prefix = ChainInfo(
        id=1, explorer_url="https://x.example/", explorer_paths={"transaction": "/txn/"}
    )
    absolute = ChainInfo(
        id=2,
        explorer_url="https://x.example",
        explorer_paths={"transaction": "https://other.example/t/{txHash}?x=1"},
    )
    forms = ExplorerLinks([prefix, absolute, ChainInfo(id=5)])
    assert forms.tx_url(1, "0xab") == "https://x.example/txn/0xab"
    assert forms.tx_url(2, "0xab") == "https://other.example/t/0xab?x=1"
    assert forms.tx_url(5, "0xab") is None  # a chain without an explorer
