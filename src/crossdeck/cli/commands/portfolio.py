"""`crossdeck balances`: what an address holds on every chain of /chains and on the venue."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

import click

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli.option_types import ANY_ADDRESS, CHAIN_ID
from crossdeck.cli.support import handles_errors, print_json, service_client, wallet_address

if TYPE_CHECKING:
    from crossdeck.cli import CliContext
    from crossdeck.config import Settings
    from crossdeck.portfolio import Portfolio


async def read(settings: Settings, owners: dict[str, str], only: tuple[int, ...]) -> Portfolio:
    from crossdeck import compose
    from crossdeck.portfolio import read_portfolio

    async with service_client(settings) as service, compose.venue_client(settings) as venue:
        chains = await service.chains()
        return await read_portfolio(
            chains,
            owners,
            service=service,
            readers=compose.portfolio_readers(settings, venue),
            only=only,
        )


@click.command("balances")
@click.argument("address", required=False, type=ANY_ADDRESS)
@click.option(
    "--chain",
    "chains",
    multiple=True,
    type=CHAIN_ID,
    help="Read only this chain (repeatable; 1337 is the venue). Default: every chain.",
)
@click.option("--json", "json_", is_flag=True, help="Print one JSON document.")
@click.pass_obj
@handles_errors
def balances_command(
    obj: CliContext, address: str | None, chains: tuple[int, ...], json_: bool
) -> None:
    """What ADDRESS (default: the profile's wallet, EVM and Solana; any EVM or Solana address,
    read-only) holds on every chain the service lists that it can hold on, the venue (chain
    1337: perps, spot, HIP-3 DEXs) included for an EVM address: each
    currency with a balance, in units with the exact integer, its USD value at the service's
    price, a total per asset and a grand total. Each chain is read in one Multicall3 call, all
    at once; a chain that does not answer is shown as unreachable with its URL."""
    from crossdeck import compose
    from crossdeck.config import load_settings
    from crossdeck.portfolio.text import portfolio_lines

    settings = load_settings(obj.profile, obj.world, obj.signer)
    owners = compose.portfolio_owners(settings, address)
    if not owners:
        wallet_address(settings, "address")  # raises: says what to pass
    portfolio = asyncio.run(read(settings, owners, chains))
    if portfolio.chains and not any(c.reachable for c in portfolio.chains):
        problems = "; ".join(f"{c.chain_id} at {c.url or '-'}: {c.error}" for c in portfolio.chains)
        raise _NothingRead(f"no chain could be read ({problems})")
    if json_ or obj.json:
        print_json(portfolio.to_json())
    else:
        for line in portfolio_lines(portfolio):
            click.echo(line)
    for chain in portfolio.unreachable:  # on stderr too, so a script's log says it
        click.echo(
            f"warning: chain {chain.chain_id} ({chain.name}) unreachable at "
            f"{chain.url or '(no URL)'}: {chain.error}",
            err=True,
        )
    sys.stdout.flush()


class _NothingRead(CrossdeckError):
    exit_code = ExitCode.NETWORK


commands = [balances_command]
