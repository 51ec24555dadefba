"""The perps venue of the demo world: chain 1337's off-chain ledger behind /info and /exchange.

Written from the spec (2.4, 4.4) and facts.md, never from the client's code. The HTTP shapes
follow the public venue: errors are HTTP 200 `{"status":"err","response":msg}`, bodies that do
not deserialize are 4xx with a plain-text reason.

Units and identifiers chosen for the demo (documented here because the spec leaves them open):
- Every balance is an `int` in the smallest unit. Perps USDC uses 8 decimals (the venue quotes its
  USDC with 8 decimals on chain 1337); every spot token here has weiDecimals 8 as well.
- A balance is keyed by its chain-1337 currency address (spec 2.4):
  perps USDC `0x` + 32 zeros; a spot token its 16-byte tokenId; a HIP-3 DEX balance the collateral
  token's id followed by the hex of the DEX name (`xyz` -> `...78797a`).
- Spot USDC's tokenId is the public one (`0x6d1e7cde53ba9467b783cb7c530ce054`). USDe and USDH ids
  are invented: the first 16 bytes of keccak256("crossdeck-sim spot token <NAME>").
- The venue charges a fee on an account's first outbound send (about 1 USDC, facts.md). Here it
  is a ledger setting, `first_send_fee` (default 1 USDC = 100_000_000), taken in USDC from the
  book the send leaves (perps, spot or the HIP-3 DEX) and burned.
- A nonce is consumed only when the send succeeds, so a send refused for, say, balance can be
  retried with the same nonce (the service ties that nonce to a request id).
- /info also answers the metadata reads the venue's own SDKs make at start (`meta`,
  `metaAndAssetCtxs`, `spotMetaAndAssetCtxs`, `perpDexs`) in the public shapes. Nothing trades
  here: the perp markets (`PERP_ASSETS`) exist with fixed demo prices and zero volume.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from os import PathLike
from typing import Any

from aiohttp import web
from eth_account import Account
from eth_account.messages import encode_typed_data

from crossdeck.sim.brand import Brand

log = logging.getLogger(__name__)

PERPS_USDC_ADDRESS = "0x" + "0" * 32
SPOT_USDC_TOKEN_ID = "0x6d1e7cde53ba9467b783cb7c530ce054"
USDE_TOKEN_ID = "0x22e9417ea9e6367dee20b2b9b56adc9e"  # invented, see module docstring
USDH_TOKEN_ID = "0x9ab9d01ba42f7b79990f64040edd0edc"  # invented, see module docstring
USDC_DECIMALS = 8
HIP3_DEX_NAME = "xyz"
DEFAULT_FIRST_SEND_FEE = 1 * 10**USDC_DECIMALS
NONCE_PAST_WINDOW_MS = 2 * 24 * 3600 * 1000
NONCE_FUTURE_WINDOW_MS = 1 * 24 * 3600 * 1000
VENUE_CHAIN_VALUE = "Mainnet"
PERPS_DEX = ""
SPOT_DEX = "spot"

_ZERO_EVM_ADDRESS = "0x" + "0" * 40
_SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_ADDRESS_RE = re.compile(r"^0x[0-9a-fA-F]{40}$")
_AMOUNT_RE = re.compile(r"^(0|[1-9][0-9]*)(\.[0-9]+)?$")
_HEX_RE = re.compile(r"^0x[0-9a-fA-F]{1,64}$")
_MAX_AMOUNT_CHARS = 80


@dataclass(frozen=True)
class SpotToken:
    name: str
    token_id: str
    index: int
    wei_decimals: int
    sz_decimals: int
    full_name: str
    # the service's symbol for it in /chains, where it differs from the venue's token name
    service_symbol: str | None = None

    @property
    def symbol(self) -> str:
        return self.service_symbol or self.name

    @property
    def wire(self) -> str:
        """The sendAsset `token` string: NAME:tokenId."""
        return f"{self.name}:{self.token_id}"


@dataclass(frozen=True)
class PerpDex:
    name: str
    full_name: str
    collateral: SpotToken
    deployer: str


@dataclass(frozen=True)
class VenueCurrency:
    """One chain-1337 currency: where a balance lives (dex) and in which token."""

    address: str
    symbol: str
    name: str
    decimals: int
    dex: str  # '' default perps, 'spot', or a HIP-3 DEX name
    token: SpotToken


@dataclass(frozen=True)
class PerpAsset:
    """One market of a perp DEX's `meta` universe. The world trades nothing: these exist so the
    venue's SDKs, which map coin names to asset numbers at start, find the shape they read."""

    name: str
    sz_decimals: int
    max_leverage: int
    mark_px: str  # a fixed demo price, in USD


