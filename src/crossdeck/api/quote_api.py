"""Which quote API a client speaks, with which credential, and what a retiring endpoint says
about its end (spec quote-v3.md sections 1-3).

- `QuoteApi`: `auto` asks `/quote/v3` when a credential is configured and `/quote/v2` otherwise;
  `v3` and `v2` force one. `/quote/v3` refuses a request without a credential.
- `Credential`: an API key (`x-api-key`) or an access token (`Authorization: Bearer`), never
  both on one request (the service rejects that): a token, when given, is what is sent.
- `Deprecation`: the `Deprecation` / `Sunset` / `Link` headers (and a `deprecation` body
  object) a retiring endpoint answers with, read into dates and a successor.
- The errors that say what to change: `CredentialRefused` (401 on /quote/v3, or a refused
  token) and `QuoteNeedsCredential` (v2 retired and no credential), both exit 6 and never
  retried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal

import httpx

from crossdeck.api.errors import ServiceError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.base.secret import Secret

QuoteApi = Literal["auto", "v3", "v2"]
QUOTE_APIS: tuple[QuoteApi, ...] = ("auto", "v3", "v2")
V3_PATH = "/quote/v3"
V2_PATH = "/quote/v2"
ACCESS_TOKEN_ENV = "CROSSDECK_ACCESS_TOKEN"
SET_KEY = "crossdeck apikey set"
UNAUTHORIZED_QUOTE = "UNAUTHORIZED_QUOTE"


@dataclass(frozen=True, slots=True)
class Credential:
    """What authenticates a request: an API key or an access token (a token wins: the
    service refuses a request that carries both)."""

    api_key: Secret | None = None
    access_token: Secret | None = None

    @property
    def present(self) -> bool:
        return self.api_key is not None or self.access_token is not None

    @property
    def kind(self) -> str | None:
        if self.access_token is not None:
            return "access token"
        return "API key" if self.api_key is not None else None

    def headers(self) -> dict[str, str]:
        if self.access_token is not None:
            return {"authorization": f"Bearer {self.access_token.get_secret_value()}"}
        if self.api_key is not None:
            return {"x-api-key": self.api_key.get_secret_value()}
        return {}


def quote_path(api: QuoteApi, credential: Credential) -> str:
    """The quote endpoint `api` asks with `credential` (`auto`: v3 with a credential)."""
    if api == "v3" or (api == "auto" and credential.present):
        return V3_PATH
    return V2_PATH


# -- deprecation signals -------------------------------------------------------------------------

_STRUCTURED_DATE = re.compile(r"^@(-?\d{1,12})$")
_LINK = re.compile(r"<([^>]*)>\s*((?:;\s*[^;,]+)*)")
_REL = re.compile(r'rel\s*=\s*"?([^";,]+)"?')


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _deprecation_date(value: str | None) -> str | None:
    """RFC 9745 `@<unix seconds>` as ISO 8601 UTC; anything else kept as text."""
    if not value:
        return None
    found = _STRUCTURED_DATE.fullmatch(value.strip())
    if found is None:
        return value.strip()
    try:
        return _iso(datetime.fromtimestamp(int(found.group(1)), UTC))
    except (OverflowError, OSError, ValueError):
        return value.strip()


def _sunset_date(value: str | None) -> str | None:
    """An HTTP-date as ISO 8601 UTC; an unreadable one kept as text."""
    if not value:
        return None
    try:
        return _iso(parsedate_to_datetime(value.strip()))
    except (TypeError, ValueError, IndexError):
        return value.strip()


def _links(values: list[str]) -> dict[str, str]:
    """`rel -> target` of every `Link` field (one field per line, or comma-joined)."""
    out: dict[str, str] = {}
    for value in values:
        for target, params in _LINK.findall(value):
            for rel in _REL.findall(params):
                for name in rel.split():
                    out.setdefault(name.lower(), target)
    return out


@dataclass(frozen=True, slots=True)
class Deprecation:
    """What a retiring endpoint said about its end. Dates are ISO 8601 UTC strings (or the
    text as sent when it could not be read); shown, never computed with."""

    endpoint: str
    deprecated_at: str | None = None
    sunset_at: str | None = None
    successor: str | None = None
    migration_guide: str | None = None
    message: str | None = None

    @property
    def sunset_day(self) -> str | None:
        return self.sunset_at[:10] if self.sunset_at else None

    def line(self) -> str:
        """One line for a person."""
        when = f"retired on {self.sunset_day}" if self.sunset_day else "to be retired"
        text = f"{self.endpoint} is deprecated and {when}"
        if self.successor:
            text += f"; its successor is {self.successor}"
        return text + f" (an API key is needed there: {SET_KEY})"

    def to_json(self) -> dict[str, Any]:
        return {
            "endpoint": self.endpoint,
            "deprecatedAt": self.deprecated_at,
            "sunsetAt": self.sunset_at,
            "successor": self.successor,
            "migrationGuide": self.migration_guide,
            "message": self.message,
        }


def notice_line(deprecations: dict[str, Deprecation]) -> str:
    """The quote endpoint's notice for a status line, "" when it is not retiring."""
    notice = deprecations.get(f"POST {V2_PATH}")
    return notice.line() if notice is not None else ""


