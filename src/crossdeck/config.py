"""Settings: profiles, a TOML file in the user config dir, `CROSSDECK_...` env vars, world files.

Precedence, highest first:
1. environment variables `CROSSDECK_<FIELD>`, nested with `__` (`CROSSDECK_SERVICE__URL`,
   `CROSSDECK_RPC__8453`);
2. the TOML file: `[profiles.<name>]` of the active profile over the file's top-level sections
   (which every profile shares);
3. the profile's defaults: the built-in `mainnet`, or a world file for `demo`.

The file is `<user config dir>/crossdeck/config.toml`, or the file `CROSSDECK_CONFIG` names:

    profile = "mainnet"          # the profile used when none is given
    theme = "crossdeck-dark"     # shared by all profiles

    [profiles.mainnet.rpc]
    8453 = "https://my-base-node.example"

    [profiles.staging]
    extends = "mainnet"          # optional: start from a built-in profile's defaults
    service = { url = "https://staging.example" }

Secrets never live here: keys and API keys are in the keyring (`crossdeck.wallet.keystore`)
or, for the demo, in the world file the local world wrote.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.base.json_depth import MAX_NESTING, nests_too_deep
from crossdeck.base.secret import Secret
from crossdeck.base.settings_schema import (
    HttpUrl,
    SettingsError,
    field_types,
    json_ready,
    parse,
    setting,
)
from crossdeck.track.webhook_defaults import DEFAULT_WEBHOOK_PATH

log = logging.getLogger(__name__)

T = TypeVar("T")

APP_NAME = "crossdeck"
ENV_CONFIG = "CROSSDECK_CONFIG"
ENV_PROFILE = "CROSSDECK_PROFILE"
ENV_WORLD = "CROSSDECK_WORLD"

MAINNET = "mainnet"
DEMO = "demo"

# Public endpoints of the live deployment (service SDK constants, venue SDK constants, and the
# chains' public RPCs). Override per profile in the file or with env vars.
_BUILTIN_PROFILES: dict[str, dict[str, Any]] = {
    MAINNET: {
        "service": {"url": "https://api.relay.link", "name": "Relay"},
        "venue": {"url": "https://api.hyperliquid.xyz", "name": "Hyperliquid"},
        "rpc": {
            "8453": "https://mainnet.base.org",
            "999": "https://rpc.hyperliquid.xyz/evm",
            "792703809": "https://api.mainnet-beta.solana.com",  # Solana's public RPC
        },
        "signing_chain_id": 1,
        "track": {"websocket_url": "wss://ws.relay.link"},  # the status websocket
    },
    DEMO: {},  # filled from the world file
}


def _default_data_dir() -> Path:
    import platformdirs  # (with tempfile and shutil, ~7 ms: only where the settings name none)

    return platformdirs.user_data_path(APP_NAME)


class ConfigError(CrossdeckError):
    """The config file, a world file or the settings they produce are unusable."""

    exit_code = ExitCode.INVALID_INPUT


# The attribute docstrings below document each setting for readers of this file (and a test
# checks every field has one); they are not read at run time. Each section is a frozen,
# keyword-only dataclass that `crossdeck.base.settings_schema.parse` builds and checks (no pydantic:
# the settings are read before the app's first frame); change one with `dataclasses.replace`.

# how often a transient failure is retried, by the service's and the venue's client alike
DEFAULT_MAX_RETRIES = 4


QuoteApiChoice = Literal["auto", "v3", "v2"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ServiceSettings:
    """The cross-chain transfer service."""

    url: HttpUrl
    """Base URL of the service API."""
    name: str | None = setting(None, min_length=1, pattern=r"^[A-Za-z0-9]+$")
    """The service's name as its signatures carry it: a venue withdrawal's NonceMapping domain
    is this name followed by `NonceMapping` (`Relay` for the public service); unset, such a
    withdrawal is refused before signing."""
    timeout_seconds: float = 20.0
    """Timeout of one HTTP request to the service."""
    max_retries: int = setting(DEFAULT_MAX_RETRIES, ge=0)
    """Retries of transient failures (429, 503, timeouts) before giving up."""
    quote_api: QuoteApiChoice = "auto"
    """Which quote API to ask: `v3` (POST /quote/v3, needs an API key or an access token), `v2`
    (POST /quote/v2, deprecated, retired 2027-02-23) or `auto` (v3 when a credential is
    configured, else v2)."""
    access_token_file: Path | None = None
    """A file whose first line is an access token (`Authorization: Bearer`), sent instead of
    the API key; also `--access-token-file` or the token itself in CROSSDECK_ACCESS_TOKEN."""


@dataclass(frozen=True, kw_only=True, slots=True)
class VenueSettings:
    """The perps venue's own API (`/info`, `/exchange`)."""

    url: HttpUrl
    """Base URL of the venue API."""
    name: str | None = setting(None, min_length=1, pattern=r"^[A-Za-z0-9]+$")
    """The venue's name as its signatures carry it: a transfer between the venue's books is
    typed data in the `<name>SignTransaction` domain of primary type `<name>Transaction:<Action>`
    (`Hyperliquid` for the public venue); unset, such a transfer is refused before signing."""
    timeout_seconds: float = 20.0
    """Timeout of one HTTP request to the venue."""
    max_retries: int = setting(DEFAULT_MAX_RETRIES, ge=0)
    """Retries of transient failures (429, 5xx, timeouts) before giving up; a transfer
    (`/exchange`) is resent only when the venue certainly did not act on it."""


