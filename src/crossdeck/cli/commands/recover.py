"""`crossdeck recover REQUEST_ID [--yes] [--currency ADDR] [--target-chain ID] [--json]`.

The way back when a transfer went wrong: it reads the request (its status and, from the
request listing, its deposit address, `refundTo` and `recoveryAddress`), says what the service
offers for it, and does it once confirmed.

- An open deposit address that received another currency (or the right one on another
  chain, `--target-chain`), or a request stuck without a fill: the service's monitor watches
  only the quoted currency, and `POST /transactions/deposit-address/reindex` has it look at
  every currency it accepts there (or `--currency`) and handle what it finds (a fill, or a
  refund to `refundTo`).
- A strict deposit address is bound to its one order: the service does not recover another
  currency or chain sent there; its support can.
- A request without a deposit address paid the depository: nothing to reindex.
- success and refund: nothing to recover.

Exit codes: 0 done (or nothing to do), 3 bad input, 4 the service refused, 11 declined.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli.option_types import REQUEST_ID
from crossdeck.cli.support import handles_errors, print_json

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.cli import CliContext

_STUCK = frozenset({"waiting", "depositing", "pending", "failure"})
_ADDRESS_REASONS = frozenset(
    {"INCORRECT_DEPOSIT_CURRENCY", "DEPOSIT_CHAIN_MISMATCH", "DEPOSIT_ADDRESS_MISMATCH",
     "ORIGIN_CURRENCY_MISMATCH"}
)  # fmt: skip


@dataclass
class Assessment:
    request_id: str
    status: str
    origin_chain_id: int | None
    deposit_address: str | None = None
    address_type: str | None = None
    refund_to: str | None = None
    recovery_address: str | None = None
    fail_reason: str | None = None
    offer: str | None = None
    """`reindex` when the service offers to look at the deposit address again."""
    said: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "requestId": self.request_id,
            "status": self.status,
            "originChainId": self.origin_chain_id,
            "depositAddress": self.deposit_address,
            "depositAddressType": self.address_type,
            "refundTo": self.refund_to,
            "recoveryAddress": self.recovery_address,
            "failReason": self.fail_reason,
            "offer": self.offer,
            "said": self.said,
        }


def assess(a: Assessment) -> Assessment:
    """What the service offers for the request, in words (`a.said`), and `a.offer`."""
    from crossdeck.models.fail_reasons import reason_words

    say = a.said.append
    say(f"request {a.request_id}: {a.status}")
    if why := reason_words(a.fail_reason):
        say(f"why: {why}")
    refund_to = a.refund_to or "the sender (no refundTo was set)"
    say(f"refunds go to {refund_to}: the quote's refundTo (`--refund-to` when quoting)")
    if a.recovery_address:
        say(f"recoveryAddress {a.recovery_address}: where the service sends funds it recovers")
    if a.status in ("success", "refund"):
        say("nothing to recover: the request is final")
        return a
    if a.deposit_address is None:
        say(
            "the request has no deposit address: it was paid to the depository, so there is "
            "nothing to reindex; if its deposit was sent, the service finds it (or tell it "
            "with the deposit's transaction hash)"
        )
        return a
    if a.address_type == "strict":
        say(
            f"deposit address {a.deposit_address} is strict (bound to this one order): the "
            "service does not recover another currency or chain sent there; contact its "
            "support with the request id"
        )
        return a
    if a.status in _STUCK or a.fail_reason in _ADDRESS_REASONS:
        a.offer = "reindex"
        say(
            f"the service offers to look at deposit address {a.deposit_address} on chain "
            f"{a.origin_chain_id} again: its monitor watches only the quoted currency; a "
            "reindex checks every currency it accepts there and handles what it finds (a fill, "
            "or a refund to the refund address)"
        )
    return a


async def _read(client: ServiceClient, request_id: str) -> Assessment:
    from crossdeck.api.errors import ServiceError
    from crossdeck.models.requests_query import RequestsQuery

    status = await client.status_v3(request_id)
    a = Assessment(
        request_id,
        str(status.status or "unknown"),
        status.origin_chain_id,
        fail_reason=status.fail_reason,
    )
    query = RequestsQuery(id=request_id)
    try:
        rows = (await client.requests_v3(query)).requests
        if rows and rows[0].deposit_address is not None:
            found = rows[0].deposit_address
            a.deposit_address, a.address_type = found.address, found.type
            a.recovery_address = found.recovery_address
        if rows:
            a.refund_to = rows[0].refund_to
        return a
    except ServiceError:  # v3 needs a key; the v2 listing names the deposit address too
        pass
    old = (await client.requests(query)).requests
    if old and old[0].deposit_address is not None:
        a.deposit_address = old[0].deposit_address.address
        a.address_type = old[0].deposit_address.deposit_address_type
    return a


async def _recover(
    obj: CliContext,
    request_id: str,
    *,
    yes: bool,
    as_json: bool,
    currency: str | None,
    target_chain: int | None,
) -> ExitCode:
    from crossdeck.cli.support import service_client
    from crossdeck.config import load_settings

    settings = load_settings(obj.profile, obj.world, obj.signer)
    async with service_client(settings) as client:
        a = assess(await _read(client, request_id))
        if not as_json:
            for line in a.said:
                click.echo(line)
        if a.offer != "reindex":
            if as_json:
                print_json(a.to_json())
            return ExitCode.OK
        assert a.deposit_address is not None and a.origin_chain_id is not None
        where = f" (looking on chain {target_chain})" if target_chain else ""
        question = f"reindex deposit address {a.deposit_address}{where}?"
        if not yes and not click.confirm(question, default=False, err=True):
            click.echo("declined: nothing was asked of the service", err=True)
            return ExitCode.ABORTED
        answer = await client.reindex_deposit_address(
            a.origin_chain_id, a.deposit_address, target_chain_id=target_chain, currency=currency
        )
    found = answer.get("triggeredCurrencies") or []
    if as_json:
        print_json({**a.to_json(), "reindex": answer})
        return ExitCode.OK
    click.echo(f"service: {answer.get('message', '-')}")
    for item in found if isinstance(found, list) else []:
        if isinstance(item, dict):
            click.echo(
                f"  found {item.get('balance')} (smallest unit) of {item.get('symbol')} "
                f"{item.get('currency')}: the service handles it now"
            )
    click.echo(f"follow it with `crossdeck status --follow {request_id}`")
    return ExitCode.OK


@click.command("recover")
@click.argument("request_id", type=REQUEST_ID)
@click.option("--yes", is_flag=True, help="Do what the service offers without asking.")
@click.option("--currency", metavar="ADDR", help="Reindex only this currency's address.")
@click.option(
    "--target-chain",
    type=click.IntRange(min=1),
    help="Look on this chain (funds sent to the right address on another chain).",
)
@click.option("--json", "json_", is_flag=True, help="What was found and done, as JSON.")
@click.pass_obj
@handles_errors
def recover(
    obj: CliContext,
    request_id: str,
    yes: bool,
    currency: str | None,
    target_chain: int | None,
    json_: bool,
) -> None:
    """Say what the service offers for a request that went wrong, and do it once confirmed."""
    code = asyncio.run(
        _recover(
            obj,
            request_id,
            yes=yes,
            as_json=json_ or obj.json,
            currency=currency,
            target_chain=target_chain,
        )
    )
    sys.exit(int(code))


commands = [recover]
