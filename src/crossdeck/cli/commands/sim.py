"""`crossdeck sim serve` and `crossdeck demo`: the local demo world, served or shown.

`sim serve` starts the world (two EVM chains, the venue, the service, the solver, webhooks) on
free loopback ports and prints exactly one JSON line on stdout:
`{"service_url", "venue_url", "rpc": {"8453", "999"}, "wallet": {"address", "private_key"},
"api_key", "solver", "venue_depository"}`; the wallet is a publicly known test key holding demo
funds only. Logs go to stderr, with one "world ready: ... ctrl+c to stop" line for the person at
the terminal. It serves until SIGINT or SIGTERM, then shuts everything down (anvil included) and
exits 0.
`--world-file PATH` also writes that JSON to PATH (removed again at shutdown), for
`crossdeck --world PATH ...` or `CROSSDECK_WORLD=PATH`.

`demo` starts the same world in this process and opens the app on it. It keeps the world in
`<data dir>/demo/world` (chains included) and the app's journal and tracked requests for it in
`<data dir>/demo/app`, so a restart goes on where the last one stopped; `--fresh` forgets both.
The world sends the demo key's status webhooks to the app's receiver (`--no-webhooks`: polling
only).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from crossdeck.cli.option_types import Number
from crossdeck.cli.support import handles_errors

if TYPE_CHECKING:
    from crossdeck.cli import CliContext
    from crossdeck.config import Settings
    from crossdeck.sim.world import World

BACKENDS = ("py-evm", "anvil")
BRANDS = ("neutral", "public")


def _world_options(func: Any) -> Any:
    options = [
        click.option(
            "--chain-backend",
            type=click.Choice(BACKENDS),
            default="py-evm",
            show_default=True,
            help="EVM engine of the two chains: py-evm in-process, or anvil (Foundry's node).",
        ),
        click.option(
            "--speed",
            type=Number(minimum=0),
            default=1.0,
            show_default=True,
            help="Divides the solver's delays between statuses: 1 paces a demo, 0 is instant.",
        ),
        click.option(
            "--brand",
            type=click.Choice(BRANDS),
            default="neutral",
            show_default=True,
            help="Names the world uses: the spec's neutral ones, or the public deployment's.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.group()
def sim() -> None:
    pass  # a group: its summary is in crossdeck.cli.COMMANDS


@sim.command("serve")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Interface the service and venue bind."
)
@_world_options
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the world here: the service's requests, the venue's balances and both chains "
    "(default: a temporary directory); a restart on the same directory keeps them all.",
)
@click.option(
    "--webhook",
    "webhooks",
    multiple=True,
    metavar="API_KEY=URL",
    help="Deliver status webhooks of API_KEY's requests to URL (one endpoint per key).",
)
@click.option(
    "--webhook-header",
    "webhook_headers",
    multiple=True,
    metavar="API_KEY=NAME:VALUE",
    help="Send this extra header with API_KEY's webhook deliveries (repeatable).",
)
@click.option(
    "--webhook-config",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="TOML file of [[webhook]] tables (api_key or api_key_env, url, headers).",
)
@click.option(
    "--world-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the world's JSON line to this file (removed at shutdown).",
)
@click.option(
    "--requests-v2/--no-requests-v2",
    default=True,
    show_default=True,
    help="Answer GET /requests/v2; off: it answers 410, retired, as the public one is since "
    "2026-11-24 (history then needs an API key for /requests/v3).",
)
@click.option(
    "--retire-quote-v2",
    is_flag=True,
    help="Answer POST /quote/v2 and /execute/permits with 410, retired, as the public ones "
    "will from 2027-02-23 (quotes then need an API key for /quote/v3).",
)
@click.option(
    "--router-transition",
    type=click.Choice(["on", "off"]),
    default="on",
    show_default=True,
    help="on: the older router answers beside router 3.2 and /chains names both (contracts.v3 "
    'and contracts["v3.2"]), as the public service since 2026-10-26; off: the transition is '
    "over, router 3.2 alone.",
)
@click.option(
    "--drop-sockets-every",
    type=click.FloatRange(min=0.1),
    metavar="SECONDS",
    help="Close every status websocket this often, as the public service's rolling deploys "
    "do (to try reconnection; POST /_sim/ws/drop on the ws_url's host does it once).",
)
@handles_errors
def serve(
    host: str,
    chain_backend: str,
    state_dir: Path | None,
    speed: float,
    brand: str,
    webhooks: tuple[str, ...],
    webhook_headers: tuple[str, ...],
    webhook_config: Path | None,
    world_file: Path | None,
    requests_v2: bool,
    retire_quote_v2: bool,
    router_transition: str,
    drop_sockets_every: float | None,
) -> None:
    """Run the demo world until SIGINT/SIGTERM; print its JSON line on stdout."""
    stop = threading.Event()
    # Handlers first: a signal during startup still shuts the world down cleanly.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s: %(message)s"
    )
    endpoints, headers = _webhooks(webhooks, webhook_headers, webhook_config)
    world = _make_world(
        chain_backend,
        state_dir,
        speed,
        brand,
        host,
        endpoints,
        headers,
        requests_v2=requests_v2,
        quote_v2_retired=retire_quote_v2,
        router_transition=router_transition == "on",
    )
    try:
        info = _start(world)
        if world_file is not None:
            _write_world_file(world_file, info)
        # stderr first: by the time a script has read the line, the person has read this
        click.echo(_ready_line(info, world_file), err=True)
        click.echo(json.dumps(info, separators=(",", ":")))
        sys.stdout.flush()
        wait = min(0.5, drop_sockets_every or 0.5)
        next_drop = time.monotonic() + (drop_sockets_every or 0.0)
        while not stop.wait(wait):
            if drop_sockets_every and time.monotonic() >= next_drop:
                dropped = world.drop_sockets()
                click.echo(f"dropped {dropped} status socket(s)", err=True)
                next_drop = time.monotonic() + drop_sockets_every
        click.echo("stopping the demo world", err=True)
    finally:
        world.stop()
        if world_file is not None:
            world_file.unlink(missing_ok=True)


@click.command()
@_world_options
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the demo keeps its world (requests, balances, chains) and the app's journal "
    "and Live status for it (default: `demo` in the data dir).",
)
@click.option(
    "--fresh",
    is_flag=True,
    help="Start a new world: forget the kept one, and the demo's journal and Live status.",
)
@click.option(
    "--webhooks/--no-webhooks",
    default=True,
    show_default=True,
    help="Have the world send status webhooks to the app's receiver (Live status marks them "
    "'webhook' and pauses polling for those requests); off: polling only.",
)
@click.pass_obj
@handles_errors
def demo(
    obj: CliContext,
    chain_backend: str,
    state_dir: Path | None,
    speed: float,
    brand: str,
    fresh: bool,
    webhooks: bool,
) -> None:
    """The world is kept across restarts (unless --fresh): earlier requests, their statuses
    and the balances they left are there again, and `crossdeck resume` goes on with them."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="crossdeck-demo-") as tmp:
        path = Path(tmp) / "world.json"
        settings = _settings_for(obj, path)
        home = DemoHome(state_dir or settings.data_dir / DEMO_DIR)
        with home.held():  # before --fresh: never delete a running demo's world
            if fresh:
                home.forget()
            _run_demo(obj, home, path, settings, chain_backend, speed, brand, webhooks)