@dataclass(frozen=True, kw_only=True, slots=True)
class WebhookSettings:
    """The local receiver for the service's status webhooks."""

    host: str = "127.0.0.1"
    """Interface the receiver listens on."""
    port: int = setting(0, ge=0, le=65535)
    """Port to listen on; 0 picks a free one."""
    path: str = DEFAULT_WEBHOOK_PATH
    """URL path the service posts events to (the one default of every crossdeck receiver)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TrackingSettings:
    """Following a request until it reaches a final status."""

    poll_interval_seconds: float = setting(2.0, gt=0)
    """First wait between status polls; it grows while nothing changes."""
    poll_interval_cap_seconds: float = setting(10.0, gt=0)
    """The longest wait between two polls."""
    timeout_seconds: float = setting(600.0, gt=0)
    """Give up tracking (not the request) after this long without a final status."""
    failure_settle_seconds: float = setting(30.0, ge=0)
    """`failure` can still turn into `refund`: treat it as final only after this long."""
    websocket: bool = True
    """Follow requests over the service's status websocket too (changes pushed the moment
    they happen; polls only reconcile, and stand in while the socket is down)."""
    websocket_url: str | None = setting(None, pattern=r"^wss?://\S+$")
    """The status websocket's URL (`wss://...`); the API key is added as `?apiKey=`. Unset:
    polling (and webhooks) only."""
    history_refresh_seconds: float = setting(10.0, ge=0)
    """How often the History screen reads its first page again, for new requests and changed
    statuses (newest-first listings; 0: never)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class GuardSettings:
    """The checks a quote must pass before anything is signed."""

    fee_cap_multiple: float = setting(3.0, ge=1)
    """Refuse a transaction whose max fee per gas is above this multiple of the chain's current
    base fee plus tip (a quote's fee fields are the service's word; the chain's are not)."""
    gas_limit_multiple: float = setting(2.0, ge=1)
    """Refuse a transaction whose gas limit is above this multiple of the node's
    `eth_estimateGas` for it (the gas limit is the service's word too)."""
    bitcoin_fee_multiple: float = setting(3.0, ge=1)
    """Refuse a Bitcoin PSBT whose fee rate (sat/vB) is above this multiple of the node's
    fastest estimate (`/fee-estimates`, one block): the PSBT's fee is the service's word."""