def read_deprecation(response: httpx.Response, body: object = None) -> Deprecation | None:
    """The deprecation signals of `response` (headers first, a `deprecation` body object for
    what they leave out); None when it carries none."""
    headers = response.headers
    deprecation, sunset = headers.get("deprecation"), headers.get("sunset")
    links = _links(headers.get_list("link"))
    notice = body.get("deprecation") if isinstance(body, dict) else None
    notice = notice if isinstance(notice, dict) else {}
    if deprecation is None and sunset is None and not notice:
        return None

    def text(key: str) -> str | None:
        value = notice.get(key)
        return value if isinstance(value, str) and value else None

    request = response.request
    return Deprecation(
        endpoint=f"{request.method} {request.url.path}",
        deprecated_at=_deprecation_date(deprecation) or text("deprecatedAt"),
        sunset_at=_sunset_date(sunset) or text("sunsetAt"),
        successor=links.get("successor-version") or text("successor"),
        migration_guide=links.get("deprecation") or text("migrationGuide"),
        message=text("message"),
    )


# -- the errors that name their fix --------------------------------------------------------------


class CredentialRefused(ServiceError):
    """/quote/v3 refused the request for its credential (401 `UNAUTHORIZED_QUOTE`, or a token
    the service does not take). Never retried: asking again changes nothing."""

    def __init__(self, cause: ServiceError, credential: Credential) -> None:
        if credential.access_token is not None:
            what = "the access token was refused"
            hint = (
                f"mint a fresh token (they live 15 minutes) and pass it in {ACCESS_TOKEN_ENV} or "
                f"--access-token-file, or drop it and use an API key: {SET_KEY}"
            )
        elif credential.api_key is not None:
            what = "the service refused this profile's API key"
            hint = f"store a key the service accepts: {SET_KEY}"
        else:
            what = "the service needs an API key to quote"
            hint = f"store this profile's API key: {SET_KEY}"
        super().__init__(
            f"{what} ({cause.message})",
            status=cause.status,
            error_code=cause.error_code,
            error_data=cause.error_data,
            raw_body=cause.raw_body,
            method=cause.method,
            path=cause.path,
            hint=hint,
        )
        self.exit_code = ExitCode.NO_SECRET

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})"


class QuoteNeedsCredential(ServiceError):
    """`/quote/v2` is retired (410, or 404 on its path) and no credential is configured for
    its successor, which needs one."""

    def __init__(self, cause: ServiceError) -> None:
        super().__init__(
            f"quotes now need an API key: {cause.method or 'POST'} {V2_PATH} is retired "
            f"(HTTP {cause.status}) and its successor {V3_PATH} refuses requests without one",
            status=cause.status,
            error_code=cause.error_code,
            raw_body=cause.raw_body,
            method=cause.method,
            path=cause.path,
            hint=f"store this profile's API key with `{SET_KEY}` (or give an access token in "
            f"{ACCESS_TOKEN_ENV}), then quote again",
        )
        self.exit_code = ExitCode.NO_SECRET

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})"


def v3_needs_credential() -> QuoteNeedsCredential:
    """`quote_api = "v3"` with no credential: said before any request is sent."""
    cause = ServiceError("no credential configured", status=None, method="POST", path=V3_PATH)
    error = QuoteNeedsCredential(cause)
    error.message = (
        f"{V3_PATH} needs an API key or an access token, and this profile has neither "
        '([service] quote_api = "v3")'
    )
    return error


def quote_error(exc: ServiceError, path: str, credential: Credential) -> ServiceError:
    """The error a failed quote is shown as: a credential problem names its fix."""
    if path == V3_PATH and (exc.status == 401 or exc.error_code == UNAUTHORIZED_QUOTE):
        return CredentialRefused(exc, credential)
    if path == V2_PATH and exc.status in (404, 410) and not credential.present:
        return QuoteNeedsCredential(exc)
    if exc.status == 401 and credential.access_token is not None:
        return CredentialRefused(exc, credential)
    return exc
