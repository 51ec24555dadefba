"""The service's non-EVM chains: the SVM chains (vmType svm: Solana, Eclipse) and Bitcoin (bvm).

Their addresses are case-sensitive (base58, bech32), so their currencies are keyed as written.
The world runs a Solana (`crossdeck.sim.solana`) and a Bitcoin UTXO chain (`crossdeck.sim.bitcoin`,
served by `crossdeck.sim.bitcoin_esplora`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crossdeck.sim.bitcoin import BitcoinChain
from crossdeck.sim.service.currencies import Currency

SOLANA_CHAIN_ID = 792703809
BITCOIN_CHAIN_ID = 8253038
SOL_ADDRESS = "11111111111111111111111111111111"
SOLANA_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
# as the public answers write it (realdata/quote/docs-bitcoin-*.json); solana.md's copy has four
# q's more, a text whose bech32 checksum fails
BTC_ADDRESS = "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8"


@dataclass(frozen=True)
class NonEvmChain:
    chain_id: int
    name: str
    display_name: str
    vm_type: str  # 'svm' | 'bvm'
    currencies: tuple[Currency, ...]
    depository: str  # where deposits go: the Solana program; the solver's address on Bitcoin
    solver_address: str  # who fills recipients on this chain
    rpc_url: str = ""
    ws_url: str = ""  # /chains' wsRpcUrl: Solana's PubSub websocket
    explorer_url: str = field(default="")
    lookup_table: str = ""  # Solana: the table the service's deposit items name
    bitcoin: BitcoinChain | None = field(default=None, repr=False)  # Bitcoin: its UTXOs, fees

    def __post_init__(self) -> None:
        if not self.explorer_url:
            object.__setattr__(self, "explorer_url", f"https://explorer.demo.invalid/{self.name}")

    @property
    def native(self) -> Currency:
        return next(c for c in self.currencies if c.is_native)


def svm_currencies(
    chain_id: int, usdc_mint: str, native_symbol: str = "SOL", native_name: str = "Solana"
) -> tuple[Currency, ...]:
    """An SVM chain's native currency (9 decimals, at the System program's address, priced as
    its asset: SOL on Solana, ether on Eclipse) and its USDC mint."""
    return (
        Currency(chain_id, SOL_ADDRESS, native_symbol, native_name, 9, asset=native_symbol,
                 is_native=True),
        Currency(chain_id, usdc_mint, "USDC", "USD Coin", 6, asset="USDC"),
    )  # fmt: skip


def solana_currencies() -> tuple[Currency, ...]:
    return svm_currencies(SOLANA_CHAIN_ID, SOLANA_USDC)


def bitcoin_currencies() -> tuple[Currency, ...]:
    return (
        Currency(BITCOIN_CHAIN_ID, BTC_ADDRESS, "BTC", "Bitcoin", 8, asset="BTC", is_native=True),
    )
