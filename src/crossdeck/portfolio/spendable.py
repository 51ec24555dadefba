"""What a wallet can spend of one currency: its balance, and the most a payment of it can be
(the Quote form's Max and 25/50/75%). No UI here; the form only shows and fills.

- a chain's native currency: the balance less the gas the payment needs, estimated as the
  chain's max fee per gas times `PAYMENT_GAS_LIMIT` (a margin over a deposit's gas use);
- a token on an EVM chain: its whole balance (the gas is paid in the native currency);
- a venue currency (chain 1337) in USDC: `VenueAccount.max_send` of its book, which is what
  can leave less the first-send fee while that is due (computed there, not here);
- SOL on a Solana (SVM) chain: the balance less a transaction's fee and the rent-exempt
  minimum the wallet's account must keep (the node's `getMinimumBalanceForRentExemption`);
  an SPL token: its whole balance (the fee is paid in SOL);
- BTC: the unspent outputs less the fee of a deposit spending them all, at the node's fastest
  fee estimate (Esplora's `/fee-estimates`), as the `bitcoin-fee` guard measures a PSBT.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crossdeck.models.chains import NATIVE_ADDRESS, VENUE_CHAIN_ID
from crossdeck.models.display import Unit, amount_text, gwei_text
from crossdeck.models.units import format_units
from crossdeck.models.venue import USDC_DECIMALS
from crossdeck.venue.account import PERPS, SPOT, read_account
from crossdeck.venue.currencies import PERPS_DEX, SPOT_DEX, SPOT_USDC_TOKEN_ID, expected_token_id
from crossdeck.venue.fee import usdc_text

if TYPE_CHECKING:
    from crossdeck.models.chains import ChainsResponse
    from crossdeck.venue.client import VenueClient

# gas kept for a native payment: a deposit with calldata uses well under this; the chain's
# max fee per gas (twice the base fee plus the tip) times this is what Max leaves
PAYMENT_GAS_LIMIT = 200_000
FRACTIONS = (25, 50, 75)


@dataclass(frozen=True)
class Spendable:
    """`held` and `most` in the currency's smallest unit; `note` says what Max leaves out, in
    a few words that fit one line of the form; `detail` how that was reckoned (gas, rates)."""

    chain_id: int
    currency: str
    wallet: str
    held: int
    most: int
    decimals: int
    note: str = ""
    detail: str = ""

    def fraction(self, percent: int) -> int:
        """`percent` of the most, rounded down to the smallest unit."""
        return self.most * percent // 100

    def text(self, units: int) -> str:
        """An amount as the form's Amount field takes it (human units, exact)."""
        return format_units(units, self.decimals)


class NotReadable(Exception):
    """This currency's balance is not read here (e.g. a venue token other than USDC)."""


async def evm_spendable(
    url: str, chain_id: int, currency: str, wallet: str, decimals: int, symbol: str
) -> Spendable:
    from crossdeck.wallet.gateway import EvmGateway

    async with EvmGateway(url, chain_id) as gateway:
        if currency.lower() != NATIVE_ADDRESS:
            held = await gateway.erc20_balance(currency, wallet)
            return Spendable(chain_id, currency, wallet, held, held, decimals)
        held = await gateway.balance(wallet)
        max_fee, _ = await gateway.fee_params()
    gas = max_fee * PAYMENT_GAS_LIMIT
    note = f"keeps {amount_text(gas, Unit(symbol, decimals))} for gas"
    detail = f"{PAYMENT_GAS_LIMIT:,} gas at {gwei_text(max_fee)}"
    return Spendable(chain_id, currency, wallet, held, max(held - gas, 0), decimals, note, detail)