def _run_demo(
    obj: CliContext,
    home: DemoHome,
    path: Path,
    settings: Settings,
    chain_backend: str,
    speed: float,
    brand: str,
    webhooks: bool,
) -> None:
    # the app keeps the demo's journal and tracked requests beside its world: they go
    # (and stay) together, and the demo's requests never mix with a real profile's
    for_app = {ENV_DATA_DIR: str(home.app)}
    endpoints: dict[str, str] = {}
    if webhooks:
        endpoints, for_app[ENV_WEBHOOK_PORT] = _demo_webhooks(settings)
    world = _make_world(chain_backend, home.world, speed, brand, "127.0.0.1", endpoints, {})
    try:
        info = _start(world)
        _write_world_file(path, info)
        from dataclasses import replace

        from crossdeck.cli.app_launch import launch_app

        with _environment(for_app):
            launch_app(replace(obj, world=path))
    finally:
        world.stop()


commands = [sim, demo]


# ---- helpers ---------------------------------------------------------------------------

DEMO_DIR = "demo"
ENV_DATA_DIR = "CROSSDECK_DATA_DIR"
ENV_WEBHOOK_PORT = "CROSSDECK_WEBHOOK__PORT"


class DemoHome:
    """The demo's directory: `world/` (the world's state) and `app/` (the app's data dir for
    the demo: journal, tracked requests, remembered theme)."""

    def __init__(self, root: Path) -> None:
        from crossdeck.sim.dir_lock import DirectoryLock

        self.root = root
        self.world = root / "world"
        self.app = root / "app"
        self._lock = DirectoryLock(root, "crossdeck demo")

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """One demo per home: a second gets a clear error (the pid of the first) and touches
        nothing, neither its world nor its app's journal."""
        from crossdeck.sim.dir_lock import DirectoryBusy

        try:
            self._lock.acquire()
        except DirectoryBusy as exc:
            raise click.ClickException(str(exc)) from None
        try:
            yield
        finally:
            self._lock.release()

    def forget(self) -> None:
        """--fresh: only the two directories the demo made; anything else in root stays."""
        for path in (self.world, self.app):
            shutil.rmtree(path, ignore_errors=True)


