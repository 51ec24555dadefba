"""The venue's books: balances, accounts (first-send fee paid or not, account mode), sub accounts,
vault equities, used nonces and the ledger updates `userNonFundingLedgerUpdates` lists;
optionally persisted in SQLite.

The checks of each signed action live in `actions`; here is only what is held and its one way of
changing (`commit`), so a restart finds the books as they were.

- The venue charges a fee on an account's first outbound send (about 1 USDC, facts.md): a ledger
  setting, `first_send_fee` (default 1 USDC = 100_000_000), taken in USDC from the book the send
  leaves and burned. A transfer between one's own books leaves nothing and pays nothing.
- A send whose destination has no account yet pays the new account's activation fee besides
  (the venue's docs, "Activation gas fee": 1 quote token for the first transaction that has the
  new account as its destination): `new_account_fee` (default 1 USDC), taken alike; the account
  it creates is activated (its own first send is free).
- Account modes are the venue's `userAbstraction` words. In `unifiedAccount` and
  `portfolioMargin` the USDC of every perp book is the spot USDC balance: a credit to perps lands
  on spot, a perps debit is taken from spot, and `clearinghouseState` reads 0 withdrawable.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from os import PathLike
from typing import Any

from eth_utils.crypto import keccak

from crossdeck.sim.venue.assets import (
    CURRENCIES,
    PERPS_DEX,
    SPOT_DEX,
    SPOT_USDC_TOKEN_ID,
    USDC,
    InsufficientBalance,
    SpotToken,
    UnknownCurrency,
    VenueCurrency,
    format_units,
    norm_currency,
    norm_user,
    perp_currency,
)

log = logging.getLogger(__name__)

DEFAULT_FIRST_SEND_FEE = 1 * 10**USDC.wei_decimals
NONCE_PAST_WINDOW_MS = 2 * 24 * 3600 * 1000
NONCE_FUTURE_WINDOW_MS = 1 * 24 * 3600 * 1000
STANDARD_MODE = "default"
UNIFIED_MODES = frozenset({"unifiedAccount", "portfolioMargin"})
SETTABLE_MODES = frozenset({"disabled", *UNIFIED_MODES})


@dataclass(frozen=True)
class SendAssetRecord:
    user: str  # the signer, lowercase
    destination: str  # lowercase
    token: str  # the token string as signed, e.g. 'USDC:0x6d1e...'
    amount: int  # smallest units (8 decimals for USDC)
    nonce: int
    source_dex: str
    destination_dex: str
    time_ms: int
    signature_chain_id: int
    source_currency: str  # chain-1337 currency address debited
    destination_currency: str  # chain-1337 currency address credited
    amount_text: str  # the amount string as signed
    fee: int  # first-send fee charged in USDC smallest units (0 after the first send)


SendAssetCallback = Callable[[SendAssetRecord], Awaitable[None] | None]


@dataclass(frozen=True)
class SubAccount:
    address: str
    master: str
    name: str


@dataclass(frozen=True)
class VaultEquity:
    vault: str
    equity: int  # USDC smallest units
    locked_until_ms: int


_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (user TEXT PRIMARY KEY, fee_paid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS balances (
    user TEXT NOT NULL, currency TEXT NOT NULL, amount TEXT NOT NULL,
    PRIMARY KEY (user, currency));
CREATE TABLE IF NOT EXISTS nonces (user TEXT NOT NULL, nonce INTEGER NOT NULL,
    PRIMARY KEY (user, nonce));
CREATE TABLE IF NOT EXISTS sends (nonce INTEGER NOT NULL, user TEXT NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (user, nonce));
CREATE TABLE IF NOT EXISTS modes (user TEXT PRIMARY KEY, mode TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS subs (sub TEXT PRIMARY KEY, master TEXT NOT NULL, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vaults (user TEXT NOT NULL, vault TEXT NOT NULL, equity TEXT NOT NULL,
    locked INTEGER NOT NULL, PRIMARY KEY (user, vault));
CREATE TABLE IF NOT EXISTS updates (user TEXT NOT NULL, record TEXT NOT NULL);
"""

Changes = dict[tuple[str, str], int]


