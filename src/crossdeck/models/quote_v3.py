"""The one reader of quote answers: `/quote/v3`'s flat steps and `/quote/v2`'s steps-with-items
both become the one `Quote` / `Step` model the executor, the describer and every guard read.

What is known of v3 (spec quote-v3.md section 5): one step per action, no `items`; `status`,
`data`, `check` and `depositAddress` (an object) sit on the step; fees in the layout of
GET /requests/v3 (`swap`, `execution`, `platform`, `app`, `sponsored`, each `{usd, amount,
amountFormatted}`, one shared `currency`); errors always carry an `errorCode`.

What is not known, and how each reading is held to the request instead of guessed:
- where `requestId` lives: a step's own, else the top level, else the one id every check
  endpoint and signature post names; steps that end up naming different requests (or none)
  are refused by the request-id guard, and a check or post naming another request by the
  endpoint guards, in words, as for v2;
- the signature step's `data`: v2's `{sign, post}`, or the sign payload itself with `post`
  beside it on the step; both become v2's `SignatureData`, so the typed-data and endpoint
  guards read them as they read v2's; a signature step with neither is left as unknown data,
  which the executor refuses in words;
- whether fees nest under `quoted`/`actual`: `quoted` is read when present, else the flat
  layout;
- `details`, `protocol`: read as v2's (same names); absent, the guards that need them refuse.

Each v3 step becomes one `Step` with one item, so a v2 step of N items and the N v3 steps that
replace it are executed, described and guarded alike.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import Field

from crossdeck.models.base import WireModel
from crossdeck.models.quote import Quote
from crossdeck.models.steps import Step

FEE_COMPONENTS = ("swap", "execution", "platform", "app", "sponsored")
# v3 fee component -> the v2 `Fees` member shown with today's words ("destination gas", ...)
_V2_FEE_NAME = {
    "swap": "swap",
    "execution": "relayerGas",
    "platform": "relayerService",
    "app": "app",
    "sponsored": "subsidized",
}
_V2_ONLY_FEES = ("gas", "relayer", "relayerGas", "relayerService", "subsidized")
_V3_ONLY_FEES = ("swap", "execution", "platform", "sponsored", "currency", "quoted")
_STEP_KEYS = ("status", "data", "check")


def is_flat_step(raw: object) -> bool:
    """A v3 step: no `items`, its own `data`/`status`/`check`."""
    return isinstance(raw, dict) and "items" not in raw and any(k in raw for k in _STEP_KEYS)


def _query_request_id(endpoint: object) -> str | None:
    if not isinstance(endpoint, str):
        return None
    for key, value in parse_qsl(urlsplit(endpoint).query):
        if key == "requestId" and value:
            return value
    return None


def _signature_data(raw: dict[str, Any]) -> Any:
    """A v3 signature step's data as v2's `{sign, post}` (module docstring)."""
    data = raw.get("data")
    if not isinstance(data, dict) or "sign" in data or "post" in data:
        return data
    post = raw.get("post")
    signs = "signatureKind" in data or ("domain" in data and "types" in data)
    if signs and isinstance(post, dict):
        return {"sign": data, "post": post}
    return data


def _flat_step(raw: dict[str, Any]) -> dict[str, Any]:
    """One v3 step as a v2 step of one item."""
    step = {k: v for k, v in raw.items() if k not in (*_STEP_KEYS, "depositAddress", "post")}
    item: dict[str, Any] = {}
    if "status" in raw:
        item["status"] = raw["status"]
    if "data" in raw:
        item["data"] = _signature_data(raw) if raw.get("kind") == "signature" else raw["data"]
    if raw.get("check") is not None:
        item["check"] = raw["check"]
    deposit = raw.get("depositAddress")
    if isinstance(deposit, dict):
        step["depositAddress"] = deposit.get("address") or ""
        step["depositAddressInfo"] = deposit  # kept whole (type, depositor, recovery address)
    elif deposit is not None:
        step["depositAddress"] = deposit
    step["items"] = [item]
    return step


def step_request_ids(raw: dict[str, Any]) -> set[str]:
    """Every request id one step (either shape) names: its own, its checks', its posts'."""
    found: set[str] = set()
    if isinstance(raw.get("requestId"), str) and raw["requestId"]:
        found.add(raw["requestId"])
    listed = raw.get("items")
    items: list[Any] = listed if isinstance(listed, list) else [raw]
    for item in items:
        if not isinstance(item, dict):
            continue
        check = item.get("check")
        found_id = _query_request_id(check.get("endpoint")) if isinstance(check, dict) else None
        if found_id:
            found.add(found_id)
        data = item.get("data")
        post = data.get("post") if isinstance(data, dict) else None
        post = post if isinstance(post, dict) else raw.get("post")
        body = post.get("body") if isinstance(post, dict) else None
        body_id = body.get("requestId") if isinstance(body, dict) else None
        if isinstance(body_id, str) and body_id:
            found.add(body_id)
    return found


def normalize_steps(raw_steps: object, request_id: str | None = None) -> list[dict[str, Any]]:
    """Steps of either shape as v2 steps (dicts); a flat step without its own `requestId`
    gets `request_id` (the answer's one request)."""
    if not isinstance(raw_steps, list):
        return []
    out: list[dict[str, Any]] = []
    for raw in raw_steps:
        if not isinstance(raw, dict):
            out.append(raw)  # kept: the Step model refuses it with its own words
            continue
        step = _flat_step(raw) if is_flat_step(raw) else dict(raw)
        if request_id is not None and not step.get("requestId"):
            step["requestId"] = request_id
        out.append(step)
    return out


def read_steps(raw_steps: object, request_id: str | None = None) -> list[Step]:
    """Steps of either shape (a quote's, or those a signature post answers with) as `Step`s."""
    return [Step.from_wire(s) for s in normalize_steps(raw_steps, request_id)]


def one_request_id(data: dict[str, Any]) -> str | None:
    """The request a quote answer names for its steps that carry no `requestId` of their own:
    its top-level `requestId`, else the one id its checks and signature posts all name. When
    they name several (or none), None: the steps then carry no id, and the request-id guard
    refuses the quote in words, as it refuses a v2 quote whose steps disagree."""
    top = data.get("requestId")
    if isinstance(top, str) and top:
        return top
    found: set[str] = set()
    spelled: dict[str, str] = {}
    steps = data.get("steps")
    for raw in steps if isinstance(steps, list) else []:
        if isinstance(raw, dict):
            for request_id in step_request_ids(raw):
                found.add(request_id.lower())
                spelled.setdefault(request_id.lower(), request_id)
    return spelled[next(iter(found))] if len(found) == 1 else None


def _abs_text(text: object) -> object:
    """v3 writes a cost as a negative USD; v2's amountUsd is the positive size of the fee."""
    if not isinstance(text, str):
        return text
    try:
        return str(abs(Decimal(text)))
    except InvalidOperation:
        return text


def v3_fee_components(fees: object) -> tuple[dict[str, Any], Any] | None:
    """(components, shared currency) of a v3 fee object, `quoted` when it nests, else flat;
    None when `fees` is not the v3 layout."""
    if not isinstance(fees, dict):
        return None
    if any(name in fees for name in _V2_ONLY_FEES):  # v2 shares only `app` with v3
        return None
    if not any(name in fees for name in _V3_ONLY_FEES):  # `app` alone says nothing
        return None
    quoted = fees.get("quoted")
    layer: dict[str, Any] = quoted if isinstance(quoted, dict) else fees
    if not any(isinstance(layer.get(name), dict) for name in FEE_COMPONENTS):
        return None
    return {n: layer[n] for n in FEE_COMPONENTS if isinstance(layer.get(n), dict)}, fees.get(
        "currency"
    )


def fees_as_v2(fees: object) -> object:
    """v3 fees as v2's `Fees` members (each a currency amount in the shared currency);
    anything else unchanged. `relayer` is execution plus platform, as v2 sums them."""
    found = v3_fee_components(fees)
    if found is None:
        return fees
    components, currency = found
    out: dict[str, Any] = {}
    for name, value in components.items():
        amount: dict[str, Any] = {"currency": currency} if currency is not None else {}
        for key, wire in (("amount", "amount"), ("amountFormatted", "amountFormatted")):
            if value.get(key) is not None:
                amount[wire] = value[key]
        if value.get("usd") is not None:
            amount["amountUsd"] = _abs_text(value["usd"])
        out[_V2_FEE_NAME[name]] = amount
    parts = [components.get("execution"), components.get("platform")]
    try:
        total = sum(int(p["amount"]) for p in parts if p is not None)
    except (KeyError, TypeError, ValueError):
        total = None
    if total is not None and any(p is not None for p in parts):
        out["relayer"] = {"currency": currency, "amount": str(total)}
    return out


def read_quote(data: dict[str, Any]) -> Quote:
    """A quote answer of either API as the one `Quote` model (module docstring)."""
    flat = isinstance(data.get("steps"), list) and any(is_flat_step(s) for s in data["steps"])
    v3_fees = v3_fee_components(data.get("fees")) is not None
    if not flat and not v3_fees and "requestId" not in data:
        return Quote.model_validate(data)
    request_id = one_request_id(data)
    shaped = {k: v for k, v in data.items() if k != "requestId"}
    shaped["steps"] = normalize_steps(data.get("steps"), request_id)
    if v3_fees:
        shaped["fees"] = fees_as_v2(data["fees"])
        shaped["feesV3"] = data["fees"]  # kept as sent, for --json and the record
    return Quote.model_validate(shaped)


def origin_gas_units(quote: Quote) -> tuple[int, int] | None:
    """(chain id, wei) the quote's EVM transactions may spend on gas at most (each item's
    `gas` times its `maxFeePerGas`, else `gasPrice`), on the chain of its first transaction;
    None when it has none. What v2 sent as `fees.gas` and v3 no longer does."""
    chain_id: int | None = None
    total = 0
    for tx in quote.transactions():
        if tx.chain_id is None or tx.gas is None:
            continue
        chain_id = tx.chain_id if chain_id is None else chain_id
        if tx.chain_id != chain_id:
            continue
        price = tx.max_fee_per_gas
        if price is None:
            raw = tx.extra_fields.get("gasPrice")
            price = int(raw) if isinstance(raw, str) and raw.isdigit() else None
        total += tx.gas * (price or 0)
    return None if chain_id is None else (chain_id, total)


def with_origin_gas(quote: Quote, native: dict[str, Any] | None) -> Quote:
    """`quote` with v2's `fees.gas` worked out of its own transactions when the answer carries
    none (v3), in the origin chain's native currency (`native`: /chains' `currency` of that
    chain), so the origin-gas line and the guards that name the native currency read as on
    v2. No USD: v3 does not price it and nothing here guesses."""
    from crossdeck.models.amounts import CurrencyAmount
    from crossdeck.models.quote import Fees

    if quote.fees is not None and quote.fees.gas is not None:
        return quote
    found = origin_gas_units(quote)
    if found is None:
        return quote
    chain_id, wei = found
    currency: dict[str, Any] = {"chainId": chain_id, "address": "0x" + "0" * 40, "decimals": 18}
    if native is not None:
        currency.update({k: native[k] for k in ("symbol", "name", "decimals") if k in native})
    gas = CurrencyAmount.from_wire({"currency": currency, "amount": str(wei)})
    fees = quote.fees if quote.fees is not None else Fees()
    fees.gas = gas
    quote.fees = fees
    return quote


class AccessToken(WireModel):
    """POST /access-tokens' answer (spec quote-v3.md section 3): a bearer token for a browser
    or app to send instead of the API key, 15 minutes long. Its text never shows in a repr."""

    token: str | None = Field(default=None, repr=False)
    token_type: str | None = None  # "Bearer"
    expires_at: str | None = None  # ISO 8601, as sent
    scope: str | None = None  # "public-api"
