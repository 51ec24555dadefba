"""A world restarted on its state directory keeps everything: the service's requests and
statuses, the venue's balances, and the chains (contracts, balances, nonces, blocks, receipts),
on py-evm and on anvil. After the restart the earlier request reads the same (status, fill
transaction and its receipt, the recipient's balance), a new request gets a fill of its own,
and the directory refuses the other chain backend."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from crossdeck.sim.world import World, WorldError

from .byhand import NATIVE, Hand, only_item, request_id

ETH = 10**18


def _pay_move(hand: Hand, recipient: str) -> str:
    """A small native move 8453 -> 999 to `recipient`, quoted and paid by hand; its id."""
    quote = hand.quote(
        {
            "user": hand.wallet.address,
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": NATIVE,
            "destinationCurrency": NATIVE,
            "amount": str(ETH // 100),
            "tradeType": "EXACT_INPUT",
            "recipient": recipient,
        }
    )
    hand.rpc[8453].send(hand.wallet, only_item(quote, "deposit"))
    return request_id(quote)


def _move(hand: Hand, recipient: str) -> str:
    """A small native move 8453 -> 999 to `recipient`, paid by hand, run to success."""
    rid = _pay_move(hand, recipient)
    assert hand.wait_final(rid)["status"] == "success"
    return rid


def _snapshot(hand: Hand, rid: str, recipient: str) -> dict[str, Any]:
    status = hand.status(rid)
    [fill] = status["txHashes"]
    receipt = hand.rpc[999].call("eth_getTransactionReceipt", fill)
    wallet = hand.wallet.address
    return {
        "status": status["status"],
        "fill": fill,
        "fill_block": receipt["blockNumber"] if receipt else None,
        "recipient_balance": hand.rpc[999].balance(recipient),
        "wallet_balance": hand.rpc[8453].balance(wallet),
        "wallet_nonce": hand.rpc[8453].call("eth_getTransactionCount", wallet, "latest"),
        "history": hand.history(id=rid),
        "withdrawable": hand.withdrawable(wallet),
    }


@pytest.mark.parametrize("backend", ["py-evm", "anvil"])
def test_a_restarted_world_keeps_requests_balances_and_chains(
    backend: str, tmp_path: Path, start_world: Any
) -> None:
    state = tmp_path / "state"
    recipient = Hand.new_address()
    with start_world(backend, state_dir=state) as world:
        hand = Hand(world.info)
        rid = _move(hand, recipient)
        before = _snapshot(hand, rid, recipient)
        assert before["fill_block"] is not None and before["recipient_balance"] > 0
        # a second world on the same directory is refused before it touches anything
        busy = rf"a demo world is already running on {re.escape(str(state))} \(pid {os.getpid()}\)"
        with pytest.raises(WorldError, match=busy):
            World(backend=backend, speed=0, state_dir=state).start_blocking()
        assert _snapshot(hand, rid, recipient) == before

    with start_world(backend, state_dir=state) as world:
        hand = Hand(world.info)
        assert _snapshot(hand, rid, recipient) == before  # nothing lost, nothing funded again
        second = _move(hand, recipient)
        [fill] = hand.status(second)["txHashes"]
        assert fill != before["fill"]  # the solver's nonce went on: a fill of its own
        assert hand.rpc[999].balance(recipient) > before["recipient_balance"]

    other = "anvil" if backend == "py-evm" else "py-evm"
    with pytest.raises(WorldError, match="start the world fresh"):
        World(backend=other, speed=0, state_dir=state).start_blocking()


def test_a_deposit_paid_just_before_the_stop_is_filled_after_the_restart(
    tmp_path: Path, start_world: Any
) -> None:
    """Paid, then the world stops at once: the fill under way finishes first, or the restarted
    solver scans the blocks its predecessor did not reach; either way it ends in success."""
    state = tmp_path / "state"
    recipient = Hand.new_address()
    with start_world("py-evm", state_dir=state, speed=0.5) as world:
        hand = Hand(world.info)
        rid = _pay_move(hand, recipient)
    with start_world("py-evm", state_dir=state) as world:
        hand = Hand(world.info)
        assert hand.wait_final(rid)["status"] == "success"
        assert hand.rpc[999].balance(recipient) > 0
