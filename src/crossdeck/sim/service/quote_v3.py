"""The world's reading of the service's current API (spec quote-v3.md): `/quote/v3`'s answer
built from the same quote as `/quote/v2`, access tokens, and the deprecation signals of the
retiring endpoints.

Where the public shape is not known the world picks one reading and says so here, so the
client's reader (which accepts each reading) is tested against a real answer:
- `requestId` sits at the top level of the answer, not on the steps (the public SDK's TODO
  expects it there); each check endpoint still names it;
- one step per action: a v2 step of N items becomes N steps with the step's id, each with the
  item's `status`, `data`, `check` on the step;
- a signature step's `data` keeps v2's `{sign, post}`; a permit posts to /execute/permits/v2
  (the successor), a venue nonce mapping still to /authorize (not said to have moved);
- `depositAddress` is an object (`address`, `type`, `depositor`) on deposit-address steps only;
- fees are the GET /requests/v3 components (`swap`, `execution`, `platform`, `app`,
  `sponsored`: `usd` signed, negative a cost, `amount`, `amountFormatted`) beside one shared
  `currency` (the payment's), not nested under `quoted` (a quote has no `actual`);
- `details` and `protocol` as v2 sends them.
"""

from __future__ import annotations

import copy
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from crossdeck.sim.service.currencies import Currency
from crossdeck.sim.service.errors import ServiceError
from crossdeck.sim.service.money import format_amount, format_usd, usd_value

SUNSET = "2027-02-23T00:00:00Z"
DEPRECATED = "2026-11-25T00:00:00Z"
GUIDE = "/references/api/api_guides/migrating-to-quote-v3"
ACCESS_TOKEN_SECONDS = 15 * 60
FEE_COMPONENTS = ("swap", "execution", "platform", "app", "sponsored")

# the retiring endpoints and their successors (spec section 1)
SUCCESSORS = {"/quote/v2": "/quote/v3", "/execute/permits": "/execute/permits/v2"}


def deprecation_headers(path: str) -> dict[str, str]:
    """Deprecation (RFC 9745 date), Sunset (HTTP-date) and Link (three relations, joined)
    of a retiring endpoint's every answer."""
    successor = SUCCESSORS.get(path, "/quote/v3")
    return {
        "Deprecation": "@1795564800",  # 2026-11-25T00:00:00Z
        "Sunset": "Tue, 23 Feb 2027 00:00:00 GMT",
        "Link": f'<{GUIDE}>; rel="deprecation", <{GUIDE}>; rel="sunset", '
        f'<{successor}>; rel="successor-version"',
        "Access-Control-Expose-Headers": "Deprecation, Sunset, Link",
    }


def deprecation_body(path: str) -> dict[str, str]:
    """The `deprecation` object, as GET /requests/v2 answers carried one (whether /quote/v2
    does is not known; a client must read either)."""
    successor = SUCCESSORS.get(path, "/quote/v3")
    return {
        "message": f"POST {path} is deprecated; use POST {successor} (it needs an API key). "
        f"POST {path} is retired on February 23, 2027.",
        "deprecatedAt": DEPRECATED,
        "sunsetAt": SUNSET,
        "successor": successor,
        "migrationGuide": GUIDE,
    }


def retired(path: str) -> ServiceError:
    successor = SUCCESSORS.get(path, "/quote/v3")
    return ServiceError(
        410,
        "GONE",
        f"POST {path} was retired on 2027-02-23: use POST {successor} with an x-api-key",
    )


def v3_fees(units: dict[str, int], currency: Currency) -> dict[str, Any]:
    """The /requests/v3 fee components (`units`: each component's amount in `currency`'s
    smallest unit) beside the one shared currency; a cost's `usd` is negative, the sponsored
    part positive."""

    def component(name: str) -> dict[str, str]:
        amount = units.get(name, 0)
        usd = usd_value(amount, currency.decimals, currency.price)
        return {
            "usd": format_usd(usd if name == "sponsored" else -usd),
            "amount": str(amount),
            "amountFormatted": format_amount(amount, currency.decimals),
        }

    out: dict[str, Any] = {name: component(name) for name in FEE_COMPONENTS}
    out["currency"] = currency.to_json()
    return out


def _flat(step: dict[str, Any]) -> list[dict[str, Any]]:
    base = {k: step[k] for k in ("id", "action", "description", "kind") if k in step}
    out = []
    for item in step.get("items") or []:
        flat = dict(base)
        flat["status"] = item.get("status", "incomplete")
        data = copy.deepcopy(item.get("data"))
        post = data.get("post") if isinstance(data, dict) else None
        if isinstance(post, dict) and post.get("endpoint") in SUCCESSORS:
            post["endpoint"] = SUCCESSORS[post["endpoint"]]
        flat["data"] = data
        deposit = step.get("depositAddress")
        if isinstance(deposit, dict) or deposit:
            flat["depositAddress"] = deposit
        if item.get("check") is not None:
            flat["check"] = item["check"]
        out.append(flat)
    return out


def v3_answer(
    v2: dict[str, Any], request_id: str, fees: dict[str, Any], deposit: dict[str, Any] | None
) -> dict[str, Any]:
    """The /quote/v3 answer of the quote whose /quote/v2 answer is `v2` (module docstring)."""
    steps = []
    for step in v2.get("steps") or []:
        if deposit is not None and step.get("depositAddress"):
            step = {**step, "depositAddress": deposit}
        steps.extend(_flat(step))
    out: dict[str, Any] = {"requestId": request_id, "steps": steps}
    out["fees"] = fees
    for key in ("feeSponsorship", "details", "protocol"):
        if key in v2:
            out[key] = v2[key]
    return out


def v3_permit_answer(v1: dict[str, Any]) -> dict[str, Any]:
    """/execute/permits/v2: v1's answer with flat steps."""
    steps = []
    for step in v1.get("steps") or []:
        steps.extend(_flat(step) if isinstance(step, dict) else [step])
    return {**v1, "steps": steps}


@dataclass
class AccessTokens:
    """POST /access-tokens: a bearer token for an API key, 15 minutes (in memory only)."""

    lifetime_s: int = ACCESS_TOKEN_SECONDS
    _tokens: dict[str, tuple[str, float]] = field(default_factory=dict)

    def mint(self, key_name: str) -> dict[str, Any]:
        token = "cdt_" + secrets.token_urlsafe(32)
        expires = time.time() + self.lifetime_s
        self._tokens[token] = (key_name, expires)
        return {
            "token": token,
            "tokenType": "Bearer",
            "expiresAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires)),
            "scope": "public-api",
        }

    def name_for(self, token: str) -> str | None:
        """The API key a live token was minted for; None for an unknown or expired one."""
        found = self._tokens.get(token)
        if found is None:
            return None
        name, expires = found
        if time.time() >= expires:
            del self._tokens[token]
            return None
        return name
