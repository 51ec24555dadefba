"""When, whether and how long to wait before asking the service (or the venue) again.

One engine for both HTTP clients: `RetryEngine.send` sends a request, and on a failure asks the
request's `Resend` rule whether another attempt may follow and `RetryPolicy` how long to sleep
first. Which requests may be resent after they may have reached the server is data: each client
lists its routes in a `ResendRules` table, so the rule for `/exchange` or `/authorize` is read in
one line, not inferred from a loop. The sleep and the random source are injectable so tests can
record the delays instead of waiting them out.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

import httpx

from crossdeck.models.errors import TRANSIENT_ERROR_CODES

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
T = TypeVar("T")

# Statuses that say the server did not act on the request: 429 turns it away before handling,
# 503 says it cannot serve at all. Both are safe to resend even for requests with effects.
NOT_ACTED_STATUSES = frozenset({429, 503})

# Failures where the request never left this machine: resending cannot make the server act twice.
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter (AWS style), and Retry-After honoured.

    `max_attempts` counts the first try (1 = never retry). The n-th retry waits a uniformly
    random time in [0, min(max_delay, base_delay * 2**n)] (or exactly that cap with
    `jitter=False`). A `Retry-After` from the server replaces the computed delay; when it asks for
    longer than `max_retry_after` the client stops and reports it instead of blocking for minutes.
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    jitter: bool = True
    max_retry_after: float = 60.0
    sleep: Sleep = field(default=asyncio.sleep, repr=False, compare=False)
    random: Callable[[], float] = field(default=random.random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ValueError("delays must not be negative")

    def backoff(self, retry_number: int) -> float:
        """Delay before retry number `retry_number` (0 = the first retry)."""
        cap: float = min(self.max_delay, self.base_delay * (2**retry_number))
        return cap * self.random() if self.jitter else cap

    def delay_before_retry(self, retry_number: int, retry_after: float | None) -> float | None:
        """Seconds to wait, or None when the server's Retry-After exceeds what we accept."""
        if retry_after is None:
            return self.backoff(retry_number)
        if retry_after > self.max_retry_after:
            return None
        return max(retry_after, 0.0)

    def can_retry(self, attempt: int) -> bool:
        """Whether another attempt may follow attempt number `attempt` (1-based)."""
        return attempt < self.max_attempts


NO_RETRY = RetryPolicy(max_attempts=1)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds from a Retry-After header: delta-seconds or an HTTP-date; None when unusable."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds if seconds >= 0 else None  # also rejects NaN
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max((when - current).total_seconds(), 0.0)


# -- which requests may be sent again ----------------------------------------------------------


@dataclass(frozen=True)
class Resend:
    """Which failures of one kind of request are answered by sending it again.

    A refused connection (`NOT_SENT`) never reached the server and is always worth another try.
    `after_unknown`: also after a timeout, a dropped connection or an undecodable body, where the
    server may already have acted; only for requests that do no harm when repeated. `statuses`:
    HTTP answers to send again on (after the server's Retry-After). `error_codes`: the service's
    `errorCode`s that mean "try again later". `malformed`: a 2xx answer that cannot be read is
    asked for again (a proxy or a deploy in between; costs nothing for a read).
    """

    after_unknown: bool
    statuses: frozenset[int]
    error_codes: frozenset[str] = frozenset()
    malformed: bool = False

    def resends(self, status: int, error_code: str | None) -> bool:
        if status in self.statuses:
            return True
        return error_code is not None and error_code in self.error_codes


# Reads and anything whose repeat is harmless: every transient failure is worth another try.
IDEMPOTENT = Resend(
    after_unknown=True,
    statuses=NOT_ACTED_STATUSES,
    error_codes=TRANSIENT_ERROR_CODES,
    malformed=True,
)
# Requests that act (a signature posted, money moved): resent only when the server certainly did
# not act on them, i.e. a refused connection or one of the "not acted" statuses.
NOT_ACTED_ONLY = Resend(after_unknown=False, statuses=NOT_ACTED_STATUSES)
NEVER = Resend(after_unknown=False, statuses=frozenset())


@dataclass(frozen=True)
class Route:
    """`method path` (path without its query; None = every other path of that method)."""

    method: str
    path: str | None
    resend: Resend


class ResendRules:
    """A client's routes and their `Resend` rules: the exact path first, then the method's
    catch-all. A request no route names is never resent (a safe default for an unknown effect)."""

    def __init__(self, *routes: Route) -> None:
        self._routes = {(r.method.upper(), r.path): r.resend for r in routes}

    def __repr__(self) -> str:
        return f"ResendRules({len(self._routes)} routes)"

    def for_request(self, method: str, path: str) -> Resend:
        method = method.upper()
        path = path.split("?", 1)[0]
        found = self._routes.get((method, path)) or self._routes.get((method, None))
        return found if found is not None else NEVER


# -- the engine --------------------------------------------------------------------------------


class NoAnswer(Exception):
    """The request got no answer it could read, and no further attempt may follow.

    `may_have_acted`: it may have reached the server (a timeout or a dropped connection) and its
    rule forbids sending it again, so the caller must find out what happened before retrying.
    """

    def __init__(self, error: httpx.RequestError, attempts: int, *, may_have_acted: bool) -> None:
        super().__init__(f"{type(error).__name__} after {attempts} attempt(s)")
        self.error = error
        self.attempts = attempts
        self.may_have_acted = may_have_acted


@dataclass(frozen=True)
class RetryEngine:
    """Sends one request as often as its rule and the policy allow.

    `rules` says which failures may be resent; `unreadable` are the client's errors for an answer
    it could not read (resent when the rule says `malformed`); `error_code` reads the client's
    error code from a non-2xx answer (only asked when the rule names error codes).
    """

    rules: ResendRules
    unreadable: tuple[type[Exception], ...] = ()
    error_code: Callable[[httpx.Response], str | None] | None = None

    async def send(
        self,
        policy: RetryPolicy,
        method: str,
        path: str,
        send: Callable[[], Awaitable[httpx.Response]],
        read: Callable[[httpx.Response], T],
    ) -> T:
        """`read(response)` of the last answer: it returns the value or raises the client's
        error. Raises `NoAnswer` when the last attempt had no answer."""
        rule = self.rules.for_request(method, path)
        where = path.split("?", 1)[0]
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await send()
            except httpx.RequestError as exc:
                # transport failures, timeouts, and bodies that cannot be decoded (bad gzip)
                sent = not isinstance(exc, NOT_SENT)
                log.debug("%s %s: %s (attempt %d)", method, where, type(exc).__name__, attempt)
                if (not sent or rule.after_unknown) and policy.can_retry(attempt):
                    await policy.sleep(policy.backoff(attempt - 1))
                    continue
                raise NoAnswer(
                    exc, attempt, may_have_acted=sent and not rule.after_unknown
                ) from exc
            status = response.status_code
            log.debug("%s %s -> HTTP %d (attempt %d)", method, where, status, attempt)
            if not response.is_success and policy.can_retry(attempt):
                code = self.error_code(response) if self.error_code and rule.error_codes else None
                if rule.resends(status, code):
                    delay = policy.delay_before_retry(
                        attempt - 1, parse_retry_after(response.headers.get("retry-after"))
                    )
                    if delay is not None:
                        await policy.sleep(delay)
                        continue
            try:
                return read(response)
            except self.unreadable:
                if not (rule.malformed and response.is_success and policy.can_retry(attempt)):
                    raise
                log.debug("%s %s: unreadable answer (attempt %d)", method, where, attempt)
                await policy.sleep(policy.backoff(attempt - 1))