def _settings_for(obj: CliContext, world_file: Path) -> Settings:
    """The demo profile's settings, read before the world runs: its data dir and webhook
    receiver. The settings need a world file; one with the demo wallet and no live URL does."""
    from crossdeck.config import load_settings
    from crossdeck.sim.world import DEMO_WALLET_ADDRESS, DEMO_WALLET_KEY

    unused = "http://127.0.0.1:9"  # never asked: the world's own file replaces this one
    _write_world_file(
        world_file,
        {
            "service_url": unused,
            "venue_url": unused,
            "rpc": {},
            "wallet": {"address": DEMO_WALLET_ADDRESS, "private_key": DEMO_WALLET_KEY},
        },
    )
    return load_settings(obj.profile, world_file)


def _demo_webhooks(settings: Settings) -> tuple[dict[str, str], str]:
    """The world sends the demo key's status webhooks to the app's receiver: the configured
    port, or a free one chosen now and given to the app (it starts its receiver later).
    Returns the world's endpoints and the port for the app."""
    from crossdeck.sim.world import DEMO_API_KEY

    hook = settings.webhook
    port = hook.port or _free_port(hook.host)
    host = f"[{hook.host}]" if ":" in hook.host else hook.host
    return {DEMO_API_KEY: f"http://{host}:{port}{hook.path}"}, str(port)


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """The app reads its settings from the environment too: these hold while it runs."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _free_port(host: str) -> int:
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def _webhooks(
    flags: tuple[str, ...], header_flags: tuple[str, ...], config: Path | None
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    from crossdeck.sim.webhooks import (
        WebhookConfigError,
        load_webhook_config,
        parse_webhook_flags,
    )

    try:
        # the file first: a --webhook-header may add a header to a key whose endpoint is in it
        file_endpoints, file_headers = load_webhook_config(config) if config else ({}, {})
        endpoints, headers = parse_webhook_flags(flags, header_flags, configured=file_endpoints)
        both = set(endpoints) & set(file_endpoints)
        if both:
            raise WebhookConfigError(
                f"{len(both)} API key(s) have an endpoint both in --webhook and in "
                f"{config}; one endpoint per key"
            )
        endpoints.update(file_endpoints)
        for api_key, extra in file_headers.items():  # a flag's header wins over the file's
            flagged = headers.get(api_key, {})
            names = {name.lower() for name in flagged}
            kept = {name: value for name, value in extra.items() if name.lower() not in names}
            headers[api_key] = {**kept, **flagged}
    except WebhookConfigError as exc:
        raise click.UsageError(str(exc)) from None
    return endpoints, headers


def _make_world(
    backend: str,
    state_dir: Path | None,
    speed: float,
    brand: str,
    host: str,
    endpoints: dict[str, str],
    headers: dict[str, dict[str, str]],
    *,
    requests_v2: bool = True,
    quote_v2_retired: bool = False,
    router_transition: bool = True,
) -> World:
    from crossdeck.sim.world import World

    return World(
        backend=backend,
        state_dir=state_dir,
        speed=speed,
        webhooks=endpoints,
        webhook_headers=headers,
        brand=brand,
        host=host,
        requests_v2=requests_v2,
        quote_v2_retired=quote_v2_retired,
        router_transition=router_transition,
    )


def _start(world: World) -> dict[str, Any]:
    from crossdeck.sim.world import WorldError

    try:
        return world.start_blocking()
    except WorldError as exc:
        cause = exc.__cause__ or exc
        raise click.ClickException(f"the demo world did not start: {cause}") from None


def _ready_line(info: dict[str, Any], world_file: Path | None) -> str:
    """For the person at the terminal (stdout is the JSON line scripts read)."""
    line = f"world ready: service {info['service_url']}, venue {info['venue_url']}"
    if world_file is not None:
        line += f"; other terminals: crossdeck --world {world_file} <command>"
    return line + "; ctrl+c to stop"


def _write_world_file(path: Path, info: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written whole, then renamed: a reader never sees half a file.
    partial = path.with_name(path.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(info, fh, indent=2)
        fh.write("\n")
    partial.replace(path)
