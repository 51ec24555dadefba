"""The world keeps Solana's state across a restart on its state directory as it keeps the EVM
chains' and the venue's (issue 35 point 9): a Solana -> venue deposit stays paid on Solana
while the venue keeps its credit, whether the world stopped in order or was cut off right
after the fill (a Solana transaction is on disk before the solver can act on it)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from solders.keypair import Keypair
from tests.sim.byhand import Hand, request_id
from tests.sim.solana.test_solana_routes import (
    SOLANA,
    USDC_SOL,
    _send_and_index,
    _sign_items,
    token_amount,
)


def _deposit_to_the_venue(world: Any, hand: Hand, venue: str) -> None:
    user = Keypair.from_base58_string(world.info["wallet"]["solana_private_key"])
    chains = {c["id"]: c for c in hand.http.get(f"{hand.service}/chains").json()["chains"]}
    quote = hand.quote({
        "user": str(user.pubkey()), "recipient": venue, "tradeType": "EXACT_INPUT",
        "originChainId": SOLANA, "destinationChainId": 1337, "originCurrency": USDC_SOL,
        "destinationCurrency": chains[1337]["currency"]["address"], "amount": "20000000",
    })  # fmt: skip
    _send_and_index(world, hand, _sign_items(world, quote["steps"][0]["items"][0], [user]))
    assert hand.wait_final(request_id(quote))["status"] == "success"
    deadline = time.monotonic() + 10
    while hand.withdrawable(venue) == 0 and time.monotonic() < deadline:
        time.sleep(0.1)


def _holdings(world: Any, hand: Hand, venue: str) -> tuple[int, float]:
    owner = world.info["wallet"]["solana_address"]
    return token_amount(world, owner), hand.withdrawable(venue)


def test_a_solana_deposit_to_the_venue_stays_paid_after_a_restart(
    tmp_path: Path, start_world: Any
) -> None:
    state = tmp_path / "state"
    venue = Hand.new_address()
    with start_world("py-evm", state_dir=state) as world:
        hand = Hand(world.info)
        start = token_amount(world, world.info["wallet"]["solana_address"])
        _deposit_to_the_venue(world, hand, venue)
        before = _holdings(world, hand, venue)
        assert before[0] == start - 20_000_000 and before[1] > 0
    with start_world("py-evm", state_dir=state) as world:
        assert _holdings(world, Hand(world.info), venue) == before


def test_a_world_cut_off_right_after_the_deposit_keeps_it_on_solana(
    tmp_path: Path, start_world: Any
) -> None:
    """SIGKILL: no orderly stop saves anything; what the venue credited is still paid."""
    state = tmp_path / "state"
    venue = Hand.new_address()
    crossdeck = str(Path(sys.executable).with_name("crossdeck"))
    with (tmp_path / "serve.log").open("a") as log:
        proc = subprocess.Popen(
            [crossdeck, "sim", "serve", "--speed", "0", "--state-dir", str(state)],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=dict(os.environ),
        )
        try:
            assert proc.stdout is not None
            ready, _, _ = select.select([proc.stdout], [], [], 120)  # a hang guard only
            assert ready, "sim serve printed nothing"
            world = SimpleNamespace(info=json.loads(proc.stdout.readline()))
            hand = Hand(world.info)
            start = token_amount(world, world.info["wallet"]["solana_address"])
            _deposit_to_the_venue(world, hand, venue)
            before = _holdings(world, hand, venue)
            assert before[0] == start - 20_000_000 and before[1] > 0
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(60)
    with start_world("py-evm", state_dir=state) as restarted:
        assert _holdings(restarted, Hand(restarted.info), venue) == before
