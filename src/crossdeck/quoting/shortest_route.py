"""Asking again for the shortest route: a Solana deposit whose transaction is over the
1232-byte packet (the `solana-size` guard refused it before anything was signed) can be quoted
once more with `maxRouteLength` 1, which the service routes over fewer hops, so fewer
accounts and instructions. The rule is here, below the fronts, so that any front that runs a
quote asks the same second question."""

from __future__ import annotations

from collections.abc import Collection

from crossdeck.quoting.builder import QuoteInput

SIZE_GUARD = "solana-size"


def shortest_route(values: QuoteInput, refused: Collection[str]) -> QuoteInput | None:
    """The same input asking for the shortest route when the run of `values` was refused by
    the size guard (`refused`: the names of the guards that refused it) on a Solana origin
    and did not ask for it already; None when asking again would not help."""
    from crossdeck.models.addresses import Family, family_of

    if SIZE_GUARD not in refused or values.max_route_length == 1:
        return None
    if values.origin_chain_id is None or family_of(values.origin_chain_id) is not Family.SOLANA:
        return None
    return values.with_changes(max_route_length=1)