async def venue_spendable(
    venue: VenueClient, chains: ChainsResponse, currency: str, wallet: str, decimals: int
) -> Spendable:
    """USDC of the book `currency` names (perps, spot or a HIP-3 DEX), as the venue lets it
    leave: `max_send` keeps the first-send fee while it is due."""
    from crossdeck.venue.currencies import hip3_dexes

    place = expected_token_id(currency)
    if place is None or place[0] != SPOT_USDC_TOKEN_ID:
        raise NotReadable("only the venue's USDC is read for Max")
    dex = place[1]
    book = PERPS if dex == PERPS_DEX else SPOT if dex == SPOT_DEX else dex
    account = await read_account(venue, wallet, hip3_dexes(chains))
    held, most = account.withdrawable(book), account.max_send(book)
    fee = account.first_send_fee
    note = f"keeps the venue's first-send fee {usdc_text(fee)}" if fee else ""
    return Spendable(
        VENUE_CHAIN_ID,
        currency,
        wallet,
        _scaled(held, decimals),
        _scaled(most, decimals),
        decimals,
        note,
    )


def _scaled(usdc: int, decimals: int) -> int:
    """The venue's USDC units (8 decimals) in the form currency's, rounded down."""
    if decimals >= USDC_DECIMALS:
        return usdc * int(10 ** (decimals - USDC_DECIMALS))
    return usdc // int(10 ** (USDC_DECIMALS - decimals))


# a Solana transaction's base fee for each signature (the wallet's own: one)
LAMPORTS_PER_SIGNATURE = 5000
# a P2WPKH input's virtual size, and a deposit's frame and outputs (the deposit, the change, an
# OP_RETURN naming the order: each at most 43 vB): a margin over what the service's PSBT has
P2WPKH_INPUT_VBYTES = 68
DEPOSIT_FRAME_VBYTES = 11 + 3 * 43


async def svm_spendable(
    url: str, chain_id: int, currency: str, wallet: str, decimals: int, symbol: str
) -> Spendable:
    """SOL (the System Program's address in /chains) less the fee and the rent the wallet
    keeps; an SPL token's whole balance, added up over its token accounts."""
    from crossdeck.models.solana import SYSTEM_PROGRAM
    from crossdeck.portfolio.svm_reader import token_amounts
    from crossdeck.wallet.solana import SolanaGateway

    gateway = SolanaGateway(url, chain_id=chain_id, retries=1)
    try:
        if currency != SYSTEM_PROGRAM:  # the mint's accounts under either token program
            answer = await gateway.rpc(
                "getTokenAccountsByOwner", wallet, {"mint": currency}, {"encoding": "jsonParsed"}
            )
            held = token_amounts(answer).get(currency, 0)
            return Spendable(chain_id, currency, wallet, held, held, decimals)
        held = await gateway.balance(wallet)
        rent = int(await gateway.rpc("getMinimumBalanceForRentExemption", 0))
    finally:
        await gateway.aclose()
    kept = LAMPORTS_PER_SIGNATURE + rent
    unit = Unit(symbol, decimals)
    note = f"keeps {amount_text(kept, unit)} for the fee and rent"
    detail = (
        f"the fee {LAMPORTS_PER_SIGNATURE:,} lamports and the account's rent-exempt minimum "
        f"{rent:,} lamports"
    )
    return Spendable(chain_id, currency, wallet, held, max(held - kept, 0), decimals, note, detail)


async def bitcoin_spendable(
    url: str, chain_id: int, currency: str, wallet: str, decimals: int, symbol: str
) -> Spendable:
    """The address's unspent outputs less the fee of spending them all in one deposit at the
    node's fastest fee rate."""
    from crossdeck.wallet.bitcoin import EsploraGateway

    gateway = EsploraGateway(url, retries=1)
    try:
        utxos = await gateway.utxos(wallet)
        estimates = await gateway.fee_estimates()
    finally:
        await gateway.aclose()
    held = sum(utxos.values())
    if not estimates:
        raise NotReadable("the Bitcoin API gave no fee estimate for Max")
    rate = max(estimates.values())  # the fastest target's rate is the highest
    vbytes = DEPOSIT_FRAME_VBYTES + P2WPKH_INPUT_VBYTES * len(utxos)
    fee = math.ceil(rate * vbytes)
    note = f"keeps {amount_text(fee, Unit(symbol, decimals))} for the fee"
    detail = f"{fee:,} sats: {vbytes} vB at {rate:g} sat/vB, the node's fastest estimate"
    return Spendable(chain_id, currency, wallet, held, max(held - fee, 0), decimals, note, detail)
