"""`crossdeck sim serve` and `crossdeck demo`: the local demo world, served or shown.

`sim serve` starts the world (two EVM chains, the venue, the service, the solver, webhooks) on
free loopback ports and prints exactly one JSON line on stdout:
`{"service_url", "venue_url", "rpc": {"8453", "999"}, "wallet": {"address", "private_key"},
"api_key", "solver"}`; the wallet is a publicly known test key holding demo funds only. Logs go
to stderr, with one "world ready: ... ctrl+c to stop" line for the person at the terminal. It
serves until SIGINT or SIGTERM, then shuts everything down (anvil included) and exits 0.
`--world-file PATH` also writes that JSON to PATH (removed again at shutdown), for
`crossdeck --world PATH ...` or `CROSSDECK_WORLD=PATH`.

`demo` starts the same world in this process and opens the app on it.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from crossdeck.cli.option_types import Number
from crossdeck.cli.support import handles_errors

if TYPE_CHECKING:
    from crossdeck.cli import CliContext
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
            "--state-dir",
            type=click.Path(file_okay=False, path_type=Path),
            help="Keep the service's and the venue's SQLite state here (default: a temporary "
            "directory); a restart on the same directory keeps the request history.",
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
    world = _make_world(chain_backend, state_dir, speed, brand, host, endpoints, headers)
    try:
        info = _start(world)
        if world_file is not None:
            _write_world_file(world_file, info)
        # stderr first: by the time a script has read the line, the person has read this
        click.echo(_ready_line(info, world_file), err=True)
        click.echo(json.dumps(info, separators=(",", ":")))
        sys.stdout.flush()
        while not stop.wait(0.5):
            pass
        click.echo("stopping the demo world", err=True)
    finally:
        world.stop()
        if world_file is not None:
            world_file.unlink(missing_ok=True)


@click.command()
@_world_options
@click.pass_obj
@handles_errors
def demo(
    obj: CliContext,
    chain_backend: str,
    state_dir: Path | None,
    speed: float,
    brand: str,
) -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    world = _make_world(chain_backend, state_dir, speed, brand, "127.0.0.1", {}, {})
    with tempfile.TemporaryDirectory(prefix="crossdeck-demo-") as tmp:
        try:
            info = _start(world)
            path = Path(tmp) / "world.json"
            _write_world_file(path, info)
            from dataclasses import replace

            from crossdeck.cli.app_launch import launch_app

            launch_app(replace(obj, world=path))
        finally:
            world.stop()


commands = [sim, demo]


# ---- helpers ---------------------------------------------------------------------------


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