USDC = SpotToken("USDC", SPOT_USDC_TOKEN_ID, 0, USDC_DECIMALS, 8, "USD Coin")
# named as the public venue's spotMeta names it ("USDE", full name "USDe")
USDE = SpotToken("USDE", USDE_TOKEN_ID, 1, 8, 2, "USDe", service_symbol="USDe")
USDH = SpotToken("USDH", USDH_TOKEN_ID, 2, 8, 2, "USDH")
SPOT_TOKENS: tuple[SpotToken, ...] = (USDC, USDE, USDH)
HIP3_DEXES: tuple[PerpDex, ...] = (PerpDex(HIP3_DEX_NAME, "XYZ demo DEX", USDC, "0x" + "88" * 20),)
# Perp markets per DEX ('' the default one). A HIP-3 DEX prefixes its coins with its name, as
# the public venue does ('xyz:AMD').
PERP_ASSETS: dict[str, tuple[PerpAsset, ...]] = {
    PERPS_DEX: (PerpAsset("ETH", 4, 25, "3000.0"), PerpAsset("HYPE", 2, 10, "25.0")),
    HIP3_DEX_NAME: (PerpAsset(f"{HIP3_DEX_NAME}:DEMO", 2, 10, "100.0"),),
}
SPOT_PAIR_PX = "1.0"  # every spot pair here is a dollar stablecoin against USDC
SPOT_PAIR_BASES: tuple[SpotToken, ...] = tuple(t for t in SPOT_TOKENS if t is not USDC)
"""The base token of each spot pair (all quoted in USDC), in pair-index order."""


def hip3_address(collateral_token_id: str, dex_name: str) -> str:
    """Spec 2.4: a HIP-3 currency is the spot currency's address + hex of the DEX name."""
    return collateral_token_id.lower() + dex_name.encode().hex()


def _build_currencies() -> dict[str, VenueCurrency]:
    out = [
        VenueCurrency(
            PERPS_USDC_ADDRESS, "USDC", "USD Coin (perps)", USDC_DECIMALS, PERPS_DEX, USDC
        )
    ]
    out += [
        VenueCurrency(t.token_id, t.symbol, t.full_name, t.wei_decimals, SPOT_DEX, t)
        for t in SPOT_TOKENS
    ]
    out += [
        VenueCurrency(
            hip3_address(d.collateral.token_id, d.name),
            d.collateral.name,
            f"{d.collateral.full_name} ({d.name})",
            d.collateral.wei_decimals,
            d.name,
            d.collateral,
        )
        for d in HIP3_DEXES
    ]
    return {c.address: c for c in out}


CURRENCIES: dict[str, VenueCurrency] = _build_currencies()


def currency_for(dex: str, token: SpotToken) -> VenueCurrency | None:
    for c in CURRENCIES.values():
        if c.dex == dex and c.token == token:
            return c
    return None


def format_units(amount: int, decimals: int) -> str:
    """Venue decimal string: '1234.5', '0.0' (never exponent notation, never a float)."""
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(amount), 10**decimals)
    frac_text = str(frac).rjust(decimals, "0").rstrip("0") if decimals else ""
    return f"{sign}{whole}.{frac_text or '0'}"


def parse_units(text: str, decimals: int) -> int:
    """A positive decimal string in human units -> smallest units; ValueError says why not."""
    if len(text) > _MAX_AMOUNT_CHARS or not _AMOUNT_RE.fullmatch(text):
        raise ValueError(f"amount must be a plain decimal string like '12.5', got {text!r}")
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    if len(frac) > decimals:
        raise ValueError(f"amount {text!r} has more than {decimals} decimal places")
    value: int = int(whole) * 10**decimals + int(frac.ljust(decimals, "0") or "0")
    if value <= 0:
        raise ValueError("amount must be greater than zero")
    return value


