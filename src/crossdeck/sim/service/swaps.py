"""Self-executed same-chain swaps: the user's own transaction through the world's router.

The public service executes a same-chain swap through the user's transaction by default (the
body's ``forceSolverExecution: true`` sends it through the depository and the solver instead):
an ``approve`` of the router when an ERC-20 input's allowance is short, then a ``swap`` step
whose transaction goes to the router with calldata that takes the input and pays the recipient.
Such a quote has no ``protocol.v2`` (no order, no paymentDetails): nothing is deposited, so
nothing names a depository. The router's ``Swap`` log carries the order id the service keeps on
the request, which is how the solver sees the swap done.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eth_utils.address import to_checksum_address

from crossdeck.sim.service.currencies import Currency
from crossdeck.sim.service.directory import EvmChain, encode_call
from crossdeck.sim.service.steps import approve_calldata, item, order_id_bytes, step, unchecked_item

# the router swap is estimated at ~59,000 (ETH in) to ~70,000 (USDC in) on anvil; USDC in, after
# its approve, it uses 49,253 on both backends, and a client holds the limit within 2x (98,506)
GAS_SWAP = 85_000
GAS_APPROVE = 50_000
SWAP_SIGNATURE = "swap(address,uint256,address,uint256,address,bytes32)"


def swap_calldata(
    *,
    token_in: str,
    amount_in: int,
    token_out: str,
    amount_out: int,
    recipient: str,
    order_id: str,
) -> bytes:
    return encode_call(
        SWAP_SIGNATURE,
        ["address", "uint256", "address", "uint256", "address", "bytes32"],
        [
            to_checksum_address(token_in),
            amount_in,
            to_checksum_address(token_out),
            amount_out,
            to_checksum_address(recipient),
            order_id_bytes(order_id),
        ],
    )


def self_executed_steps(
    *,
    request_id: str,
    order_id: str,
    chain: EvmChain,
    origin: Currency,
    destination: Currency,
    amount_in: int,
    amount_out: int,
    recipient: str,
    allowance: int,
    tx: Callable[[str, bytes | str, int, int], dict[str, Any]],
) -> tuple[list[dict[str, Any]], int]:
    """The steps of a self-executed swap and their gas units. `tx(to, data, value, gas)` builds
    an EVM transaction from the user on the swap's chain; `allowance`: the user's allowance of
    the router for an ERC-20 input."""
    assert chain.router is not None
    steps: list[dict[str, Any]] = []
    gas_units = 0
    if not origin.is_native and allowance < amount_in:
        gas_units += GAS_APPROVE
        approve = tx(origin.address, approve_calldata(chain.router, amount_in), 0, GAS_APPROVE)
        steps.append(
            step(
                "approve",
                "Approve the swap",
                f"Allow the router to take the {origin.symbol} of this swap",
                "transaction",
                request_id,
                [unchecked_item(approve)],
            )
        )
    data = swap_calldata(
        token_in=origin.address,
        amount_in=amount_in,
        token_out=destination.address,
        amount_out=amount_out,
        recipient=recipient,
        order_id=order_id,
    )
    value = amount_in if origin.is_native else 0
    gas_units += GAS_SWAP
    steps.append(
        step(
            "swap",
            "Confirm transaction in your wallet",
            f"Swap {origin.symbol} for {destination.symbol}",
            "transaction",
            request_id,
            [item(request_id, tx(chain.router, data, value, GAS_SWAP))],
        )
    )
    return steps, gas_units