SignerKind = Literal["keyring", "keystore", "browser", "read-only"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SignerSettings:
    """Who signs: the profile's keyring key (or, under --world, the world's demo key), a Foundry
    keystore, the browser wallet, or nobody (a read-only address). The global options
    `--account`, `--keystore`, `--password-file`, `--browser` and `--from` set this section for
    one run, with the meanings they have in Foundry's cast. No secret is kept here: a password
    file is named, never read into the settings."""

    kind: SignerKind = "keyring"
    """keyring (the default), keystore, browser or read-only."""
    account: str | None = None
    """With kind keystore: the keystore `~/.foundry/keystores/NAME` (`--account NAME`)."""
    keystore: Path | None = None
    """With kind keystore: the V3 keystore file anywhere (`--keystore PATH`)."""
    password_file: Path | None = None
    """With kind keystore: a file whose first line is the keystore's password; without one the
    password is asked at a hidden prompt."""
    address: str | None = None
    """With kind read-only: the address to quote and watch for (`--from ADDRESS`)."""
    browser_open: bool = True
    """With kind browser: open the signing page in the system browser (else only print it)."""
    browser_port: int = setting(0, ge=0, le=65535)
    """With kind browser: the loopback port of the signing page (0: a free one)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class WorldInfo:
    """What a demo world file says beyond URLs: its wallet and demo secrets."""

    file: Path
    """The world file these values came from."""
    wallet_address: str
    """Address of the world's funded demo wallet."""
    wallet_key: Secret
    """The demo wallet's private key (a publicly known test key)."""
    api_key: Secret | None = None
    """The demo service's API key, if it wants one."""
    solver: str | None = None
    """The world's solver address."""
    solana_address: str | None = None
    """Address of the world's funded demo Solana wallet."""
    solana_key: Secret | None = None
    """Its keypair (base58 of 64 bytes; a demo key)."""
    bitcoin_address: str | None = None
    """Address (P2WPKH, bc1q…) of the world's funded demo Bitcoin wallet."""
    bitcoin_key: Secret | None = None
    """Its private key as WIF (a demo key)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Settings:
    """All settings of one profile."""

    profile: str
    """The profile these settings belong to; it also namespaces the keyring entries."""
    service: ServiceSettings
    """The cross-chain transfer service."""
    venue: VenueSettings
    """The perps venue."""
    rpc: dict[int, HttpUrl] = dataclasses.field(default_factory=dict)
    """JSON-RPC URL per EVM chain id."""
    signing_chain_id: int = 1
    """Chain id put in the authorize signature's domain (and its body's signatureChainId)."""
    data_dir: Path = dataclasses.field(default_factory=_default_data_dir)
    """Where the journal and history live."""
    theme: str = "crossdeck-dark"
    """Name of the app theme."""
    keymap: dict[str, str] = dataclasses.field(default_factory=dict)
    """Binding id -> keys, to rebind the app's shortcuts."""
    webhook: WebhookSettings = dataclasses.field(default_factory=WebhookSettings)
    """The local webhook receiver."""
    tracking: TrackingSettings = dataclasses.field(default_factory=TrackingSettings)
    """Status tracking."""
    guards: GuardSettings = dataclasses.field(default_factory=GuardSettings)
    """The pre-sign checks."""
    signer: SignerSettings = dataclasses.field(default_factory=SignerSettings)
    """Who signs (see `SignerSettings`)."""
    world: WorldInfo | None = None
    """Set when the settings come from a demo world file."""


ENV_PREFIX = "CROSSDECK_"
ENV_NESTING = "__"
# read by `load_settings` itself (paths and names), never as values of a setting
_ENV_NOT_SETTINGS = ("profile", "world")


