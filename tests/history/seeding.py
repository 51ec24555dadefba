"""Seed the demo world's service state with many requests, and an oracle to check listings.

Requests are written straight into the world's `ServiceState` with its public
`create_request` (the quote engine's own entry point), so the history endpoint lists them
exactly as it lists quoted requests. Each `Seed` keeps what the oracle (`expected`) needs to
compute, independently of the service, which requests a filter must return and in what order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from crossdeck.sim.service.state import DepositAddress, RequestRecord, ServiceState, Status, Tx

BASE_MS = 1_714_521_600_000  # 2024-05-01T00:00:00Z
STEP_MS = 7_000
CHAINS = (8453, 999, 1337)
OTHER_USERS = (
    "0x1111111111111111111111111111111111111111",
    "0x2222222222222222222222222222222222222222",
    "0x3333333333333333333333333333333333333333",
)
DEPOSIT_ADDRESSES = tuple(f"0x{n:02x}" + "d" * 38 for n in range(10))
REFERRERS = ("app-a", "app-b", None)
KEY_NAMES = ("demo", "other", None)
# no 'waiting': the listing leaves quoted-only requests out unless asked, which is the
# service's business, not the client's
STATUSES = ("success",) * 5 + ("failure", "refund", "pending", "depositing", "submitted")
ORDER_OFFSET = 10**15  # order ids never equal request ids
USDC = {"8453": "0x" + "a1" * 20, "999": "0x" + "a2" * 20, "1337": "0x" + "0" * 32}


@dataclass
class Seed:
    seq: int
    id: str
    status: str
    user: str
    recipient: str
    origin: int
    destination: int
    order_id: str
    created_ms: int
    updated_ms: int
    amount: int
    deposit_address: str | None = None
    key_name: str | None = None
    referrer: str | None = None
    parent_id: str | None = None
    origin_block: int | None = None
    in_hashes: list[str] = field(default_factory=list)
    out_hashes: list[str] = field(default_factory=list)

    @property
    def hashes(self) -> set[str]:
        return {*self.in_hashes, *self.out_hashes}


def _currency(chain: int, amount: int) -> dict[str, object]:
    decimals = 8 if chain == 1337 else 6
    whole, frac = divmod(amount, 10**decimals)
    text = f"{whole}.{str(frac).rjust(decimals, '0').rstrip('0')}".rstrip(".")
    return {
        "currency": {
            "chainId": chain,
            "address": USDC[str(chain)],
            "symbol": "USDC",
            "name": "USD Coin",
            "decimals": decimals,
        },
        "amount": str(amount),
        "amountFormatted": text,
        "amountUsd": text,
    }


def _record(seed: Seed) -> RequestRecord:
    in_txs = tuple(
        Tx(h, seed.origin, block=seed.origin_block, timestamp=seed.created_ms // 1000)
        for h in seed.in_hashes
    )
    out_txs = tuple(
        Tx(h, seed.destination, timestamp=seed.updated_ms // 1000) for h in seed.out_hashes
    )
    deposit = DepositAddress(seed.deposit_address, "open") if seed.deposit_address else None
    return RequestRecord(
        id=seed.id,
        status=Status(seed.status),
        user=seed.user,
        recipient=seed.recipient,
        refund_to=seed.user,
        origin_chain_id=seed.origin,
        destination_chain_id=seed.destination,
        origin_currency=USDC[str(seed.origin)],
        destination_currency=USDC[str(seed.destination)],
        amount_in=seed.amount,
        amount_out=seed.amount,
        trade_type="EXACT_INPUT",
        order_id=seed.order_id,
        created_at=seed.created_ms,
        updated_at=seed.updated_ms,
        quote={
            "details": {
                "currencyIn": _currency(seed.origin, seed.amount),
                "currencyOut": _currency(seed.destination, seed.amount),
            }
        },
        kind="refund" if seed.parent_id else "main",
        parent_id=seed.parent_id,
        deposit_address=deposit,
        api_key_name=seed.key_name,
        referrer=seed.referrer,
        in_txs=in_txs,
        out_txs=out_txs,
        fail_reason="SLIPPAGE" if seed.status in ("failure", "refund") else None,
        origin_block=seed.origin_block,
    )


def make_seeds(count: int, wallet: str, *, start_seq: int = 1, rng_seed: int = 7) -> list[Seed]:
    """`count` requests, one every 7 s from 2024-05-01 (every tenth shares its predecessor's
    creation time, to exercise the cursor's tie-break), every 25th a refund child of the
    request before it."""
    rng = random.Random(rng_seed)
    users = (wallet.lower(), *OTHER_USERS)
    seeds: list[Seed] = []
    created = BASE_MS + (start_seq - 1) * STEP_MS
    for n in range(count):
        seq = start_seq + n
        if n % 10 != 9:
            created += STEP_MS
        origin = CHAINS[n % 3]
        destination = CHAINS[(n + 1 + n // 3 % 2) % 3]
        parent = seeds[-1] if n % 25 == 24 and seeds and seeds[-1].parent_id is None else None
        status = "refund" if parent else STATUSES[rng.randrange(len(STATUSES))]
        user = parent.user if parent else users[rng.randrange(len(users))]
        recipient = user if rng.random() < 0.6 else users[rng.randrange(len(users))]
        seed = Seed(
            seq=seq,
            id=f"0x{seq:064x}",
            status=status,
            user=user,
            recipient=recipient,
            origin=parent.origin if parent else origin,
            destination=parent.origin if parent else destination,
            order_id=parent.order_id if parent else f"0x{seq + ORDER_OFFSET:064x}",
            created_ms=created,
            updated_ms=created + rng.randrange(0, 3_600_000),
            amount=rng.randrange(1, 10**9),
            deposit_address=parent.deposit_address
            if parent
            else (DEPOSIT_ADDRESSES[rng.randrange(10)] if n % 5 == 0 or n % 25 == 23 else None),
            key_name=parent.key_name if parent else KEY_NAMES[n % 3],
            referrer=parent.referrer if parent else REFERRERS[rng.randrange(3)],
            parent_id=parent.id if parent else None,
            origin_block=None if n % 7 == 3 else 1000 + seq,
        )
        seed.in_hashes = [f"0x{seq:062x}a1"]
        if status in ("success", "submitted"):
            seed.out_hashes = [f"0x{seq:062x}b2"]
        if parent is None and n % 13 == 0:
            seed.in_hashes.append(f"0x{seq:062x}c3")
        seeds.append(seed)
    return seeds


def seed_state(state: ServiceState, seeds: Iterable[Seed]) -> None:
    for seed in seeds:
        state.create_request(_record(seed))


# -- the oracle --------------------------------------------------------------------------------


def expected(
    seeds: list[Seed],
    *,
    where: Callable[[Seed], bool] = lambda s: True,
    sort_by: str = "createdAt",
    direction: str = "desc",
) -> list[str]:
    """Ids of the seeds a listing must return, in the order it must return them."""
    key: Callable[[Seed], tuple[int, int]] = (
        (lambda s: (s.created_ms, s.seq))
        if sort_by == "createdAt"
        else (lambda s: (s.updated_ms, s.seq))
    )
    chosen = sorted((s for s in seeds if where(s)), key=key, reverse=direction == "desc")
    return [s.id for s in chosen]