class VenueLedger:
    """Balances, accounts and used nonces of the venue; optionally persisted in SQLite.

    `token` arguments are chain-1337 currency addresses (see `CURRENCIES`). Thread-safe: the
    solver may call it from outside the event loop.
    """

    def __init__(
        self,
        db_path: str | PathLike[str] | None = None,
        *,
        first_send_fee: int = DEFAULT_FIRST_SEND_FEE,
        new_account_fee: int = DEFAULT_FIRST_SEND_FEE,
        clock_ms: Callable[[], int] | None = None,
        nonce_past_window_ms: int = NONCE_PAST_WINDOW_MS,
        nonce_future_window_ms: int = NONCE_FUTURE_WINDOW_MS,
    ) -> None:
        for name, fee in (("first_send_fee", first_send_fee), ("new_account_fee", new_account_fee)):
            if fee < 0:
                raise ValueError(f"{name} must be >= 0 (USDC smallest units)")
        self.first_send_fee = first_send_fee
        self.new_account_fee = new_account_fee
        self.nonce_past_window_ms = nonce_past_window_ms
        self.nonce_future_window_ms = nonce_future_window_ms
        self._clock_ms = clock_ms or (lambda: time.time_ns() // 1_000_000)
        self.lock = threading.RLock()
        self._balances: Changes = {}
        self._fee_paid: dict[str, bool] = {}
        self._nonces: dict[str, set[int]] = {}
        self._sends: list[SendAssetRecord] = []
        self._modes: dict[str, str] = {}
        self._subs: dict[str, SubAccount] = {}
        self._vaults: dict[str, dict[str, VaultEquity]] = {}
        self._updates: dict[str, list[dict[str, Any]]] = {}
        self._subscribers: list[SendAssetCallback] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._db: sqlite3.Connection | None = None
        if db_path is not None:
            self._db = sqlite3.connect(str(db_path), check_same_thread=False)
            self._db.executescript(_SCHEMA)
            self._load()

    # ---- persistence -------------------------------------------------------------------
    def _load(self) -> None:
        assert self._db is not None
        db = self._db
        for user, fee_paid in db.execute("SELECT user, fee_paid FROM accounts"):
            self._fee_paid[user] = bool(fee_paid)
        for user, currency, amount in db.execute("SELECT * FROM balances"):
            self._balances[(user, currency)] = int(amount)
        for user, nonce in db.execute("SELECT user, nonce FROM nonces"):
            self._nonces.setdefault(user, set()).add(nonce)
        for (record,) in db.execute("SELECT record FROM sends ORDER BY rowid"):
            self._sends.append(SendAssetRecord(**json.loads(record)))
        self._modes.update(db.execute("SELECT user, mode FROM modes"))
        for sub, master, name in db.execute("SELECT sub, master, name FROM subs"):
            self._subs[sub] = SubAccount(sub, master, name)
        for user, vault, equity, locked in db.execute("SELECT * FROM vaults"):
            self._vaults.setdefault(user, {})[vault] = VaultEquity(vault, int(equity), locked)
        for user, record in db.execute("SELECT user, record FROM updates ORDER BY rowid"):
            self._updates.setdefault(user, []).append(json.loads(record))

    def commit(
        self,
        changes: Changes,
        accounts: dict[str, bool] | None = None,
        *,
        nonce: tuple[str, int] | None = None,
        send: SendAssetRecord | None = None,
        updates: list[tuple[str, dict[str, Any]]] | None = None,
        mode: tuple[str, str] | None = None,
    ) -> None:
        """Apply one accepted change to the books, all of it or (on a storage error) none.
        The caller holds `lock` and has checked everything."""
        accounts = accounts or {}
        updates = updates or []
        if self._db is not None:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO accounts VALUES (?, ?)",
                    [(u, int(p)) for u, p in accounts.items()],
                )
                self._db.executemany(
                    "INSERT OR REPLACE INTO balances VALUES (?, ?, ?)",
                    [(u, c, str(a)) for (u, c), a in changes.items()],
                )
                if nonce is not None:
                    self._db.execute("INSERT INTO nonces VALUES (?, ?)", nonce)
                    # Nonces older than the window are refused anyway: no need to keep them.
                    horizon = self._clock_ms() - self.nonce_past_window_ms
                    self._db.execute("DELETE FROM nonces WHERE nonce < ?", (horizon,))
                if send is not None:
                    self._db.execute(
                        "INSERT INTO sends VALUES (?, ?, ?)",
                        (send.nonce, send.user, json.dumps(asdict(send))),
                    )
                self._db.executemany(
                    "INSERT INTO updates VALUES (?, ?)",
                    [(u, json.dumps(r)) for u, r in updates],
                )
                if mode is not None:
                    self._db.execute("INSERT OR REPLACE INTO modes VALUES (?, ?)", mode)
        self._balances.update(changes)
        self._fee_paid.update(accounts)
        if nonce is not None:
            user, value = nonce
            used = self._nonces.setdefault(user, set())
            used.add(value)
            # Nonces older than the window are refused anyway; forget them to stay small.
            horizon = self._clock_ms() - self.nonce_past_window_ms
            used.difference_update({n for n in used if n < horizon})
        if send is not None:
            self._sends.append(send)
        for user, record in updates:
            self._updates.setdefault(user, []).append(record)
        if mode is not None:
            self._modes[mode[0]] = mode[1]

    def close(self) -> None:
        with self.lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # ---- metadata ----------------------------------------------------------------------
    @staticmethod
    def currencies() -> list[VenueCurrency]:
        return list(CURRENCIES.values())

    @staticmethod
    def currency(token: str) -> VenueCurrency:
        return norm_currency(token)

    # ---- accounts ----------------------------------------------------------------------
    def exists(self, user: str) -> bool:
        with self.lock:
            return norm_user(user) in self._fee_paid

    def mode(self, user: str) -> str:
        """The account's `userAbstraction`: 'default' until the account sets another."""
        with self.lock:
            return self._modes.get(norm_user(user), STANDARD_MODE)

    def unified(self, user: str) -> bool:
        return self.mode(user) in UNIFIED_MODES

    def set_mode(self, user: str, mode: str) -> None:
        """Set an account's mode directly (the world's seeding; accounts use the signed
        userSetAbstraction). A unified mode gathers every perp book's USDC onto spot."""
        user = norm_user(user)
        if mode not in SETTABLE_MODES:
            raise ValueError(f"mode must be one of {sorted(SETTABLE_MODES)}, got {mode!r}")
        with self.lock:
            self.commit(self.mode_changes(user, mode), mode=(user, mode))

    def mode_changes(self, user: str, mode: str) -> Changes:
        """The balance moves a switch to `mode` makes: into a unified mode, the USDC of every
        perp book joins spot USDC; out of it nothing moves (the trader moves it back)."""
        if mode not in UNIFIED_MODES:
            return {}
        changes: Changes = {}
        gathered = 0
        for currency in CURRENCIES.values():
            if currency.token == USDC and currency.dex != SPOT_DEX:
                held = self._balances.get((user, currency.address), 0)
                if held:
                    changes[(user, currency.address)] = 0
                    gathered += held
        if gathered:
            spot = (user, SPOT_USDC_TOKEN_ID)
            changes[spot] = self._balances.get(spot, 0) + gathered
        return changes

    def book_of(self, user: str, currency: VenueCurrency) -> VenueCurrency:
        """Where `user`'s balance of `currency` is held: a perp book's USDC is spot USDC for a
        unified (or portfolio-margin) account."""
        if currency.token == USDC and currency.dex != SPOT_DEX and self.unified(user):
            return CURRENCIES[SPOT_USDC_TOKEN_ID]
        return currency

    def fee_paid(self, user: str) -> bool:
        with self.lock:
            return self._fee_paid.get(norm_user(user), False)

    def add_sub_account(self, master: str, name: str) -> str:
        """A sub account of `master` named `name` (its address derived from both); returned."""
        master = norm_user(master)
        address = "0x" + keccak(text=f"sub account {master} {name}")[12:].hex()
        with self.lock:
            if address not in self._subs:
                if self._db is not None:
                    with self._db:
                        self._db.execute(
                            "INSERT INTO subs VALUES (?, ?, ?)", (address, master, name)
                        )
                self._subs[address] = SubAccount(address, master, name)
                if address not in self._fee_paid:
                    self.commit({}, {address: False})
        return address

    def sub_accounts(self, master: str) -> list[SubAccount]:
        master = norm_user(master)
        with self.lock:
            return [s for s in self._subs.values() if s.master == master]

    def master_of(self, sub: str) -> str | None:
        with self.lock:
            found = self._subs.get(sub.lower())
            return found.master if found else None

    def set_vault_equity(self, user: str, vault: str, equity: int, locked_until_ms: int) -> None:
        user, vault = norm_user(user), norm_user(vault)
        with self.lock:
            if self._db is not None:
                with self._db:
                    self._db.execute(
                        "INSERT OR REPLACE INTO vaults VALUES (?, ?, ?, ?)",
                        (user, vault, str(equity), locked_until_ms),
                    )
            entry = VaultEquity(vault, equity, locked_until_ms)
            self._vaults.setdefault(user, {})[vault] = entry

    def vault_equities(self, user: str) -> list[VaultEquity]:
        with self.lock:
            return list(self._vaults.get(norm_user(user), {}).values())

    def updates(self, user: str) -> list[dict[str, Any]]:
        """The account's non-funding ledger updates, oldest first (userNonFundingLedgerUpdates)."""
        with self.lock:
            return list(self._updates.get(norm_user(user), []))

    # ---- balances ----------------------------------------------------------------------
    def held(self, user: str, address: str) -> int:
        """Raw read of one book; the caller holds `lock`."""
        return self._balances.get((user, address), 0)

    def open_account(self, user: str) -> None:
        """`user` has an account from now on, with nothing in it (as the service's own address
        has on the venue): a send to it pays no new-account fee."""
        user = norm_user(user)
        with self.lock:
            if user not in self._fee_paid:
                self.commit({}, {user: False})

    def credit(self, user: str, token: str, amount: int) -> int:
        """Add `amount` (smallest units) to `user`'s `token` balance (on spot for a unified
        account's perps USDC); returns the new balance of the book credited."""
        user = norm_user(user)
        _check_amount(amount)
        with self.lock:
            currency = self.book_of(user, norm_currency(token))
            new = self._balances.get((user, currency.address), 0) + amount
            accounts = {} if user in self._fee_paid else {user: False}
            self.commit({(user, currency.address): new}, accounts)
            return new

    def debit(self, user: str, token: str, amount: int) -> int:
        user = norm_user(user)
        _check_amount(amount)
        with self.lock:
            currency = self.book_of(user, norm_currency(token))
            have = self._balances.get((user, currency.address), 0)
            if have < amount:
                raise InsufficientBalance(
                    f"Insufficient balance: {user} holds {format_units(have, currency.decimals)}"
                    f" {currency.symbol} at {currency.address}, needs"
                    f" {format_units(amount, currency.decimals)}"
                )
            self.commit({(user, currency.address): have - amount})
            return have - amount

    def balance(self, user: str, token: str) -> int:
        user, currency = norm_user(user), norm_currency(token)
        with self.lock:
            return self._balances.get((user, currency.address), 0)

    def spendable(self, user: str, token: str) -> int:
        """What `user` can send of `token`: the balance of the book it is held on (spot USDC
        for a unified account's perps or HIP-3 USDC)."""
        user = norm_user(user)
        with self.lock:
            currency = self.book_of(user, norm_currency(token))
            return self._balances.get((user, currency.address), 0)

    def balances(self, user: str) -> dict[str, int]:
        """Non-zero balances of `user`, keyed by chain-1337 currency address."""
        user = norm_user(user)
        with self.lock:
            return {c: a for (u, c), a in self._balances.items() if u == user and a}

    def total_supply(self, token: SpotToken) -> int:
        """Every unit of `token` the ledger holds, on any book (spot, perps, HIP-3 DEXes)."""
        held_as = {c.address for c in CURRENCIES.values() if c.token == token}
        with self.lock:
            return sum(a for (_, c), a in self._balances.items() if c in held_as)

    def withdrawable(self, user: str, dex: str = PERPS_DEX) -> int:
        """Perps USDC (smallest units) of the default DEX or of a HIP-3 DEX: 0 for a unified
        account, whose collateral is its spot USDC."""
        currency = perp_currency(dex)
        if currency is None:
            raise UnknownCurrency(f"Unknown perp dex {dex!r}")
        return self.balance(user, currency.address)

    # ---- nonces ------------------------------------------------------------------------
    def nonce_used(self, user: str, nonce: int) -> bool:
        with self.lock:
            return nonce in self._nonces.get(norm_user(user), set())

    def sends(self) -> list[SendAssetRecord]:
        with self.lock:
            return list(self._sends)

    def now_ms(self) -> int:
        return self._clock_ms()

    # ---- subscriptions -----------------------------------------------------------------
    def on_send_asset(self, callback: SendAssetCallback) -> Callable[[], None]:
        """Call `callback(record)` after each accepted sendAsset; returns an unsubscribe.

        A coroutine callback runs as a task on the running loop; errors are logged, never
        propagated (the send has already happened).
        """
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def notify(self, record: SendAssetRecord) -> None:
        for callback in list(self._subscribers):
            try:
                result = callback(record)
                if inspect.isawaitable(result):
                    task = asyncio.ensure_future(result)
                    self._tasks.add(task)
                    task.add_done_callback(self._task_done)
            except Exception:
                log.exception("sendAsset subscriber failed")

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("sendAsset subscriber failed", exc_info=task.exception())


def _check_amount(amount: int) -> None:
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise ValueError(f"amount must be a positive int in smallest units, got {amount!r}")