class VenueError(Exception):
    """A refusal in the venue's words: becomes HTTP 200 {"status":"err","response": str(e)}."""


class InsufficientBalance(VenueError):
    pass


class UnknownCurrency(VenueError):
    pass


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


def _norm_user(user: str) -> str:
    if not isinstance(user, str) or not _ADDRESS_RE.fullmatch(user):
        raise ValueError(f"not a 20-byte hex address: {user!r}")
    return user.lower()


def _norm_currency(token: str) -> VenueCurrency:
    currency = CURRENCIES.get(token.lower()) if isinstance(token, str) else None
    if currency is None:
        raise UnknownCurrency(f"Unknown venue currency {token!r}; known: {sorted(CURRENCIES)}")
    return currency


_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (user TEXT PRIMARY KEY, fee_paid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS balances (
    user TEXT NOT NULL, currency TEXT NOT NULL, amount TEXT NOT NULL,
    PRIMARY KEY (user, currency));
CREATE TABLE IF NOT EXISTS nonces (user TEXT NOT NULL, nonce INTEGER NOT NULL,
    PRIMARY KEY (user, nonce));
CREATE TABLE IF NOT EXISTS sends (nonce INTEGER NOT NULL, user TEXT NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (user, nonce));
"""


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
        clock_ms: Callable[[], int] | None = None,
        nonce_past_window_ms: int = NONCE_PAST_WINDOW_MS,
        nonce_future_window_ms: int = NONCE_FUTURE_WINDOW_MS,
    ) -> None:
        if first_send_fee < 0:
            raise ValueError("first_send_fee must be >= 0 (USDC smallest units)")
        self.first_send_fee = first_send_fee
        self.nonce_past_window_ms = nonce_past_window_ms
        self.nonce_future_window_ms = nonce_future_window_ms
        self._clock_ms = clock_ms or (lambda: time.time_ns() // 1_000_000)
        self._lock = threading.RLock()
        self._balances: dict[tuple[str, str], int] = {}
        self._fee_paid: dict[str, bool] = {}
        self._nonces: dict[str, set[int]] = {}
        self._sends: list[SendAssetRecord] = []
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
        for user, fee_paid in self._db.execute("SELECT user, fee_paid FROM accounts"):
            self._fee_paid[user] = bool(fee_paid)
        for user, currency, amount in self._db.execute("SELECT * FROM balances"):
            self._balances[(user, currency)] = int(amount)
        for user, nonce in self._db.execute("SELECT user, nonce FROM nonces"):
            self._nonces.setdefault(user, set()).add(nonce)
        for (record,) in self._db.execute("SELECT record FROM sends ORDER BY rowid"):
            self._sends.append(SendAssetRecord(**json.loads(record)))

    def _persist(
        self,
        balances: dict[tuple[str, str], int],
        accounts: dict[str, bool],
        nonce: tuple[str, int] | None = None,
        send: SendAssetRecord | None = None,
    ) -> None:
        if self._db is None:
            return
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO accounts VALUES (?, ?)",
                [(u, int(p)) for u, p in accounts.items()],
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO balances VALUES (?, ?, ?)",
                [(u, c, str(a)) for (u, c), a in balances.items()],
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

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # ---- metadata ----------------------------------------------------------------------
    @staticmethod
    def currencies() -> list[VenueCurrency]:
        return list(CURRENCIES.values())

    @staticmethod
    def currency(token: str) -> VenueCurrency:
        return _norm_currency(token)

    @staticmethod
    def spot_meta() -> dict[str, Any]:
        """Answer to `spotMeta`, field for field as the public venue writes it: only USDC is
        canonical there, and a pair of non-canonical tokens is named '@<index>'."""
        tokens = [
            {
                "name": t.name,
                "szDecimals": t.sz_decimals,
                "weiDecimals": t.wei_decimals,
                "index": t.index,
                "tokenId": t.token_id,
                "isCanonical": t is USDC,
                "evmContract": None,
                "fullName": t.full_name,
                "deployerTradingFeeShare": "0.0",
            }
            for t in SPOT_TOKENS
        ]
        universe = [
            {"tokens": [t.index, USDC.index], "name": f"@{i}", "index": i, "isCanonical": False}
            for i, t in enumerate(SPOT_PAIR_BASES)
        ]
        return {"universe": universe, "tokens": tokens}

    @staticmethod
    def perp_dexs() -> list[dict[str, Any] | None]:
        """Like the venue's `perpDexs` info: null for the default DEX, then the HIP-3 DEXes."""
        return [None] + [
            {"name": d.name, "fullName": d.full_name, "deployer": d.deployer,
             "collateralToken": d.collateral.index}
            for d in HIP3_DEXES
        ]  # fmt: skip

    @staticmethod
    def perp_meta(dex: str = PERPS_DEX) -> dict[str, Any]:
        """Answer to `meta` (the markets of one perp DEX); UnknownCurrency for an unknown DEX."""
        assets = PERP_ASSETS.get(dex)
        if assets is None:
            raise UnknownCurrency(f"Unknown perp dex {dex!r}")
        collateral = next((d.collateral for d in HIP3_DEXES if d.name == dex), USDC)
        leverages = sorted({a.max_leverage for a in assets})
        return {
            "universe": [
                {"szDecimals": a.sz_decimals, "name": a.name, "maxLeverage": a.max_leverage,
                 "marginTableId": a.max_leverage}
                for a in assets
            ],
            "marginTables": [
                [lev, {"description": "",
                       "marginTiers": [{"lowerBound": "0.0", "maxLeverage": lev}]}]
                for lev in leverages
            ],
            "collateralToken": collateral.index,
        }  # fmt: skip

    @staticmethod
    def perp_asset_ctxs(dex: str = PERPS_DEX) -> list[dict[str, Any]]:
        """The market contexts of `metaAndAssetCtxs`, one per `meta` market: nothing trades
        here, so volumes, open interest and funding are zero and every price is the mark."""
        return [
            {"funding": "0.0", "openInterest": "0.0", "prevDayPx": a.mark_px,
             "dayNtlVlm": "0.0", "premium": "0.0", "oraclePx": a.mark_px, "markPx": a.mark_px,
             "midPx": a.mark_px, "impactPxs": [a.mark_px, a.mark_px], "dayBaseVlm": "0.0"}
            for a in PERP_ASSETS[dex]
        ]  # fmt: skip

    def spot_asset_ctxs(self) -> list[dict[str, Any]]:
        """The pair contexts of `spotMetaAndAssetCtxs`; supplies are what the ledger holds."""
        ctxs = []
        for i, base in enumerate(SPOT_PAIR_BASES):
            supply = format_units(self.total_supply(base), base.wei_decimals)
            ctxs.append(
                {"prevDayPx": SPOT_PAIR_PX, "dayNtlVlm": "0.0", "markPx": SPOT_PAIR_PX,
                 "midPx": SPOT_PAIR_PX, "circulatingSupply": supply, "coin": f"@{i}",
                 "totalSupply": supply, "dayBaseVlm": "0.0"}
            )  # fmt: skip
        return ctxs

    # ---- balances ----------------------------------------------------------------------
    def exists(self, user: str) -> bool:
        with self._lock:
            return _norm_user(user) in self._fee_paid

    def credit(self, user: str, token: str, amount: int) -> int:
        """Add `amount` (smallest units) to `user`'s `token` balance; returns the new balance."""
        user, currency = _norm_user(user), _norm_currency(token)
        _check_amount(amount)
        with self._lock:
            new = self._balances.get((user, currency.address), 0) + amount
            accounts = {} if user in self._fee_paid else {user: False}
            self._persist({(user, currency.address): new}, accounts)
            self._balances[(user, currency.address)] = new
            self._fee_paid.update(accounts)
            return new

    def debit(self, user: str, token: str, amount: int) -> int:
        user, currency = _norm_user(user), _norm_currency(token)
        _check_amount(amount)
        with self._lock:
            have = self._balances.get((user, currency.address), 0)
            if have < amount:
                raise InsufficientBalance(
                    f"Insufficient balance: {user} holds {format_units(have, currency.decimals)}"
                    f" {currency.symbol} at {currency.address}, needs"
                    f" {format_units(amount, currency.decimals)}"
                )
            self._persist({(user, currency.address): have - amount}, {})
            self._balances[(user, currency.address)] = have - amount
            return have - amount

    def balance(self, user: str, token: str) -> int:
        user, currency = _norm_user(user), _norm_currency(token)
        with self._lock:
            return self._balances.get((user, currency.address), 0)

    def balances(self, user: str) -> dict[str, int]:
        """Non-zero balances of `user`, keyed by chain-1337 currency address."""
        user = _norm_user(user)
        with self._lock:
            return {c: a for (u, c), a in self._balances.items() if u == user and a}

    def total_supply(self, token: SpotToken) -> int:
        """Every unit of `token` the ledger holds, on any book (spot, perps, HIP-3 DEXes)."""
        held_as = {c.address for c in CURRENCIES.values() if c.token == token}
        with self._lock:
            return sum(a for (_, c), a in self._balances.items() if c in held_as)

    def withdrawable(self, user: str, dex: str = PERPS_DEX) -> int:
        """Perps USDC (smallest units) of the default DEX or of a HIP-3 DEX."""
        currency = _perp_currency(dex)
        if currency is None:
            raise UnknownCurrency(f"Unknown perp dex {dex!r}")
        return self.balance(user, currency.address)

    def fee_paid(self, user: str) -> bool:
        with self._lock:
            return self._fee_paid.get(_norm_user(user), False)

    def nonce_used(self, user: str, nonce: int) -> bool:
        with self._lock:
            return nonce in self._nonces.get(_norm_user(user), set())

    def sends(self) -> list[SendAssetRecord]:
        with self._lock:
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

    def _notify(self, record: SendAssetRecord) -> None:
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

    # ---- the transfer ------------------------------------------------------------------
    def apply_send_asset(
        self,
        *,
        signer: str,
        destination: str,
        source_dex: str,
        destination_dex: str,
        token: str,
        amount_text: str,
        from_sub_account: str,
        nonce: int,
        signature_chain_id: int,
    ) -> SendAssetRecord:
        """Check and move one signed sendAsset; raises VenueError with the venue's message."""
        signer = signer.lower()
        with self._lock:
            if signer not in self._fee_paid:
                raise VenueError(f"User or API Wallet {signer} does not exist.")
            now = self._clock_ms()
            if nonce in self._nonces.get(signer, set()):
                raise VenueError("Invalid nonce: duplicate nonce")
            if nonce < now - self.nonce_past_window_ms:
                hours = self.nonce_past_window_ms // 3_600_000
                raise VenueError(f"Invalid nonce: nonce is more than {hours} h in the past")
            if nonce > now + self.nonce_future_window_ms:
                hours = self.nonce_future_window_ms // 3_600_000
                raise VenueError(f"Invalid nonce: nonce is more than {hours} h in the future")
            if from_sub_account != "":
                raise VenueError("Sub-accounts are not supported: fromSubAccount must be ''")
            if not _ADDRESS_RE.fullmatch(destination):
                raise VenueError(f"Invalid destination address: {destination!r}")
            destination = destination.lower()
            spot = _token_from_wire(token)
            src = _book(source_dex, spot, "sourceDex")
            dst = _book(destination_dex, spot, "destinationDex")
            if destination == signer and src.address == dst.address:
                raise VenueError("Cannot send to the same account and dex")
            try:
                amount = parse_units(amount_text, spot.wei_decimals)
            except ValueError as exc:
                raise VenueError(f"Invalid amount: {exc}") from None

            fee = 0 if self._fee_paid[signer] else self.first_send_fee
            fee_book = currency_for(src.dex, USDC)
            assert fee_book is not None  # every book has USDC (perps collateral or spot USDC)
            src_have = self._balances.get((signer, src.address), 0)
            fee_have = self._balances.get((signer, fee_book.address), 0)
            need_src = amount + (fee if fee_book.address == src.address else 0)
            if src_have < need_src or (fee_book.address != src.address and fee_have < fee):
                fee_note = (
                    f" plus the first-send fee {format_units(fee, USDC_DECIMALS)} USDC"
                    if fee
                    else ""
                )
                raise InsufficientBalance(
                    "Insufficient balance for withdrawal: sending"
                    f" {format_units(amount, src.decimals)} {src.symbol}{fee_note} from"
                    f" {source_dex or 'perps'}, available {format_units(src_have, src.decimals)}"
                )

            changes: dict[tuple[str, str], int] = {}

            def move(key: tuple[str, str], delta: int) -> None:
                changes[key] = changes.get(key, self._balances.get(key, 0)) + delta

            move((signer, src.address), -amount)
            move((signer, fee_book.address), -fee)
            move((destination, dst.address), amount)
            accounts = {signer: True}
            if destination not in self._fee_paid:
                accounts[destination] = False
            record = SendAssetRecord(
                user=signer,
                destination=destination,
                token=token,
                amount=amount,
                nonce=nonce,
                source_dex=source_dex,
                destination_dex=destination_dex,
                time_ms=now,
                signature_chain_id=signature_chain_id,
                source_currency=src.address,
                destination_currency=dst.address,
                amount_text=amount_text,
                fee=fee,
            )
            self._persist(changes, accounts, (signer, nonce), record)
            self._balances.update(changes)
            self._fee_paid.update(accounts)
            used = self._nonces.setdefault(signer, set())
            used.add(nonce)
            # Nonces older than the window are refused anyway; forget them to stay small.
            used.difference_update({n for n in used if n < now - self.nonce_past_window_ms})
            self._sends.append(record)
        self._notify(record)
        return record


def _check_amount(amount: int) -> None:
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise ValueError(f"amount must be a positive int in smallest units, got {amount!r}")


def _perp_currency(dex: str) -> VenueCurrency | None:
    for c in CURRENCIES.values():
        if c.dex == dex and c.dex != SPOT_DEX:
            return c
    return None


def _token_from_wire(token: str) -> SpotToken:
    # The name is matched without case: the public venue writes 'USDE' where wallets and the
    # service write 'USDe', and the token id (matched exactly, as hex) is what identifies the token.
    name, sep, token_id = token.partition(":")
    for t in SPOT_TOKENS:
        if sep and t.name.casefold() == name.casefold() and t.token_id == token_id.lower():
            return t
    raise VenueError(f"Unknown token {token!r}; expected NAME:tokenId as listed by spotMeta")


def _book(dex: str, token: SpotToken, field: str) -> VenueCurrency:
    """Where a sendAsset side lives; perp DEXes only hold their collateral token."""
    if dex != SPOT_DEX and _perp_currency(dex) is None:
        raise VenueError(f"Unknown {field} {dex!r}: use '' (perps), 'spot' or a perp dex name")
    currency = currency_for(dex, token)
    if currency is None:
        raise VenueError(
            f"Token {token.name} cannot be held on perp dex {dex!r}: a perp dex only holds"
            " its collateral token"
        )
    return currency


# ===================================================================================== HTTP


class _Malformed(Exception):
    """The body does not deserialize: 422 with a plain-text reason."""


def _err(message: str) -> web.Response:
    return web.json_response({"status": "err", "response": message})


def _unprocessable(detail: str) -> web.Response:
    return web.Response(
        status=422, text=f"Failed to deserialize the JSON body into the target type: {detail}"
    )


async def _read_json(request: web.Request) -> Any:
    raw = await request.read()
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise web.HTTPBadRequest(text=f"Failed to parse the request body as JSON: {exc}") from None


def _field(obj: dict[str, Any], name: str, kind: type, where: str) -> Any:
    if name not in obj:
        raise _Malformed(f"{where}: missing field `{name}`")
    value = obj[name]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise _Malformed(f"{where}.{name}: expected {kind.__name__}, got {type(value).__name__}")
    return value


_VENUE_KEY = web.AppKey("venue_ledger", VenueLedger)
_BRAND_KEY = web.AppKey("venue_brand", Brand)


def send_asset_fields(brand: Brand) -> list[tuple[str, str]]:
    """The EIP-712 fields of `<Venue>Transaction:SendAsset`, in the spec's order."""
    return [
        (brand.venue_chain_field, "string"),
        ("destination", "string"),
        ("sourceDex", "string"),
        ("destinationDex", "string"),
        ("token", "string"),
        ("amount", "string"),
        ("fromSubAccount", "string"),
        ("nonce", "uint64"),
    ]


def send_asset_typed_data(brand: Brand, action: dict[str, Any], chain_id: int) -> dict[str, Any]:
    """Spec 4.4 'Building the deposit signature data', as the venue rebuilds it to verify."""
    return {
        "domain": {
            "name": brand.sign_domain,
            "version": "1",
            "chainId": chain_id,
            "verifyingContract": _ZERO_EVM_ADDRESS,
        },
        "types": {
            brand.send_asset_type: [{"name": n, "type": t} for n, t in send_asset_fields(brand)],
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
        },
        "primaryType": brand.send_asset_type,
        "message": action,
    }


def _parse_exchange(body: Any, brand: Brand) -> tuple[dict[str, Any], int, dict[str, Any]]:
    if not isinstance(body, dict):
        raise _Malformed("body: expected an object with action, nonce, signature")
    action = _field(body, "action", dict, "body")
    nonce = _field(body, "nonce", int, "body")
    signature = _field(body, "signature", dict, "body")
    for optional in ("vaultAddress", "expiresAfter"):
        if body.get(optional) is not None:
            raise _Malformed(f"body.{optional}: must be null or absent for sendAsset")
    kind = _field(action, "type", str, "action")
    if kind != "sendAsset":
        raise _Malformed(f"action.type: unknown variant {kind!r}, expected 'sendAsset'")
    expected = {"type", "signatureChainId"} | {n for n, _ in send_asset_fields(brand)}
    extra = sorted(set(action) - expected)
    if extra:
        raise _Malformed(f"action: unknown field(s) {extra}")
    _field(action, "signatureChainId", str, "action")
    for name, kind_ in send_asset_fields(brand):
        _field(action, name, int if kind_ == "uint64" else str, "action")
    if not 0 <= action["nonce"] < 2**64 or not 0 <= nonce < 2**64:
        raise _Malformed("nonce: expected an unsigned 64-bit integer")
    for name in ("r", "s"):
        _field(signature, name, str, "signature")
    _field(signature, "v", int, "signature")
    return action, nonce, signature


def _recover_signer(
    brand: Brand, action: dict[str, Any], signature: dict[str, Any]
) -> tuple[str, int]:
    chain_text = action["signatureChainId"]
    if not _HEX_RE.fullmatch(chain_text):
        raise VenueError(f"Invalid signatureChainId {chain_text!r}: expected 0x-prefixed hex")
    chain_id = int(chain_text, 16)
    v, r_text, s_text = signature["v"], signature["r"], signature["s"]
    if v not in (27, 28):
        raise VenueError(f"Invalid signature: v must be the integer 27 or 28, got {v}")
    if not _HEX_RE.fullmatch(r_text) or not _HEX_RE.fullmatch(s_text):
        raise VenueError("Invalid signature: r and s must be 0x-prefixed hex of at most 32 bytes")
    r, s = int(r_text, 16), int(s_text, 16)
    # Low-s only (EIP-2): a wallet never produces the other half, so it means tampering.
    if not (0 < r < _SECP256K1_N and 0 < s <= _SECP256K1_N // 2):
        raise VenueError("Invalid signature: r or s out of range")
    try:
        encoded = encode_typed_data(full_message=send_asset_typed_data(brand, action, chain_id))
        signer = Account.recover_message(encoded, vrs=(v, r, s))
    except Exception as exc:  # eth_account raises several types for unrecoverable input
        raise VenueError(f"Invalid signature: {exc}") from None
    return signer.lower(), chain_id


async def _exchange(request: web.Request) -> web.Response:
    ledger, brand = request.app[_VENUE_KEY], request.app[_BRAND_KEY]
    body = await _read_json(request)
    try:
        action, nonce, signature = _parse_exchange(body, brand)
    except _Malformed as exc:
        return _unprocessable(str(exc))
    try:
        if action["nonce"] != nonce:
            raise VenueError("Invalid nonce: action nonce does not match the request nonce")
        chain_value = action[brand.venue_chain_field]
        if chain_value != VENUE_CHAIN_VALUE:
            raise VenueError(
                f"Invalid {brand.venue_chain_field} {chain_value!r}: this venue is"
                f" {VENUE_CHAIN_VALUE!r}"
            )
        signer, chain_id = _recover_signer(brand, action, signature)
        ledger.apply_send_asset(
            signer=signer,
            destination=action["destination"],
            source_dex=action["sourceDex"],
            destination_dex=action["destinationDex"],
            token=action["token"],
            amount_text=action["amount"],
            from_sub_account=action["fromSubAccount"],
            nonce=nonce,
            signature_chain_id=chain_id,
        )
    except VenueError as exc:
        return _err(str(exc))
    return web.json_response({"status": "ok", "response": {"type": "default"}})


def _clearinghouse_state(ledger: VenueLedger, user: str, dex: str) -> dict[str, Any]:
    value = format_units(ledger.withdrawable(user, dex), USDC_DECIMALS)
    summary = {
        "accountValue": value,
        "totalNtlPos": "0.0",
        "totalRawUsd": value,
        "totalMarginUsed": "0.0",
    }
    return {
        "marginSummary": summary,
        "crossMarginSummary": dict(summary),
        "crossMaintenanceMarginUsed": "0.0",
        "withdrawable": value,
        "assetPositions": [],
        "time": ledger.now_ms(),
    }


def _spot_state(ledger: VenueLedger, user: str) -> dict[str, Any]:
    held = ledger.balances(user)
    balances = []
    for token in SPOT_TOKENS:
        amount = held.get(token.token_id, 0)
        if amount:
            balances.append(
                {
                    "coin": token.name,
                    "token": token.index,
                    "total": format_units(amount, token.wei_decimals),
                    "hold": "0.0",
                    "entryNtl": "0.0",
                }
            )
    # Nothing is ever held by orders here, so all of a balance is available.
    available = [[b["token"], b["total"]] for b in balances]
    return {"balances": balances, "tokenToAvailableAfterMaintenance": available}


def _perp_dex_field(body: dict[str, Any]) -> str:
    """The optional `dex` of a perps read: '' (or absent) for the default DEX."""
    dex = body.get("dex", PERPS_DEX)
    if not isinstance(dex, str) or _perp_currency(dex) is None:
        raise _Malformed(f"body.dex: unknown perp dex {dex!r}")
    return dex


async def _info(request: web.Request) -> web.Response:
    ledger = request.app[_VENUE_KEY]
    body = await _read_json(request)
    try:
        if not isinstance(body, dict):
            raise _Malformed("body: expected an object with a `type`")
        kind = _field(body, "type", str, "body")
        if kind == "spotMeta":
            return web.json_response(ledger.spot_meta())
        if kind == "perpDexs":
            return web.json_response(ledger.perp_dexs())
        if kind == "spotMetaAndAssetCtxs":
            return web.json_response([ledger.spot_meta(), ledger.spot_asset_ctxs()])
        if kind in ("meta", "metaAndAssetCtxs"):
            dex = _perp_dex_field(body)
            meta = ledger.perp_meta(dex)
            if kind == "meta":
                return web.json_response(meta)
            return web.json_response([meta, ledger.perp_asset_ctxs(dex)])
        if kind in ("clearinghouseState", "spotClearinghouseState"):
            user = _field(body, "user", str, "body")
            if not _ADDRESS_RE.fullmatch(user):
                raise _Malformed(f"body.user: expected a 0x-prefixed 20-byte hex address: {user!r}")
            if kind == "spotClearinghouseState":
                return web.json_response(_spot_state(ledger, user))
            return web.json_response(_clearinghouse_state(ledger, user, _perp_dex_field(body)))
        raise _Malformed(f"body.type: unknown variant {kind!r}")
    except _Malformed as exc:
        return _unprocessable(str(exc))


def make_venue_app(ledger: VenueLedger, brand: Brand) -> web.Application:
    """The venue's HTTP API: POST /info and POST /exchange."""
    app = web.Application(client_max_size=256 * 1024)
    app[_VENUE_KEY] = ledger
    app[_BRAND_KEY] = brand
    app.router.add_post("/info", _info)
    app.router.add_post("/exchange", _exchange)
    return app
