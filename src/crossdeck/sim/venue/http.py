"""The venue's HTTP API: POST /info and POST /exchange, in the public venue's manner: a refusal
is HTTP 200 `{"status":"err","response":msg}`; a body that does not deserialize is 4xx with a
plain-text reason."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from crossdeck.sim.brand import Brand
from crossdeck.sim.venue import info
from crossdeck.sim.venue.actions import apply_action
from crossdeck.sim.venue.assets import (
    ADDRESS_RE,
    PERPS_DEX,
    VENUE_CHAIN_VALUE,
    VenueError,
    perp_currency,
)
from crossdeck.sim.venue.ledger import VenueLedger
from crossdeck.sim.venue.signed import Malformed, parse_exchange, recover_signer

_VENUE_KEY = web.AppKey("venue_ledger", VenueLedger)
_BRAND_KEY = web.AppKey("venue_brand", Brand)
_USER_READS = frozenset(
    {"clearinghouseState", "spotClearinghouseState", "userAbstraction", "subAccounts",
     "userVaultEquities", "userNonFundingLedgerUpdates", "userRole", "preTransferCheck"}
)  # fmt: skip


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


async def _exchange(request: web.Request) -> web.Response:
    ledger, brand = request.app[_VENUE_KEY], request.app[_BRAND_KEY]
    body = await _read_json(request)
    try:
        kind, action, nonce, signature = parse_exchange(body, brand)
    except Malformed as exc:
        return _unprocessable(str(exc))
    try:
        if action[kind.nonce_field] != nonce:
            raise VenueError(
                f"Invalid nonce: action {kind.nonce_field} does not match the request nonce"
            )
        chain_value = action[brand.venue_chain_field]
        if chain_value != VENUE_CHAIN_VALUE:
            raise VenueError(
                f"Invalid {brand.venue_chain_field} {chain_value!r}: this venue is"
                f" {VENUE_CHAIN_VALUE!r}"
            )
        signer, chain_id = recover_signer(brand, kind, action, signature)
        apply_action(ledger, kind.wire, action, signer, chain_id, nonce)
    except VenueError as exc:
        return _err(str(exc))
    return web.json_response({"status": "ok", "response": {"type": "default"}})


def _perp_dex_field(body: dict[str, Any]) -> str:
    """The optional `dex` of a perps read: '' (or absent) for the default DEX."""
    dex = body.get("dex", PERPS_DEX)
    if dex is None:
        dex = PERPS_DEX
    if not isinstance(dex, str) or perp_currency(dex) is None:
        raise Malformed(f"body.dex: unknown perp dex {dex!r}")
    return dex


def _user(body: dict[str, Any], field: str = "user") -> str:
    user = body.get(field)
    if not isinstance(user, str):
        raise Malformed(f"body: missing field `{field}`")
    if not ADDRESS_RE.fullmatch(user):
        raise Malformed(f"body.{field}: expected a 0x-prefixed 20-byte hex address: {user!r}")
    return user


def _time(body: dict[str, Any], name: str, required: bool) -> int | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise Malformed(f"body.{name}: expected a time in milliseconds")
    return value


def _user_read(ledger: VenueLedger, kind: str, body: dict[str, Any]) -> Any:
    user = _user(body)
    if kind == "clearinghouseState":
        return info.clearinghouse_state(ledger, user, _perp_dex_field(body))
    if kind == "spotClearinghouseState":
        return info.spot_state(ledger, user)
    if kind == "userAbstraction":
        return ledger.mode(user)
    if kind == "subAccounts":
        return info.sub_accounts(ledger, user)
    if kind == "userVaultEquities":
        return info.vault_equities(ledger, user)
    if kind == "userRole":
        return info.user_role(ledger, user)
    if kind == "preTransferCheck":
        return info.pre_transfer_check(ledger, user, _user(body, "source"))
    start = _time(body, "startTime", required=True)
    assert start is not None
    return info.ledger_updates(ledger, user, start, _time(body, "endTime", required=False))


async def _info(request: web.Request) -> web.Response:
    ledger = request.app[_VENUE_KEY]
    body = await _read_json(request)
    try:
        if not isinstance(body, dict):
            raise Malformed("body: expected an object with a `type`")
        kind = body.get("type")
        if not isinstance(kind, str):
            raise Malformed("body: missing field `type`")
        if kind == "spotMeta":
            return web.json_response(info.spot_meta())
        if kind == "perpDexs":
            return web.json_response(info.perp_dexs())
        if kind == "spotMetaAndAssetCtxs":
            return web.json_response([info.spot_meta(), info.spot_asset_ctxs(ledger)])
        if kind in ("meta", "metaAndAssetCtxs"):
            dex = _perp_dex_field(body)
            meta = info.perp_meta(dex)
            if kind == "meta":
                return web.json_response(meta)
            return web.json_response([meta, info.perp_asset_ctxs(dex)])
        if kind in _USER_READS:
            return web.json_response(_user_read(ledger, kind, body))
        raise Malformed(f"body.type: unknown variant {kind!r}")
    except Malformed as exc:
        return _unprocessable(str(exc))


def make_venue_app(ledger: VenueLedger, brand: Brand) -> web.Application:
    """The venue's HTTP API: POST /info and POST /exchange."""
    app = web.Application(client_max_size=256 * 1024)
    app[_VENUE_KEY] = ledger
    app[_BRAND_KEY] = brand
    app.router.add_post("/info", _info)
    app.router.add_post("/exchange", _exchange)
    return app
