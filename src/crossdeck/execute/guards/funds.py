"""`funds`: at quote time, before anything is signed, the wallet holds what the quote takes.

What leaves the wallet on the paying chain is the payment (paymentDetails) and the gas of its
transactions there (gas limit times max fee per gas, the most they can cost). A quote for more
than the wallet holds is refused here, in the currency's own units, rather than at the chain
after a signature. The check right before each transaction (guards.chain) stays: balances can
change between the quote and the signature.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.guards.base import (
    GuardResult,
    _fail,
    _ok,
    _same_address,
    payment_chain,
)
from crossdeck.execute.guards.payment import amount_words
from crossdeck.models import NATIVE_ADDRESS, VENUE_CHAIN_ID, ChainsResponse, Quote
from crossdeck.models.addresses import Family, family_of
from crossdeck.venue.currencies import expected_token_id

if TYPE_CHECKING:
    from crossdeck.venue.client import VenueClient

_NAME = "funds"


def most_gas(quote: Quote, chain_id: int) -> int:
    """The most the quote's transactions on `chain_id` can cost in gas, in wei."""
    total = 0
    for tx in quote.transactions():
        if tx.chain_id == chain_id and tx.gas is not None and tx.max_fee_per_gas is not None:
            total += int(tx.gas) * int(tx.max_fee_per_gas)
    return total


async def funds_guard(
    quote: Quote, wallet: str, chain_id: int | None, gateway: Any
) -> list[GuardResult]:
    """`chain_id`: the chain the payment is on (paymentDetails mapped through /chains);
    `gateway`: an `EvmGateway` of that chain. Nothing is checked for a payment off EVM (the
    venue checks its own balance) or without paymentDetails (refused by other guards), nor
    when the balance cannot be read."""
    payment = quote.payment_details
    if payment is None or payment.amount is None or chain_id is None or gateway is None:
        return []
    native = payment.currency is None or _same_address(payment.currency, NATIVE_ADDRESS)
    gas = most_gas(quote, chain_id)
    try:
        have = await gateway.balance(wallet)
        token_held = None if native else await gateway.erc20_balance(payment.currency, wallet)
    except CrossdeckError:
        # an RPC that cannot answer (or serves another chain) is refused right before the first
        # transaction, by name (rpc-chain-id, balance); nothing is signed before that either
        return []

    def words(amount: int, currency: str | None = NATIVE_ADDRESS) -> str:
        return amount_words(quote, amount, currency)

    need_native = gas + (payment.amount if native else 0)
    problems = _token_short(quote, payment.amount, payment.currency, token_held)
    if have < need_native:
        paid = f"{words(payment.amount)} plus " if native else ""
        problems.append(
            f"it needs {paid}up to {words(gas)} of gas ({words(need_native)}) on chain "
            f"{chain_id}, but the wallet holds {words(have)}"
        )
    if problems:
        return [_fail(_NAME, "; ".join(problems) + ". Fund the wallet or ask for less")]
    held = (
        words(have) if native else f"{words(token_held or 0, payment.currency)} and {words(have)}"
    )
    paid = words(payment.amount, payment.currency)
    return [
        _ok(
            _NAME,
            f"the wallet holds {held} on chain {chain_id}: enough for the payment of {paid} "
            f"plus up to {words(gas)} of gas",
        )
    ]


def _token_short(quote: Quote, amount: int, currency: str | None, held: int | None) -> list[str]:
    """The problem, in words, of a token payment the wallet holds too little of (none when the
    payment is native: `held` is None), for every chain family's funds guard."""
    if held is None or held >= amount:
        return []
    return [
        f"the payment is {amount_words(quote, amount, currency)} but the wallet holds "
        f"{amount_words(quote, held, currency)}"
    ]


async def venue_funds_guard(quote: Quote, wallet: str, venue: VenueClient) -> list[GuardResult]:
    """A withdrawal from the venue (currencyIn on chain 1337): the account's balance there covers
    it: withdrawable USDC on a perps DEX, or the spot token's free balance (total less hold).
    Nothing is checked for a quote paid elsewhere, nor when the venue cannot answer (it refuses
    an overdraft itself; nothing is signed on a guess either way)."""
    details = quote.details
    paid = details.currency_in if details else None
    info = paid.currency_info if paid else None
    if paid is None or info is None or info.chain_id != VENUE_CHAIN_ID or paid.amount is None:
        return []
    token = expected_token_id(info.address or "")
    if token is None or info.decimals is None:
        return []  # not a venue currency: the send-asset-token guard refuses it by name
    token_id, dex = token
    try:
        if dex == "spot":
            meta = await venue.spot_meta()
            spot = meta.token_by_id(token_id)
            state = await venue.spot_clearinghouse_state(wallet)
            balance = state.balance_of(spot.name) if spot is not None else None
            held = balance.total - balance.hold if balance is not None else Decimal(0)
            book = "spot"
        else:
            held = (await venue.clearinghouse_state(wallet, dex or None)).withdrawable
            book = f"the {dex} DEX" if dex else "perps"
    except CrossdeckError:
        return []
    have = int(held.scaleb(info.decimals))  # the venue answers in human units; floor to units
    words = amount_words(quote, paid.amount, info.address)
    held_words = amount_words(quote, max(have, 0), info.address)
    if have < paid.amount:
        return [
            _fail(
                _NAME,
                f"the withdrawal is {words} but the venue account holds {held_words} "
                f"withdrawable on {book}. Fund the account or ask for less",
            )
        ]
    return [_ok(_NAME, f"the venue account holds {held_words} on {book}: enough for {words}")]