def _env_layer(environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings `CROSSDECK_<FIELD>` variables give: a section or table as a JSON object
    (`CROSSDECK_SERVICE='{"url": ...}'`) or one key at a time (`CROSSDECK_SERVICE__URL`,
    `CROSSDECK_RPC__8453`), names in any case; empty values and names that are no setting
    (`CROSSDECK_CONFIG`, `CROSSDECK_ANVIL`) are left alone."""
    fields = field_types(Settings)
    layer: dict[str, Any] = {}
    nested: list[tuple[str, str, str]] = []
    for name, value in environ.items():
        if not value or not name.upper().startswith(ENV_PREFIX):
            continue
        field, _, key = name[len(ENV_PREFIX) :].lower().partition(ENV_NESTING)
        if field == TRACK_SECTION:  # CROSSDECK_TRACK__* and CROSSDECK_TRACKING__* alike
            field = _TRACK_OLD_NAME
        if field not in fields or field in _ENV_NOT_SETTINGS:
            continue
        if key:
            nested.append((field, key, value))
        elif _is_table(fields[field]):
            try:
                layer[field] = json.loads(value)
            except ValueError as exc:
                raise ConfigError(
                    f"{name} is not a JSON object: {exc}",
                    hint=f"set one key at a time instead, e.g. {name}{ENV_NESTING}<KEY>=...",
                ) from None
        else:
            layer[field] = value
    for field, key, value in sorted(nested):  # one key at a time goes over a JSON object
        table = layer.get(field)
        if not isinstance(table, dict):
            table = layer[field] = {}
        table[key] = value
    return layer


def _is_table(annotation: object) -> bool:
    """A section (a dataclass) or a table (a dict), as opposed to one value."""
    if getattr(annotation, "__origin__", None) is dict:  # dict[int, str] and the like
        return True
    if not isinstance(annotation, type):
        return False
    return dataclasses.is_dataclass(annotation) or issubclass(annotation, dict)


def config_file_path() -> Path:
    """The config file in use: `CROSSDECK_CONFIG`, else the user config dir's config.toml."""
    configured = os.environ.get(ENV_CONFIG)
    if configured:
        return Path(configured).expanduser()
    import platformdirs

    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def load_json(text: str) -> Any:
    """`json.loads` for a file a user gives, refusing (`ValueError`) a document nested deeper
    than a file of ours ever is, before it is parsed: the C decoder recurses once per level,
    and with eth-account imported (recursion limit 100,000) a deep one overflows the C stack."""
    if nests_too_deep(text):
        raise ValueError(f"the JSON nests deeper than {MAX_NESTING} levels")
    return json.loads(text)


_MAX_CONFIG_NESTING = 64
"""Deeper than any crossdeck config (a profile table holds one level of sections)."""


def _nesting(value: object) -> int:
    """How deep tables and arrays nest in a parsed TOML document (iterative: no recursion)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: list[object] = list(node.values())
        elif isinstance(node, list):
            children = list(node)
        else:
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _read_config_file(path: Path) -> dict[str, Any]:
    explicit = bool(os.environ.get(ENV_CONFIG))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"config file {path} is not UTF-8 text (byte {exc.start} cannot be decoded)",
            hint="a config file is TOML text; check that the path names it",
        ) from None
    except FileNotFoundError:
        if explicit:
            raise ConfigError(
                f"config file {path} does not exist", hint=f"{ENV_CONFIG} points at it"
            ) from None
        return {}
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses per level of nested arrays and inline tables
        raise ConfigError(f"config file {path} nests arrays or tables too deeply") from None
    # Where eth-account is imported first (recursion limit 100,000) tomllib parses a 20,000-deep
    # array without a RecursionError; refuse it the same way, whichever import came first.
    if _nesting(data) > _MAX_CONFIG_NESTING:
        raise ConfigError(f"config file {path} nests arrays or tables too deeply")
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict) or not all(isinstance(v, dict) for v in profiles.values()):
        raise ConfigError(f"config file {path}: `profiles` must hold [profiles.<name>] tables")
    tables = [("top level", data), *((f"[profiles.{n}]", t) for n, t in profiles.items())]
    for where, table in tables:
        _track_alias(table, path, where)
        if "world" in table:
            raise ConfigError(
                f"config file {path}: `world` is not allowed at {where}",
                hint="pass the world file with --world or CROSSDECK_WORLD",
            )
    if "profile" in data and not isinstance(data["profile"], str):
        raise ConfigError(f"config file {path}: `profile` must be a profile name (a string)")
    return data


TRACK_SECTION = "track"
"""The status-tracking section's name in a config file and the environment (issue 37); the
settings' field stays `Settings.tracking`."""
_TRACK_OLD_NAME = "tracking"


def _track_alias(table: dict[str, Any], path: Path, where: str) -> None:
    """`[tracking]`, the section's earlier name, is read as `[track]`, with a note; both in
    one table is refused, since neither could be said to win."""
    if _TRACK_OLD_NAME not in table:
        return
    if TRACK_SECTION in table:
        raise ConfigError(
            f"config file {path}: both [track] and [tracking] at {where}",
            hint="[tracking] is the old name of [track]: keep one, [track]",
        )
    table[TRACK_SECTION] = table.pop(_TRACK_OLD_NAME)
    log.warning("config file %s: [tracking] at %s is read as [track], its name now", path, where)


def _as_settings_fields(layers: dict[str, Any]) -> dict[str, Any]:
    """The merged layers keyed by the settings' field names (`track` -> `tracking`); what
    the environment names `tracking` (CROSSDECK_TRACKING__*) is over what `track` says."""
    track = layers.pop(TRACK_SECTION, None)
    if isinstance(track, dict):
        old = layers.get(_TRACK_OLD_NAME)
        layers[_TRACK_OLD_NAME] = _deep_merge(track, old) if isinstance(old, dict) else track
    elif track is not None:
        layers.setdefault(_TRACK_OLD_NAME, track)  # not a table: parse says so by its name
    return layers


def read_world_file(path: Path) -> dict[str, Any]:
    """The settings layer a world file provides (URLs, RPCs and `world`)."""
    try:
        raw = load_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"world file {path} does not exist",
            hint="start the demo world with `crossdeck sim serve --world-file PATH`",
        ) from None
    except OSError as exc:
        raise ConfigError(f"world file {path} cannot be read: {exc.strerror}") from None
    except ValueError as exc:  # not UTF-8, not JSON, or nested too deeply
        raise ConfigError(f"world file {path} is not valid JSON: {exc}") from None
    try:  # keys beyond these are the world's own business (its chains, its other accounts)
        parsed = parse(_WorldFile, raw, extra="ignore")
    except SettingsError as exc:
        raise ConfigError(f"world file {path} is malformed: {exc.summary()}") from None
    world = WorldInfo(
        file=path,
        wallet_address=parsed.wallet.address,
        wallet_key=parsed.wallet.private_key,
        api_key=parsed.api_key,
        solver=parsed.solver,
        solana_address=parsed.wallet.solana_address,
        solana_key=parsed.wallet.solana_private_key,
        bitcoin_address=parsed.wallet.bitcoin_address,
        bitcoin_key=parsed.wallet.bitcoin_private_key,
    )
    return {
        "service": {"url": parsed.service_url, "name": parsed.service_name},
        "venue": {"url": parsed.venue_url, "name": parsed.venue_name},
        "rpc": dict(parsed.rpc),
        **({"track": {"websocket_url": parsed.ws_url}} if parsed.ws_url else {}),
        "world": world,
    }


