"""A transfer on the venue the trader asked for (between their books, out of a sub account, or to
another address), held to the request before anything is signed, shown in words, signed, its
signature recovered, and posted to the venue's `/exchange`.

The guards rebuild what the request allows from the request alone, not from the builder, and
hold the typed data to it; any difference refuses (exit 7) before the wallet is asked:
- `venue-action-domain`: the domain is `<venue>SignTransaction`, version 1, the zero verifying
  contract, and the chain crossdeck signs with (`SIGNATURE_CHAIN_ID`); `signatureChainId` names
  the same chain;
- `venue-action-chain`: the `<venue>Chain` field says the venue's network (`Mainnet`);
- `venue-action-fields`: the primary type is the action the request calls for, its fields are
  exactly the venue's for that action in the venue's order and types, the message carries
  those and `type` and `signatureChainId`, nothing else;
- `venue-action-books`: the books are the ones asked (`sourceDex`/`destinationDex`, `toPerp`);
- `venue-action-amount`: the amount is the one asked, in USDC (the token is spot USDC's);
- `venue-action-destination`: the destination is this wallet (or the address named by
  `--to-address`), the sub account the one asked, or none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crossdeck.execute.events import SignRequest
from crossdeck.execute.guards.base import GuardRefused, GuardResult, _fail, _ok, failures
from crossdeck.venue.account import book_words, format_usdc
from crossdeck.venue.actions import (
    ACTION_FIELDS,
    SIGNATURE_CHAIN_ID,
    USDC_TOKEN,
    VENUE_NETWORK,
    TransferRequest,
    VenueAction,
    chain_field,
    plan,
)
from crossdeck.venue.fee import NO_FEE, SendFee, fee_parts, usdc_exact_text, usdc_text
from crossdeck.venue.signing import EIP712_DOMAIN_TYPE, signature_chain_id

_ZERO = "0x" + "0" * 40
WHERE = "venue transfer"


@dataclass(frozen=True)
class Expected:
    """What the request allows, field by field (the nonce is the builder's own)."""

    wire: str
    fields: dict[str, Any]


def expected(request: TransferRequest) -> Expected:
    action = plan(request, nonce=0)
    fields = {k: v for k, v in action.parameters.items() if k not in ("nonce", "time")}
    return Expected(action.wire, fields)


def _domain_guard(typed: dict[str, Any], venue: str) -> GuardResult:
    name = "venue-action-domain"
    domain = typed.get("domain") or {}
    want = {
        "name": f"{venue}SignTransaction",
        "version": "1",
        "chainId": SIGNATURE_CHAIN_ID,
        "verifyingContract": _ZERO,
    }
    problems = [
        f"{k} {domain.get(k)!r} is not {v!r}" for k, v in want.items() if domain.get(k) != v
    ]
    extra = sorted(set(domain) - set(want))
    if extra:
        problems.append(f"the domain carries other field(s) {extra}")
    types = typed.get("types") or {}
    if types.get("EIP712Domain") != EIP712_DOMAIN_TYPE:
        problems.append(
            "EIP712Domain is not the venue's (name, version, chainId, verifyingContract)"
        )
    message = typed.get("message") or {}
    if message.get("signatureChainId") != signature_chain_id(SIGNATURE_CHAIN_ID):
        problems.append(
            f"signatureChainId {message.get('signatureChainId')!r} is not "
            f"{signature_chain_id(SIGNATURE_CHAIN_ID)!r}, the domain's chain"
        )
    if problems:
        return _fail(name, "the venue's sign domain: " + "; ".join(problems), WHERE)
    return _ok(name, f"{want['name']} version 1 on chain {SIGNATURE_CHAIN_ID}", WHERE)


def _chain_guard(typed: dict[str, Any], venue: str) -> GuardResult:
    name = "venue-action-chain"
    field = chain_field(venue)
    value = (typed.get("message") or {}).get(field)
    if value != VENUE_NETWORK:
        return _fail(
            name, f"{field} {value!r} is not {VENUE_NETWORK!r}, the venue's network", WHERE
        )
    return _ok(name, f"{field} {VENUE_NETWORK!r}", WHERE)


def _fields_guard(typed: dict[str, Any], venue: str, want: Expected) -> GuardResult:
    name = "venue-action-fields"
    title, fields, _ = ACTION_FIELDS[want.wire]
    primary = f"{venue}Transaction:{title}"
    wanted = [(chain_field(venue), "string"), *fields]
    problems = []
    if typed.get("primaryType") != primary:
        problems.append(f"primary type {typed.get('primaryType')!r} is not {primary!r}")
    types = typed.get("types") or {}
    given = [
        (f.get("name"), f.get("type")) for f in types.get(primary) or [] if isinstance(f, dict)
    ]
    if given != wanted:
        problems.append(f"the signed fields {given} are not the venue's {wanted}")
    others = sorted(set(types) - {primary, "EIP712Domain"})
    if others:
        problems.append(f"other types {others}")
    message = typed.get("message") or {}
    allowed = {n for n, _ in wanted} | {"type", "signatureChainId"}
    extra, missing = sorted(set(message) - allowed), sorted(allowed - set(message))
    if extra:
        problems.append(f"the message carries field(s) {extra} that are not signed")
    if missing:
        problems.append(f"the message lacks {missing}")
    if message.get("type") != want.wire:
        problems.append(f"type {message.get('type')!r} is not {want.wire!r}")
    if problems:
        return _fail(name, "; ".join(problems), WHERE)
    return _ok(name, f"exactly the venue's {title} fields", WHERE)


def _value_guard(
    typed: dict[str, Any], want: Expected, name: str, keys: tuple[str, ...], words: str
) -> GuardResult:
    message = typed.get("message") or {}
    problems = [
        f"{k} {message.get(k)!r} is not {want.fields[k]!r}"
        for k in keys
        if k in want.fields and message.get(k) != want.fields[k]
    ]
    if problems:
        return _fail(name, "; ".join(problems), WHERE)
    return _ok(name, words, WHERE)


def action_guards(
    typed: dict[str, Any], request: TransferRequest, venue: str, signer: str
) -> list[GuardResult]:
    """Every guard of a venue transfer; a failed one refuses it (see the module docstring)."""
    want = expected(request)
    results = [
        _domain_guard(typed, venue),
        _chain_guard(typed, venue),
        _fields_guard(typed, venue, want),
        _value_guard(
            typed, want, "venue-action-books", ("sourceDex", "destinationDex", "toPerp"),
            f"from {book_words(request.source)} to {book_words(request.destination)}, as asked",
        ),
        _value_guard(
            typed, want, "venue-action-amount", ("amount", "token"),
            f"{format_usdc(request.amount)} USDC ({USDC_TOKEN}), as asked",
        ),
        _value_guard(
            typed, want, "venue-action-destination", ("destination", "fromSubAccount"),
            f"to {request.receiver}, as asked",
        ),
    ]  # fmt: skip
    if signer.lower() != request.user.lower():
        results.append(
            _fail(
                "venue-action-wallet",
                f"the transfer is {request.user}'s, but the wallet signs as {signer}",
                WHERE,
            )
        )
    return results


def require_all(results: list[GuardResult]) -> None:
    failed = failures(results)
    if failed:
        raise GuardRefused(failed)


def describe(request: TransferRequest, action: VenueAction, fee: SendFee) -> list[str]:
    """The transfer in words, for the confirm and the app: from which book to which, how much,
    the fees (`fee`: what the venue takes on a send that leaves the account) and what leaves
    the account in total, and (first) that it leaves the account when it does."""
    owner = f"sub account {request.from_sub_account}'s" if request.from_sub_account else "your"
    where = f" of {request.to_address}" if request.leaves_account else ""
    send_fee = fee if request.leaves_account else None
    sent = usdc_text(request.amount)
    lines = [
        f"move {usdc_exact_text(request.amount)} from {owner} {book_words(request.source)} "
        f"to {book_words(request.destination)}{where}",
        *(f"{label}: {words}" for label, words in fee_parts(send_fee, request.amount, sent)),
        f"venue action {action.wire}, signed by {request.user}",
    ]
    if request.leaves_account:
        lines.insert(0, f"THIS LEAVES YOUR ACCOUNT: {request.to_address} receives it")
    return lines


@dataclass(frozen=True)
class PreparedTransfer:
    """A venue transfer built, held by every guard, and described: ready to confirm."""

    request: TransferRequest
    action: VenueAction
    typed: dict[str, Any]
    results: list[GuardResult]
    lines: list[str]
    fee: SendFee = NO_FEE  # the venue's fees on it (none for a move between one's own books)

    def sign_request(self) -> SignRequest:
        """The transfer as the app's confirm dialog shows a venue action before it is signed:
        the words (leaving the account, the fee, what leaves in total) first, then the exact
        typed data, and every guard that held it."""
        from crossdeck.execute.describe import Line, LineKind, typed_data_lines

        said = []
        for line in self.lines:
            label, colon, words = line.partition(": ")
            if colon and label in ("fee", "in total"):  # the fee's own lines, labelled
                kind: LineKind = "warning" if label == "in total" and self.fee.total else "amount"
                said.append(Line(label, words, kind=kind))
            else:
                said.append(Line("", line, kind="warning" if label.startswith("THIS") else "text"))
        return SignRequest(
            kind="venue_action",
            step_id=None,
            item_index=0,
            title=f"Sign the venue transfer ({self.action.wire})",
            lines=(*said, *typed_data_lines(self.typed)),
            payload=self.typed,
            guards=tuple(self.results),
            chain_id=SIGNATURE_CHAIN_ID,
        )


def prepare(
    request: TransferRequest, venue: str | None, signer: str, fee: SendFee
) -> PreparedTransfer:
    """Build the transfer and hold it to `request`; GuardRefused (exit 7) when any guard fails,
    before anything is signed. `venue` is the venue's name (the `venue.name` setting)."""
    from crossdeck.venue import actions
    from crossdeck.venue.errors import VenueDataError

    if not venue:
        raise VenueDataError(
            "the venue's name is not set, so its sign domain cannot be held to it",
            hint="set venue.name beside venue.url (Hyperliquid for the public venue)",
        )
    action, typed = actions.build(request, venue)
    results = action_guards(typed, request, venue, signer)
    require_all(results)
    fee = fee if request.leaves_account else NO_FEE
    return PreparedTransfer(request, action, typed, results, describe(request, action, fee), fee)


async def submit(prepared: PreparedTransfer, signer: Any, client: Any) -> dict[str, Any]:
    """Sign the prepared transfer (after the user confirmed it), check the signature recovers
    to the wallet, and post it to the venue's /exchange; the venue's answer."""
    from crossdeck.venue.errors import VenueDataError
    from crossdeck.venue.signing import split_signature
    from crossdeck.wallet.signer import recover_typed_data

    typed, request = prepared.typed, prepared.request
    raw = await signer.sign_typed_data(typed, prepared.lines)
    recovered = recover_typed_data(typed, raw)
    if recovered.lower() != request.user.lower():
        raise VenueDataError(
            f"the signature recovers to {recovered}, not {request.user}; nothing was posted"
        )
    answer: dict[str, Any] = await client.exchange(
        typed["message"], prepared.action.nonce, split_signature(raw)
    )
    return answer