async def quote_time_funds(
    quote: Quote,
    wallet: str,
    chains: ChainsResponse | None,
    rpc: Mapping[int, str],
    venue: VenueClient | None,
) -> list[GuardResult]:
    """The `funds` guard where no executor is at hand (`crossdeck quote`, the app's Quote
    screen): the paying chain's RPC from `rpc` (chain id -> URL), or the venue's balance; and
    `balance-changes`, the simulation of calldata crossdeck cannot decode, with what it shows
    ("you send 0.01 ETH, you receive at least 29.81 USDC")."""
    return [
        *await _quote_time_funds(quote, wallet, chains, rpc, venue),
        *await quote_time_simulation(quote, wallet, rpc),
    ]


async def quote_time_simulation(
    quote: Quote, wallet: str, rpc: Mapping[int, str]
) -> list[GuardResult]:
    from crossdeck.execute.guards.simulation import simulated_chain, simulation_guard
    from crossdeck.wallet.gateway import EvmGateway

    chain_id = simulated_chain(quote)
    if chain_id is None:
        return []
    url = rpc.get(chain_id)
    if url is None:
        return await simulation_guard(quote, wallet, None)
    async with EvmGateway(url, chain_id) as gateway:
        return await simulation_guard(quote, wallet, gateway)


async def _quote_time_funds(
    quote: Quote,
    wallet: str,
    chains: ChainsResponse | None,
    rpc: Mapping[int, str],
    venue: VenueClient | None,
) -> list[GuardResult]:
    from crossdeck.wallet.gateway import EvmGateway

    if venue is not None:
        venue_results = await venue_funds_guard(quote, wallet, venue)
        if venue_results:
            return venue_results
    chain_id = payment_chain(quote, chains).chain_id
    url = rpc.get(chain_id) if chain_id is not None else None
    if url is None or chain_id is None:
        return []
    family = chains.family(chain_id) if chains is not None else family_of(chain_id)
    if family is Family.SOLANA:  # any SVM chain, on its own RPC
        from crossdeck.wallet.solana import SolanaGateway

        solana = SolanaGateway(url, chain_id=chain_id)
        try:
            return await solana_funds_guard(quote, wallet, solana)
        finally:
            await solana.aclose()
    async with EvmGateway(url, chain_id) as gateway:
        return await funds_guard(quote, wallet, chain_id, gateway)


# what a Solana deposit costs besides what it pays: one signature's fee, with room for a
# priority fee (the run's simulation, right before signing, is the exact check)
SOLANA_FEE_ROOM_LAMPORTS = 100_000


async def solana_funds_guard(quote: Quote, wallet: str, gateway: Any) -> list[GuardResult]:
    """The `funds` guard for a Solana payment: SOL for the amount (when it is SOL) and the
    fee, the token account's balance for a mint; nothing when it cannot be read."""
    from crossdeck.models.solana import SYSTEM_PROGRAM

    payment = quote.payment_details
    if payment is None or payment.amount is None:
        return []
    native = payment.currency in (None, SYSTEM_PROGRAM)
    try:
        lamports = await gateway.balance(wallet)
        held = None
        if not native:
            result = await gateway.rpc(
                "getTokenAccountsByOwner",
                wallet,
                {"mint": payment.currency},
                {"encoding": "jsonParsed"},
            )
            held = sum(
                int(entry["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"])
                for entry in result["value"]
            )
    except (CrossdeckError, KeyError, TypeError, ValueError):
        return []
    need = SOLANA_FEE_ROOM_LAMPORTS + (payment.amount if native else 0)
    problems = _token_short(quote, payment.amount, payment.currency, held)
    if lamports < need:
        problems.append(f"it needs {need} lamports with the fee, the wallet holds {lamports}")
    if problems:
        return [_fail(_NAME, "; ".join(problems) + ". Fund the wallet or ask for less")]
    return [_ok(_NAME, f"the Solana wallet holds enough ({lamports} lamports"
                + (f", {amount_words(quote, held, payment.currency)}" if held is not None else "")
                + ")")]  # fmt: skip