@dataclass(frozen=True, kw_only=True, slots=True)
class _WorldWallet:
    """The demo world's wallet, as its world file names it."""

    address: str
    private_key: Secret
    solana_address: str | None = None
    solana_private_key: Secret | None = None
    bitcoin_address: str | None = None
    bitcoin_private_key: Secret | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class _WorldFile:
    """What a demo world's file says: its URLs, names, chains and wallet."""

    service_url: str
    service_name: str | None = None
    venue_url: str
    venue_name: str | None = None
    ws_url: str | None = None
    rpc: dict[str, str]
    wallet: _WorldWallet
    api_key: Secret | None = None
    solver: str | None = None


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def available_profiles(path: Path | None = None) -> list[str]:
    """Built-in profiles and those the config file defines."""
    data = _read_config_file(path or config_file_path())
    return sorted(set(_BUILTIN_PROFILES) | set(data.get("profiles", {})))


def load_settings(
    profile: str | None = None,
    world: Path | str | None = None,
    signer: Mapping[str, Any] | None = None,
) -> Settings:
    """Settings of `profile` (else CROSSDECK_PROFILE, the file's `profile`, `demo` when a
    world is given, `mainnet`), layered as the module docstring says; `signer`: the signer the
    global options chose, over every layer."""
    path = config_file_path()
    data = _read_config_file(path)
    if world is None and os.environ.get(ENV_WORLD):
        world = Path(os.environ[ENV_WORLD])
    world = Path(world).expanduser() if world is not None else None
    name = (
        profile
        or os.environ.get(ENV_PROFILE)
        or data.get("profile")
        or (DEMO if world is not None else MAINNET)
    )
    file_profiles: dict[str, dict[str, Any]] = data.get("profiles", {})
    if name not in _BUILTIN_PROFILES and name not in file_profiles:
        known = ", ".join(sorted(set(_BUILTIN_PROFILES) | set(file_profiles)))
        raise ConfigError(
            f"unknown profile {name!r}", hint=f"known: {known}; define others in {path}"
        )
    if world is not None and name == MAINNET:
        raise ConfigError(
            "a world file describes the local demo world and cannot be used with profile mainnet",
            hint="drop --world/CROSSDECK_WORLD or pick the demo profile",
        )

    profile_table = dict(file_profiles.get(name, {}))
    base_name = profile_table.pop("extends", name if name in _BUILTIN_PROFILES else None)
    if base_name is not None and base_name not in _BUILTIN_PROFILES:
        raise ConfigError(
            f"config file {path}: profile {name!r} extends {base_name!r}",
            hint=f"extends names a built-in profile: {', '.join(sorted(_BUILTIN_PROFILES))}",
        )
    shared = {k: v for k, v in data.items() if k not in ("profile", "profiles")}
    file_layer = _deep_merge(shared, profile_table)
    default_layer = dict(_BUILTIN_PROFILES[base_name]) if base_name else {}
    if world is not None:
        default_layer = _deep_merge(default_layer, read_world_file(world))
    elif base_name == DEMO and "service" not in file_layer:
        raise ConfigError(
            f"profile {name!r} needs a world file for its service, venue and RPC URLs",
            hint="run `crossdeck demo`, or `crossdeck sim serve --world-file PATH` and pass "
            "--world PATH (or CROSSDECK_WORLD)",
        )

    layers = _deep_merge(_deep_merge(default_layer, file_layer), _env_layer(os.environ))
    if signer:  # the command line's choice replaces the whole section, not field by field
        layers["signer"] = dict(signer)
    try:
        return parse(Settings, {**_as_settings_fields(layers), "profile": name})
    except SettingsError as exc:
        raise ConfigError(
            f"invalid settings for profile {name!r}: {exc.summary()}",
            hint=f"check {path} and the CROSSDECK_* environment variables",
        ) from None


