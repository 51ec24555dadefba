"""`VenueClient`: the venue's own API, `/info` (reads) and `/exchange` (signed actions).

Reads are idempotent and retried on 429, 5xx and network failures. `/exchange` moves money, so it
is resent only when the venue certainly did not act on it (see `exchange`). Both rules are data
(`RESEND_RULES`) for the one retry engine in `crossdeck.retry`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Self, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from crossdeck.base.errors import InputError
from crossdeck.base.tls import client_context
from crossdeck.models.errors import error_summary
from crossdeck.retry import NoAnswer, Resend, ResendRules, RetryEngine, RetryPolicy, Route
from crossdeck.venue.errors import (
    VenueConnectionError,
    VenueDataError,
    VenueError,
    VenueMalformedResponseError,
)

if TYPE_CHECKING:
    # (each loaded by the first method that reads one: a bridge that never asks the venue
    # loads none of them, ~11 ms)
    from crossdeck.models.venue import (
        ClearinghouseState,
        SpotClearinghouseState,
        SpotMeta,
        VenueSignature,
    )
    from crossdeck.models.venue_account import (
        LedgerUpdate,
        PreTransferCheck,
        SubAccount,
        VaultEquity,
    )

log = logging.getLogger(__name__)

_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_PREVIEW = 300
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

# /info reads have no effect: any transient failure (network, timeout, 429, 5xx) is worth
# another try. /exchange moves money: after a timeout or a dropped connection the venue may
# already have executed it, so it is resent only when it certainly did not act (connection
# refused, or turned away with 429); a 5xx is not resent either.
RESEND_RULES = ResendRules(
    Route("POST", "/info", Resend(after_unknown=True, statuses=frozenset({429, *range(500, 600)}))),
    Route("POST", "/exchange", Resend(after_unknown=False, statuses=frozenset({429}))),
)
_ENGINE = RetryEngine(RESEND_RULES)


def _preview(raw: bytes) -> str:
    text = " ".join(raw.decode("utf-8", errors="replace").split())
    return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "..."


def _check_user(user: str) -> str:
    if not isinstance(user, str) or not _ADDRESS.fullmatch(user):
        raise InputError(
            f"venue user {user!r} is not an address", hint="use 0x followed by 40 hex digits"
        )
    return user


class VenueClient:
    def __init__(
        self,
        base_url: str,
        *,
        timeout: float | httpx.Timeout = 10.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            verify=client_context(self.base_url),
        )

    def __repr__(self) -> str:
        return f"VenueClient({self.base_url!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- /info -----------------------------------------------------------------------------

    async def info(self, body: dict[str, Any]) -> Any:
        """POST /info with `body`; the decoded JSON answer. Retried: reads have no effects."""
        what = f"/info {body.get('type')}"
        return await self._post("/info", body, lambda response: self._decode(response, what))

    async def _info_model(self, body: dict[str, Any], model: type[M]) -> M:
        data = await self.info(body)
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise VenueMalformedResponseError(
                f"venue /info {body['type']} answer has the wrong shape: {error_summary(exc)}",
                status=200,
                response=data,
            ) from exc

    async def spot_meta(self) -> SpotMeta:
        from crossdeck.models.venue import SpotMeta

        return await self._info_model({"type": "spotMeta"}, SpotMeta)

    async def clearinghouse_state(self, user: str, dex: str | None = None) -> ClearinghouseState:
        body: dict[str, Any] = {"type": "clearinghouseState", "user": _check_user(user)}
        if dex is not None:
            body["dex"] = dex
        from crossdeck.models.venue import ClearinghouseState

        return await self._info_model(body, ClearinghouseState)

    async def dex_states(self, user: str, dexes: list[str]) -> dict[str, ClearinghouseState]:
        """The perps account of `user` on each HIP-3 DEX of `dexes`, asked at once."""
        states = await asyncio.gather(*(self.clearinghouse_state(user, dex) for dex in dexes))
        return dict(zip(dexes, states, strict=True))

    async def spot_clearinghouse_state(self, user: str) -> SpotClearinghouseState:
        body = {"type": "spotClearinghouseState", "user": _check_user(user)}
        from crossdeck.models.venue import SpotClearinghouseState

        return await self._info_model(body, SpotClearinghouseState)

    async def user_abstraction(self, user: str) -> str:
        """The account's mode as the venue names it ('default', 'unifiedAccount', ...)."""
        data = await self.info({"type": "userAbstraction", "user": _check_user(user)})
        if not isinstance(data, str):
            raise VenueMalformedResponseError(
                f"venue /info userAbstraction answered {data!r}, not a mode name",
                status=200,
                response=data,
            )
        return data

    async def sub_accounts(self, user: str) -> list[SubAccount]:
        """The account's sub accounts; none when the venue answers null."""
        data = await self.info({"type": "subAccounts", "user": _check_user(user)})
        from crossdeck.models.venue_account import SubAccount

        return self._list_of(data, SubAccount, "subAccounts")

    async def vault_equities(self, user: str) -> list[VaultEquity]:
        data = await self.info({"type": "userVaultEquities", "user": _check_user(user)})
        from crossdeck.models.venue_account import VaultEquity

        return self._list_of(data, VaultEquity, "userVaultEquities")

    async def pre_transfer_check(self, destination: str, source: str) -> PreTransferCheck:
        """What the venue says of a send from `source` to `destination` before it is made (the
        destination is the request's `user`, as the venue names it)."""
        body = {
            "type": "preTransferCheck",
            "user": _check_user(destination),
            "source": _check_user(source),
        }
        from crossdeck.models.venue_account import PreTransferCheck

        return await self._info_model(body, PreTransferCheck)

    async def ledger_updates(self, user: str, start_ms: int = 0) -> list[LedgerUpdate]:
        body = {"type": "userNonFundingLedgerUpdates", "user": _check_user(user)}
        data = await self.info({**body, "startTime": start_ms})
        from crossdeck.models.venue_account import LedgerUpdate

        return self._list_of(data, LedgerUpdate, "userNonFundingLedgerUpdates")

    @staticmethod
    def _list_of(data: Any, model: type[M], what: str) -> list[M]:
        if data is None:
            return []
        try:
            if not isinstance(data, list):
                raise TypeError("not a list")
            return [model.model_validate(item) for item in data]
        except (ValidationError, TypeError) as exc:
            detail = error_summary(exc) if isinstance(exc, ValidationError) else str(exc)
            raise VenueMalformedResponseError(
                f"venue /info {what} answer has the wrong shape: {detail}",
                status=200,
                response=data,
            ) from exc

    # -- /exchange -------------------------------------------------------------------------

    async def exchange(
        self, action: dict[str, Any], nonce: int, signature: VenueSignature
    ) -> dict[str, Any]:
        """POST /exchange `{action, nonce, signature}`; the answer when HTTP 200 and status 'ok'.

        `action` must be the exact signed message (`signing.signed_action`). It is resent only
        when the request never left (connection refused) or the venue turned it away with 429.
        After a timeout or a dropped connection the venue may already have executed the
        transfer, and a second post could move the money twice; so that surfaces as
        `VenueConnectionError(may_have_acted=True)` for the caller to reconcile first.
        """
        if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
            raise VenueDataError(f"nonce must be a non-negative integer, got {nonce!r}")
        if "nonce" in action and action["nonce"] != nonce:
            raise VenueDataError(
                f"the action's nonce {action['nonce']!r} differs from the posted nonce {nonce}",
                hint="the transfer could not be tied to its request; nothing was sent",
            )
        body = {"action": action, "nonce": nonce, "signature": signature.to_wire()}
        return await self._post("/exchange", body, self._accepted)

    def _accepted(self, response: httpx.Response) -> dict[str, Any]:
        data = self._decode(response, "/exchange")
        if not isinstance(data, dict) or data.get("status") != "ok":
            message = data.get("response") if isinstance(data, dict) else data
            raise VenueError(
                f"the venue refused the action: {message}",
                status=response.status_code,
                response=message,
                raw_body=response.content,
                hint="nothing was transferred; fix the cause and sign again",
            )
        return data

    # -- transport -------------------------------------------------------------------------

    async def _post(
        self, path: str, body: dict[str, Any], read: Callable[[httpx.Response], T]
    ) -> T:
        def send() -> Awaitable[httpx.Response]:
            return self._http.post(path, json=body)

        try:
            return await _ENGINE.send(self.retry, "POST", path, send, read)
        except NoAnswer as exc:
            name = type(exc.error).__name__
            if exc.may_have_acted:
                raise VenueConnectionError(
                    f"venue {path} did not answer ({name})", may_have_acted=True
                ) from exc.error
            raise VenueConnectionError(
                f"venue {path} unreachable at {self.base_url} after {exc.attempts} "
                f"attempt(s): {name}"
            ) from exc.error

    # -- decoding --------------------------------------------------------------------------

    def _decode(self, response: httpx.Response, what: str) -> Any:
        raw = response.content
        log.debug("venue %s -> HTTP %s", what, response.status_code)
        if response.status_code != 200:
            try:
                detail: Any = json.loads(raw)
            except ValueError:
                detail = raw.decode("utf-8", errors="replace")
            if isinstance(detail, dict) and "response" in detail:
                detail = detail["response"]
            hint = (
                "the venue is rate limiting; wait and try again"
                if response.status_code == 429
                else None
            )
            raise VenueError(
                f"venue {what} answered HTTP {response.status_code}: "
                f"{_preview(raw) or response.reason_phrase}",
                status=response.status_code,
                response=detail,
                raw_body=raw,
                hint=hint,
            )
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise VenueMalformedResponseError(
                f"venue {what} answered 200 with a body that is not JSON: {_preview(raw)!r}",
                status=200,
                raw_body=raw,
            ) from exc
