"""Typed data crossdeck signs, and every field of each kind it knows.

Only three kinds are ever signed: the service's NonceMapping (ties a venue transfer to the
request), the venue's SendAsset (built by crossdeck from the quote's action), and the EIP-3009
transfer/receive authorisations of the permit flow. Anything else (an EIP-2612 Permit, a Permit2
permit, another venue action, an unknown primary type) is refused by name: a signature over
typed data can move funds without any further prompt.
"""

from __future__ import annotations

from crossdeck.base.errors import InputError
from crossdeck.execute.guards.base import (
    NONCE_MAPPING,
    PERMIT2_TYPES,
    PERMIT_TYPES,
    GuardResult,
    PaymentChain,
    _fail,
    _int,
    _ok,
)
from crossdeck.models import VENUE_CHAIN_ID, ChainsResponse, SignPayload, VenueDepositData
from crossdeck.models.text import short
from crossdeck.wallet.typed_data import full_typed_data, typed_data_digest

SIGNED_KINDS = (NONCE_MAPPING, *sorted(PERMIT_TYPES))
# the venue network crossdeck signs for (the venue's '<venue>Chain' field)
VENUE_NETWORK = "Mainnet"


def typed_kind_guard(sign: SignPayload, where: str) -> GuardResult:
    primary = sign.primary_type
    domain = sign.domain or {}
    if primary in SIGNED_KINDS:
        problem = _unsignable(sign)
        if problem is not None:
            return _fail("typed-data", f"refusing to sign the {primary}: {problem}", where)
        return _ok(
            "typed-data", f"a {primary} signature, a kind crossdeck checks field by field", where
        )
    if primary in PERMIT2_TYPES:
        what = f"a Permit2 {primary}"
    elif primary == "Permit":
        what = "an EIP-2612 Permit (a token allowance granted by signature)"
    else:
        what = f"typed data of kind {primary!r}"
    return _fail(
        "typed-data",
        f"refusing to sign {what} (domain {domain.get('name')!r}): crossdeck signs only "
        f"{', '.join(SIGNED_KINDS)}; such a signature could move funds without another prompt",
        where,
    )


def _unsignable(sign: SignPayload) -> str | None:
    """Why the typed data cannot be hashed as EIP-712 reads it (a field missing, a value of
    the wrong form; the wallet refuses those rather than coerce them), or None. Asked here so
    the refusal comes before the user is asked to sign, not after."""
    try:
        typed_data_digest(full_typed_data(sign.typed_data()))
    except InputError as exc:
        return str(exc)
    return None


def nonce_mapping_fields(
    sign: SignPayload,
    body: dict[str, object],
    paid: PaymentChain,
    chains: ChainsResponse | None,
    where: str,
) -> GuardResult:
    """The NonceMapping's domain and chain fields (its wallet, depositor, id and nonce are
    checked by `authorize-terms` and `venue-nonce`)."""
    domain = sign.domain or {}
    value = sign.value or {}
    problems = []
    name = domain.get("name")  # held to the service's name by `authorize-domain`
    if body.get("type") != "nonce-mapping":
        problems.append(f"the body's type is {body.get('type')!r}, not 'nonce-mapping'")
    # the chain by the protocol's name: as paymentDetails gives it, or as /chains names the
    # paid chain (older answers give paymentDetails.chainId as the id itself)
    chain = chains.by_id(paid.chain_id) if chains is not None and paid.chain_id else None
    names = {paid.name, chain.protocol_chain_name if chain is not None else None} - {None}
    if names and str(value.get("chainId")) not in names:
        problems.append(
            f"maps on chain {value.get('chainId')!r}, but the payment is on {paid.name!r}"
        )
    wallet_chain = _int(body.get("walletChainId"))
    if paid.chain_id is not None and wallet_chain != paid.chain_id:
        problems.append(
            f"the body's walletChainId is {body.get('walletChainId')}, not the paying chain "
            f"{paid.chain_id}"
        )
    if problems:
        return _fail("authorize-fields", "the NonceMapping " + "; ".join(problems), where)
    return _ok(
        "authorize-fields",
        f"NonceMapping domain {name!r}, on chain {value.get('chainId')!r} (wallet chain "
        f"{wallet_chain})",
        where,
    )


def _depository_guard(
    destination: str | None, chains: ChainsResponse | None, where: str
) -> GuardResult:
    """A venue withdrawal pays the venue's DEPOSITORY (`protocol.v2.depository` of the venue in
    /chains), the account the service settles from; never a solver: the public service's
    solver and its venue depository are different accounts, and a sendAsset is irrevocable."""
    name = "send-asset-depository"
    venue = chains.venue if chains is not None else None
    if chains is None:
        return _fail(name, "there is no /chains answer naming the venue's depository", where)
    named = venue.depository if venue is not None else None
    if not named:
        return _fail(
            name,
            f"/chains names no depository (protocol.v2.depository) for the venue, chain "
            f"{VENUE_CHAIN_ID}: nothing says where a withdrawal may go",
            where,
        )
    sent = (destination or "").lower()
    if sent == named.lower():
        return _ok(
            name,
            f"pays the venue depository {short(named)}, the one /chains names for chain "
            f"{VENUE_CHAIN_ID}",
            where,
        )
    solvers = {s.lower() for s in (venue.solver_addresses or [])} if venue is not None else set()
    why = (
        "; /chains lists it as a solver, and a withdrawal pays the depository, not the solver"
        if sent in solvers
        else ""
    )
    return _fail(
        name,
        f"sendAsset pays {destination}, which is not the venue depository {named} that "
        f"/chains names for chain {VENUE_CHAIN_ID}{why}",
        where,
    )


def venue_fields(
    data: VenueDepositData, chains: ChainsResponse | None, where: str
) -> list[GuardResult]:
    """The SendAsset fields beside token and amount: the venue depository it pays (as /chains
    names it), the network, the book it lands on, and the account it leaves."""
    action = data.action
    assert action is not None  # the kind guard passed
    results = [_depository_guard(action.destination, chains, where)]
    primary = data.eip712_primary_type or ""
    if not primary.endswith(":SendAsset"):
        results.append(
            _fail(
                "typed-data",
                f"refusing to sign venue action {primary!r}: crossdeck signs only the venue's "
                "SendAsset",
                where,
            )
        )
    problems = []
    venue_name = data.venue_name or ""
    wanted_field = venue_name[:1].lower() + venue_name[1:] + "Chain"
    if action.chain_field != wanted_field:
        problems.append(f"the network field is {action.chain_field!r}, not {wanted_field!r}")
    if action.chain_value != VENUE_NETWORK:
        problems.append(f"network {action.chain_value!r} is not {VENUE_NETWORK!r}")
    target = action.destination_dex  # both books are held to the order by `send-asset-dex`
    if action.from_sub_account != "":
        problems.append(
            f"fromSubAccount {action.from_sub_account!r}: the transfer must leave your own "
            "account ('')"
        )
    if problems:
        results.append(_fail("send-asset-fields", "sendAsset " + "; ".join(problems), where))
    else:
        results.append(
            _ok(
                "send-asset-fields",
                f"{VENUE_NETWORK}, from your own account, landing on the depository's "
                f"{target or 'perps'} book",
                where,
            )
        )
    return results