def parse_section(cls: type[T], data: Mapping[str, Any], *, where: str) -> T:
    """One section from raw values (e.g. the app's choice of signer), checked as the settings
    are; a ConfigError names each problem by its path under `where` (`signer.kind`)."""
    try:
        return parse(cls, data, path=where)
    except SettingsError as exc:
        raise ConfigError(f"invalid {where} settings: {exc.summary()}") from None


def redacted_dump(settings: Settings) -> dict[str, Any]:
    """Settings as JSON-ready data with every secret replaced by `<set>` or `<unset>`."""
    dumped: dict[str, Any] = json_ready(dataclasses.replace(settings, world=None))
    # an RPC URL's user info, path or query may hold the provider's API key
    dumped["rpc"] = {chain: _url_redacted(url) for chain, url in dumped.get("rpc", {}).items()}
    # shown under the name a config file gives it
    dumped = {TRACK_SECTION if k == _TRACK_OLD_NAME else k: v for k, v in dumped.items()}
    if settings.world is not None:
        world = settings.world
        dumped["world"] = {
            "file": str(world.file),
            "wallet_address": world.wallet_address,
            "wallet_key": _presence(world.wallet_key),
            "api_key": _presence(world.api_key),
            "solver": world.solver,
        }
    else:
        dumped["world"] = None
    return dumped


def _url_redacted(url: str) -> str:
    """The URL as it is when it is only scheme, host and port; else those and `/<redacted>`."""
    from crossdeck.models.urls import url_where

    where = url_where(url)
    return url if url.rstrip("/") == where else f"{where}/<redacted>"


def _presence(secret: Secret | None) -> str:
    return "<set>" if secret is not None and secret.get_secret_value() else "<unset>"
