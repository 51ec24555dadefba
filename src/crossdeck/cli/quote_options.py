"""The quote options of `crossdeck quote`, shared by every command that asks for a quote.

`@quote_options` adds the very same click options `crossdeck quote` has (taken from that
command, so the two can never drift apart), and `quote_fields` turns their values into
`QuoteRequest` fields exactly as `crossdeck quote` does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from crossdeck.errors import InputError

if TYPE_CHECKING:
    from crossdeck.config import Settings

F = TypeVar("F", bound=Callable[..., Any])

# options of `crossdeck quote` that are not quote fields
_NOT_QUOTE_OPTIONS = frozenset({"json_"})
_BOOL_FIELDS = (
    "topup_gas",
    "subsidize_fees",
    "use_deposit_address",
    "strict",
    "use_permit",
    "refund_on_origin",
)


def _quote_params() -> list[click.Parameter]:
    from crossdeck.cli.commands.service import quote_command

    return [copy.copy(p) for p in quote_command.params if p.name not in _NOT_QUOTE_OPTIONS]


def quote_options(func: F) -> F:
    """Decorate a click command with every quote option of `crossdeck quote`."""
    params = getattr(func, "__click_params__", [])
    # click builds a command's parameters from this list in reverse (decorators apply
    # bottom-up), so reversing keeps `crossdeck quote`'s order in --help
    params.extend(reversed(_quote_params()))
    # click's own decorators keep pending options in this attribute of the function, which
    # a plain callable's type does not declare
    func.__click_params__ = params  # type: ignore[attr-defined]
    return func


def quote_fields(
    settings: Settings, options: dict[str, Any], *, user: str | None = None
) -> tuple[dict[str, Any], str | None]:
    """(QuoteRequest fields, --amount-human text or None) from the quote options' values.

    `user` is the default depositor (the profile's wallet); an explicit --user wins.
    """
    from crossdeck.cli.commands.service import _parse_extra, _wallet_address
    from crossdeck.models import required_protocol_version

    amount, amount_human = options.get("amount"), options.get("amount_human")
    if (amount is None) == (amount_human is None):
        raise InputError("give exactly one of --amount and --amount-human")
    origin_chain = options["origin_chain"]
    fields: dict[str, Any] = {
        "user": options.get("user") or user or _wallet_address(settings, "--user"),
        "origin_chain_id": origin_chain,
        "destination_chain_id": options["destination_chain"],
        "origin_currency": options["origin_currency"],
        "destination_currency": options["destination_currency"],
        "trade_type": options["trade_type"],
        "amount": amount,
        "recipient": options.get("recipient"),
        "refund_to": options.get("refund_to"),
        "protocol_version": options.get("protocol_version")
        or required_protocol_version(origin_chain),
        "topup_gas_amount": options.get("topup_gas_amount"),
        "sponsored_fee_components": list(options.get("sponsor_components") or ()) or None,
        "max_subsidization_amount": options.get("max_subsidization"),
        "permit_expiry": options.get("permit_expiry"),
        "slippage_tolerance": options.get("slippage_bps"),
        "referrer": options.get("referrer"),
    }
    fields.update({name: options.get(name) for name in _BOOL_FIELDS})
    fields = {k: v for k, v in fields.items() if v is not None}
    extra = _parse_extra(tuple(options.get("extras") or ()))
    from pydantic.alias_generators import to_camel, to_snake

    given = set(fields) | {to_camel(k) for k in fields}
    clash = sorted(k for k in extra if k in given or to_snake(k) in given)
    if clash:
        raise InputError(f"--extra sets {clash} which an option already sets; use one of them")
    fields.update(extra)
    if amount_human is not None:
        fields.pop("amount", None)
    return fields, amount_human
