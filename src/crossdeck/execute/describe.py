"""What will be signed, and the quote it comes from, in words: the one describer.

It returns structured lines (`Line`: label, value, the raw figure, a kind) grouped in `Section`s;
the CLI prints them (`text_lines`, and `to_json` for `--json`) and the app renders them (the
confirm dialog, the Quote view, the Execute screen). Nothing here formats for a screen.

Every amount is written in its currency's units with the symbol, next to the exact integer the
wire carries ("10 USDC (10000000)"); the symbols and decimals come from the quote and `/chains`
(`Currencies`). Calldata is decoded by ABI (`guards.calldata`), typed data and POST bodies are
shown as JSON, USD values to the cent, times in local ISO time. Money stays integers: `Decimal`
appears only to round a USD string for display.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from crossdeck.models import (
    NATIVE_ADDRESS,
    NATIVE_DECIMALS,
    VENUE_CHAIN_ID,
    ChainsResponse,
    CurrencyAmount,
    PaymentDetails,
    Quote,
    QuoteRequest,
    SignatureData,
    Step,
    StepItem,
    TransactionData,
    VenueDepositData,
)
from crossdeck.models.addresses import (
    NATIVE_CURRENCY,
    SOLANA_CHAIN_ID,
    Family,
    UnknownFamily,
    canonical_address,
    family_of,
)
from crossdeck.models.display import (
    Unit,
    chain_label,
    gwei_text,
    local_time,
    native_text,
    rate_text,
    shown_number,
    units_text,
    usd,
)
from crossdeck.models.solana import SYSTEM_PROGRAM as SOLANA_SYSTEM
from crossdeck.models.solana import SolanaInstruction, SolanaTransactionData, Undecodable
from crossdeck.models.solana import decode as decode_solana
from crossdeck.models.solana import program_name as solana_program_name
from crossdeck.models.text import short
from crossdeck.models.units import quantity, usd_text

if TYPE_CHECKING:
    from crossdeck.execute.guards.calldata import Call

LABEL_WIDTH = 10

LineKind = Literal["text", "amount", "address", "hash", "calldata", "json", "time", "warning"]


@dataclass(frozen=True)
class Line:
    """One fact: `value` is the whole human text (amounts with their raw integer in it);
    `raw` the exact wire value it was read from, when there is one (an integer, an address,
    calldata, a JSON text); `kind` says what the value is, for a renderer to style it."""

    label: str
    value: str
    raw: str | None = None
    kind: LineKind = "text"

    def parts(self, width: int = LABEL_WIDTH) -> tuple[str, str]:
        """The label padded to `width`, and the value with its further lines (JSON) indented
        to stand under its first one."""
        head = f"{self.label:<{width}} " if self.label else ""
        first, *rest = self.value.splitlines() or [""]
        pad = " " * len(head)
        return head, "\n".join([first, *(pad + more for more in rest)]).rstrip()

    def text(self, width: int = LABEL_WIDTH) -> str:
        """'label     value', a multi-line value (JSON) indented under its first line."""
        head, value = self.parts(width)
        return (head + value).rstrip()

    def __str__(self) -> str:
        return self.text()

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value, "raw": self.raw, "kind": self.kind}


@dataclass(frozen=True)
class Section:
    title: str
    lines: tuple[Line, ...]

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "lines": [line.to_json() for line in self.lines]}


def label_width(lines: Iterable[Line], most: int = 18) -> int:
    """The label column's width for `lines`: their longest label, up to `most`."""
    return min(max((len(line.label) for line in lines), default=0), most)


def text_lines(sections: Iterable[Section], indent: str = "  ") -> list[str]:
    """Sections as plain text lines: each title, then its lines indented, labels in a column."""
    out: list[str] = []
    for section in sections:
        out.append(section.title)
        width = label_width(section.lines)
        for line in section.lines:
            out.extend(indent + part for part in line.text(width).splitlines())
    return out


# -- figures (written as models.display writes them) -------------------------------------------


def time_line(label: str, millis: int | None) -> Line:
    if millis is None:
        return Line(label, "-", kind="time")
    return Line(label, f"{local_time(millis)} ({millis})", raw=str(millis), kind="time")


def json_text(value: Any) -> str:
    """JSON as a person reads it (keys in the order sent, two-space indent, no ASCII escapes)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _json_inline(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


# -- currencies ------------------------------------------------------------------------------


class Currencies:
    """Symbols and decimals by (chain id, address), from `/chains` and the quote's own amounts;
    a chain's native currency by chain id (18 decimals on EVM when nothing names it)."""

    def __init__(self, quote: Quote | None = None, chains: ChainsResponse | None = None) -> None:
        self.chains = chains
        self._tokens: dict[tuple[int, str], Unit] = {}
        for amount in _quote_amounts(quote):
            info = amount.currency_info
            if info and info.chain_id is not None and info.address and info.decimals is not None:
                self._add(info.chain_id, info.address, info.symbol, info.decimals)
        for chain in chains.chains if chains else ():
            if chain.id is None:
                continue
            for currency in chain.currencies:
                if currency.address and currency.decimals is not None:
                    self._add(chain.id, currency.address, currency.symbol, currency.decimals)

    def _add(self, chain_id: int, address: str, symbol: str | None, decimals: int) -> None:
        self._tokens.setdefault(
            (chain_id, canonical_address(address)), Unit(symbol or short(address), decimals)
        )

    def token(self, chain_id: int | None, address: str | None) -> Unit | None:
        if chain_id is None or not address:
            return None
        return self._tokens.get((chain_id, canonical_address(address)))

    def native(self, chain_id: int | None) -> Unit:
        known = self.token(chain_id, NATIVE_ADDRESS)
        if known is None and chain_id is not None:  # SOL, BTC: the family's native address
            known = self.token(chain_id, NATIVE_CURRENCY[self._family(chain_id)])
        if known is not None and chain_id != VENUE_CHAIN_ID:
            return known
        return Unit("native", NATIVE_DECIMALS)

    def _family(self, chain_id: int) -> Family:
        try:
            return self.chains.family(chain_id) if self.chains else family_of(chain_id)
        except UnknownFamily:
            return Family.EVM

    def chain_name(self, chain_id: int | None) -> str:
        """'Base (8453)', or 'chain 8453' when /chains does not name it."""
        return "chain ?" if chain_id is None else chain_label(self.chains, chain_id)


def _quote_amounts(quote: Quote | None) -> list[CurrencyAmount]:
    if quote is None:
        return []
    found: list[CurrencyAmount | None] = []
    details = quote.details
    if details is not None:
        found += [
            details.currency_in,
            details.currency_out,
            details.currency_gas_topup,
            details.refund_currency,
        ]
    fees = quote.fees
    if fees is not None:
        found += [getattr(fees, name) for name in _FEE_LABELS]
    return [amount for amount in found if amount is not None]


def money(value: CurrencyAmount | None, currencies: Currencies | None = None) -> str:
    """A currency amount of the quote: '10 USDC (10000000) on Base (8453), $10.00'."""
    if value is None:
        return "-"
    info = value.currency_info
    symbol = value.symbol or "?"
    if value.amount is not None and value.decimals is not None:
        text = units_text(value.amount, Unit(symbol, value.decimals))
    elif value.amount_formatted is not None:
        raw = f" ({value.amount})" if value.amount is not None else ""
        formatted = value.amount_formatted_decimal
        shown = shown_number(formatted) if formatted is not None else value.amount_formatted
        text = f"{shown} {symbol}{raw}"
    elif value.amount is not None:
        text = f"{value.amount} (smallest unit of {symbol}, decimals unknown)"
    else:
        text = f"? {symbol}"
    if info is not None and info.chain_id is not None:
        text += " on " + (currencies or Currencies()).chain_name(info.chain_id)
    if value.amount_usd is not None:
        text += f", {usd(value.amount_usd)}"
    return text


def _amount_line(label: str, value: CurrencyAmount, currencies: Currencies) -> Line:
    raw = str(value.amount) if value.amount is not None else None
    return Line(label, money(value, currencies), raw=raw, kind="amount")


# -- calldata ----------------------------------------------------------------------------------


def _roles(
    payment: PaymentDetails | None,
    deposit_address: Mapping[str, Any] | None,
    to: str | None,
    chain_id: int | None,
    currencies: Currencies,
) -> dict[str, str]:
    """What each address a transaction names is, lower-cased: 'the depository', ..."""
    roles: dict[str, str] = {}
    chain = currencies.chains.by_id(chain_id) if currencies.chains and chain_id else None
    if chain is not None and chain.depository:
        roles[chain.depository.lower()] = "the depository"
    if payment is not None:
        if payment.depository:
            roles[payment.depository.lower()] = "the depository"
        if payment.currency and payment.currency.lower() != NATIVE_ADDRESS:
            roles[payment.currency.lower()] = "the payment token"
    if deposit_address is not None and to:
        roles[to.lower()] = "your deposit address"
    return roles


def _named(address: str | None, roles: Mapping[str, str], *, full: bool) -> str:
    if not address:
        return "(none)"
    shown = address if full else short(address)
    role = roles.get(address.lower())
    return f"{role} {shown}" if role else shown


def call_words(
    call: Call | None,
    *,
    to: str | None,
    value: int,
    chain_id: int | None,
    currencies: Currencies,
    roles: Mapping[str, str],
    full: bool = True,
) -> str:
    """What a decoded call does, in one sentence with its amounts in units."""
    native = currencies.native(chain_id)
    if call is None:
        return f"send {native_text(value, native)} to {_named(to, roles, full=full)}"
    args = call.args
    if call.name in ("approve", "transfer"):
        token = currencies.token(chain_id, to)
        amount = units_text(int(args["amount"]), token)
        whom = args["spender"] if call.name == "approve" else args["to"]
        return f"{call.name} {amount} to {_named(whom, roles, full=full)}"
    order = args["id"] if full else short(args["id"])
    depositor = _named(args["depositor"], roles, full=full)
    if call.name == "depositNative":
        return (
            f"deposit {native_text(value, native)} into {_named(to, roles, full=full)} "
            f"for depositor {depositor}, order {order}"
        )
    token = currencies.token(chain_id, args["token"])
    # "of the payment token 0x…" where the token has a role, else "of token 0x…"
    of_token = _named(args["token"], roles, full=full)
    if not roles.get(str(args["token"]).lower()):
        of_token = f"token {of_token}"
    return (
        f"deposit {units_text(int(args['amount']), token)} of {of_token} "
        f"into {_named(to, roles, full=full)} for depositor {depositor}, order {order}"
    )


def _decoded(data: str | None) -> tuple[Call | None, str | None]:
    """The call, or the reason it does not decode."""
    # here, not at the top: eth-abi is not needed until a transaction is described
    from crossdeck.execute.guards.calldata import CalldataError, decode_call

    try:
        return decode_call(data), None
    except CalldataError as exc:
        return None, str(exc)


# -- what will be signed -----------------------------------------------------------------------


def transaction_title(chain_id: int, step_id: str | None, *, deposit_address: bool) -> str:
    if deposit_address:
        return f"Send the transfer to your deposit address on chain {chain_id}"
    return f"Send a transaction on chain {chain_id} (step {step_id})"


def transaction_lines(
    tx: Mapping[str, Any],
    *,
    sender: str,
    payment: PaymentDetails | None = None,
    deposit_address: Mapping[str, Any] | None = None,
    currencies: Currencies | None = None,
) -> list[Line]:
    """`tx` is the unsigned transaction: chainId, nonce, to, value, data, gas, fees."""
    currencies = currencies or Currencies()
    chain_id = int(tx["chainId"])
    to = str(tx.get("to"))
    value = int(tx.get("value") or 0)
    data = str(tx.get("data") or "0x")
    native = currencies.native(chain_id)
    roles = _roles(payment, deposit_address, to, chain_id, currencies)
    call, problem = _decoded(data)
    size = max(len(data) - 2, 0) // 2
    lines = [
        Line("chain", currencies.chain_name(chain_id), raw=str(chain_id)),
        Line("from", sender, raw=sender, kind="address"),
        Line("to", _named(to, roles, full=True), raw=to, kind="address"),
        Line("value", native_text(value, native), raw=str(value), kind="amount"),
    ]
    if problem is not None:
        # the balance-changes check simulates such a call and holds it to the quote, or
        # refuses it; its result stands beside these lines
        lines.append(
            Line("call", f"not decoded ({problem}): simulated or refused", kind="warning")
        )
    elif call is not None or size == 0:
        words = call_words(
            call, to=to, value=value, chain_id=chain_id, currencies=currencies, roles=roles
        )
        lines.append(Line("call", words, kind="amount" if call else "text"))
    if size:
        lines.append(Line("data", f"{size} bytes: {data}", raw=data, kind="calldata"))
    else:
        lines.append(Line("data", "none (a plain transfer)"))
    max_fee, tip = int(tx["maxFeePerGas"]), int(tx["maxPriorityFeePerGas"])
    gas = int(tx["gas"])
    lines += [
        Line("nonce", str(tx["nonce"]), raw=str(tx["nonce"])),
        Line("gas", f"{gas} at most", raw=str(gas)),
        Line(
            "max fee",
            f"{gwei_text(max_fee)} per gas (tip {gwei_text(tip)}); at most "
            f"{native_text(gas * max_fee, native)} of gas",
            raw=str(max_fee),
            kind="amount",
        ),
    ]
    if deposit_address:
        refund = deposit_address.get("refund_to") or "the sender"
        lines.append(
            Line(
                "deposit address",
                f"{to}: {deposit_address.get('type', 'open')}, refunds go to {refund}",
                raw=to,
                kind="address",
            )
        )
        quoted = deposit_address.get("quoted_amount")
        if quoted is not None and int(quoted) != value:
            lines.append(
                Line(
                    "NOTE",
                    f"sending {native_text(value, native)} where the quote says "
                    f"{native_text(int(quoted), native)}",
                    raw=str(value),
                    kind="warning",
                )
            )
    return lines


def signature_title(primary_type: str | None, step_id: str | None) -> str:
    if primary_type:
        return f"Sign {primary_type} (step {step_id})"
    return f"Sign a personal message (step {step_id})"


def _field_types(typed: Mapping[str, Any]) -> list[tuple[str, str]]:
    fields = typed.get("types", {}).get(typed.get("primaryType"), [])
    return [(f.get("name", "?"), f.get("type", "?")) for f in fields if isinstance(f, dict)]


def typed_data_lines(typed: Mapping[str, Any], currencies: Currencies | None = None) -> list[Line]:
    """The domain as JSON and every message field (`message`, or the quote's `value`) as JSON,
    in the order of its type; members the type does not list are shown as not signed. With
    `currencies`, a token's own typed data (an EIP-3009 authorisation: the domain's
    verifyingContract is the token) says its `value` in the token's units too."""
    domain = typed.get("domain", {})
    message = typed.get("message", typed.get("value", {})) or {}
    lines = [
        Line("type", f"EIP-712 {typed.get('primaryType')}"),
        Line("domain", json_text(domain), raw=_json_inline(domain), kind="json"),
    ]
    token = _domain_token(domain, currencies)
    listed = set()
    for name, kind in _field_types(typed):
        listed.add(name)
        shown = _json_inline(message.get(name))
        amount = quantity(message.get(name)) if kind.startswith("uint") else None
        if token is not None and name in ("value", "amount") and amount is not None:
            text = f"{name} ({kind}) = {shown}: {units_text(amount, token)}"
            lines.append(Line("field", text, raw=shown, kind="amount"))
            continue
        lines.append(Line("field", f"{name} ({kind}) = {shown}", raw=shown, kind="json"))
    # members the type does not list are not signed, but they are sent: show them too
    for name, value in message.items():
        if name not in listed:
            shown = _json_inline(value)
            lines.append(
                Line("extra", f"{name} = {shown} (not part of the signed type)", raw=shown)
            )
    return lines


def _domain_token(domain: Any, currencies: Currencies | None) -> Unit | None:
    if currencies is None or not isinstance(domain, Mapping):
        return None
    chain_id = quantity(domain.get("chainId"))
    contract = domain.get("verifyingContract")
    return currencies.token(chain_id, contract if isinstance(contract, str) else None)


def message_lines(message: str) -> list[Line]:
    raw = len(message) == 66 and message.startswith("0x")
    how = "as 32 raw bytes" if raw else "as text"
    return [
        Line("type", f"EIP-191 personal message, signed {how}"),
        Line("message", message, raw=message, kind="hash" if raw else "text"),
    ]


def post_lines(endpoint: str | None, body: Any, method: str | None = "POST") -> list[Line]:
    """The request that carries the signature afterwards, its body as JSON."""
    return [
        Line("then", f"{method or 'POST'} {endpoint} with this body:"),
        Line("body", json_text(body), raw=_json_inline(body), kind="json"),
    ]


def _dex_words(dex: str | None) -> str:
    if not dex:
        return "perps"
    return "spot" if dex == "spot" else f"HIP-3 DEX {dex!r}"


def venue_transfer_words(data: VenueDepositData, *, full: bool = True) -> str:
    """'send 10.000000 USDC:0x6d1e… from perps to spot of 0x…'."""
    action = data.action
    if action is None:
        return "a venue action with nothing in it (it will be refused)"
    destination = action.destination if full else short(action.destination)
    return (
        f"send {action.amount} {action.token} from {_dex_words(action.source_dex)} to "
        f"{_dex_words(action.destination_dex)} of {destination}"
    )


def venue_title(data: VenueDepositData) -> str:
    kind = data.eip712_primary_type or (data.action.type if data.action else None) or "action"
    return f"Sign the venue transfer ({kind})"


def venue_lines(typed: Mapping[str, Any], data: VenueDepositData) -> list[Line]:
    """The venue transfer in words, then its typed data, then where it goes."""
    amount = data.action.amount if data.action else None
    return [
        Line("transfer", venue_transfer_words(data), raw=amount, kind="amount"),
        *typed_data_lines(typed),
        Line("then", f"submit it to the venue's /exchange with nonce {data.nonce}"),
    ]


# -- a quote's items and the quote --------------------------------------------------------------


def item_lines(item: StepItem, currencies: Currencies, *, full: bool = True) -> list[Line]:
    """What executing one step item does, before it is prepared for signing."""
    kind = item.kind_of_data
    lines: list[Line]
    if kind == "transaction":
        lines = _tx_item_lines(item.as_transaction(), currencies, full=full)
    elif kind == "signature":
        lines = _signature_item_lines(item.as_signature())
    elif kind == "venue_deposit":
        data = item.as_venue_deposit()
        domain = data.sign_domain_name or "?"
        words = venue_transfer_words(data, full=full)
        kind_name = data.eip712_primary_type
        lines = [
            Line("venue", f"sign the venue transfer {kind_name} ({domain}): {words}"),
            Line("then", f"submit it to the venue's /exchange with nonce {data.nonce}"),
        ]
    elif kind == "solana":
        lines = solana_lines(item.as_solana(), currencies)
    else:
        lines = [Line("unknown", "an item of a kind crossdeck does not know (it is refused)")]
    if item.check is not None and item.check.endpoint:
        lines.append(Line("progress", f"{item.check.method or 'GET'} {item.check.endpoint}"))
    return lines


def solana_lines(data: SolanaTransactionData, currencies: Currencies) -> list[Line]:
    """A Solana transaction: each instruction in words (amounts in their units where the
    currency is listed), its program and raw data beside; the lookup tables it names."""
    lines = [Line("solana", f"one transaction on {currencies.chain_name(SOLANA_CHAIN_ID)}")]
    for number, instruction in enumerate(data.instructions, start=1):
        raw = instruction.data or "(none)"
        try:
            decoded = decode_solana(instruction)
        except Undecodable as exc:
            lines.append(Line(f"ix {number}", f"{exc} (it is refused)", raw=raw, kind="calldata"))
            lines.append(_solana_data_line(instruction))
            continue
        words = decoded.words
        amount = decoded.fields.get("amount", decoded.fields.get("lamports"))
        unit = None
        if decoded.name in ("deposit_native",) or (
            decoded.program == SOLANA_SYSTEM and decoded.name == "transfer"
        ):
            unit = currencies.token(SOLANA_CHAIN_ID, SOLANA_SYSTEM) or Unit("SOL", 9)
        elif isinstance(decoded.fields.get("mint"), str):
            unit = currencies.token(SOLANA_CHAIN_ID, str(decoded.fields["mint"]))
        if isinstance(amount, int) and unit is not None:
            words = f"{words} ({units_text(amount, unit)})"
        program = solana_program_name(instruction.program_id)
        lines.append(Line(f"ix {number}", f"{program}: {words}", raw=raw, kind="calldata"))
        lines.append(Line("program", instruction.program_id, raw=instruction.program_id))
        lines.append(_solana_data_line(instruction))
    for table in data.address_lookup_table_addresses:
        lines.append(Line("lookup table", table, raw=table))
    return lines


def _solana_data_line(instruction: SolanaInstruction) -> Line:
    """An instruction's raw data beside its words, as `data` is beside decoded calldata (text
    that is not hex is not echoed: it came from the service and may hold escape codes)."""
    try:
        data = instruction.data_bytes()
    except ValueError:
        return Line("data", f"not hex ({len(instruction.data)} characters)", kind="calldata")
    if not data:
        return Line("data", "0 bytes", raw="", kind="calldata")
    return Line("data", f"{len(data)} bytes: {data.hex()}", raw=data.hex(), kind="calldata")


def _tx_item_lines(tx: TransactionData, currencies: Currencies, *, full: bool) -> list[Line]:
    roles = _roles(None, None, tx.to, tx.chain_id, currencies)
    call, problem = _decoded(tx.data)
    where = currencies.chain_name(tx.chain_id)
    if problem is not None:
        shown = f"on {where} to {_named(tx.to, roles, full=full)}"
        return [Line("tx", f"{shown}: calldata not decoded ({problem}): simulated or refused")]
    words = call_words(
        call,
        to=tx.to,
        value=tx.value or 0,
        chain_id=tx.chain_id,
        currencies=currencies,
        roles=roles,
        full=full,
    )
    return [Line("tx", f"on {where}: {words}", raw=tx.data, kind="amount")]


def _signature_item_lines(data: SignatureData) -> list[Line]:
    sign, post = data.sign, data.post
    if sign is None:
        return [Line("sign", "nothing to sign (it will be refused)")]
    lines: list[Line] = []
    if sign.signature_kind == "eip712":
        domain = sign.domain or {}
        lines.append(
            Line(
                "sign",
                f"EIP-712 {sign.primary_type} in domain {domain.get('name', '?')} "
                f"(chain {domain.get('chainId', '?')}): {_json_inline(sign.value or {})}",
                raw=_json_inline(sign.value or {}),
                kind="json",
            )
        )
    else:
        lines.append(Line("sign", f"the message {_json_inline(sign.message)} (EIP-191)"))
    if post is not None and post.endpoint:
        body = _json_inline(post.body or {})
        lines.append(
            Line("then", f"{post.method or 'POST'} {post.endpoint} {body}", raw=body, kind="json")
        )
    return lines


def step_section(steps: Sequence[Step], currencies: Currencies, *, full: bool = True) -> Section:
    lines: list[Line] = []
    for number, step in enumerate(steps, start=1):
        what = step.action or step.description or ""
        lines.append(Line(f"{number}. {step.id}", f"{step_words(step)}: {what}".rstrip(": ")))
        for item_number, item in enumerate(step.items, start=1):
            number_text = f"   {number}.{item_number} "
            for at, line in enumerate(item_lines(item, currencies, full=full)):
                head = number_text if at == 0 else " " * len(number_text)
                lines.append(Line(head + line.label, line.value, raw=line.raw, kind=line.kind))
    return Section(f"Steps ({len(steps)})", tuple(lines))


def step_words(step: Step) -> str:
    """What kind of leg a step is: a venue transfer is not a 'deposit' transaction."""
    kinds = {item.kind_of_data for item in step.items}
    if kinds == {"venue_deposit"}:
        return "venue transfer"
    return step.kind or "?"


@dataclass(frozen=True)
class Headline:
    """What goes in, what comes out, who gets it (the Execute screen's summary)."""

    pay: str
    receive: str
    recipient: str
    request_id: str


def headline(quote: Quote, currencies: Currencies) -> Headline:
    details = quote.details
    return Headline(
        pay=money(details.currency_in if details else None, currencies),
        receive=money(details.currency_out if details else None, currencies),
        recipient=(details.recipient if details else None) or "-",
        request_id=quote.request_id or "-",
    )


_FEE_LABELS = {
    "gas": "origin gas",
    "relayer": "relayer total",
    "relayer_gas": "  destination gas",
    "relayer_service": "  service fee",
    "app": "app fee",
    "subsidized": "sponsored",
}


def quote_sections(
    quote: Quote,
    chains: ChainsResponse | None = None,
    request: QuoteRequest | None = None,
) -> list[Section]:
    """The whole quote: summary, fees, sponsorship, payment, route and every step."""
    currencies = Currencies(quote, chains)
    sections = [_summary(quote, request, currencies)]
    fees = quote.fees
    fee_lines = [
        _amount_line(label, value, currencies)
        for name, label in _FEE_LABELS.items()
        if fees is not None and (value := getattr(fees, name)) is not None
    ]
    if fee_lines:
        sections.append(Section("Fees", tuple(fee_lines)))
    sponsorship = _sponsorship(quote, currencies)
    if sponsorship:
        sections.append(Section("Sponsorship", tuple(sponsorship)))
    payment = _payment(quote, currencies)
    if payment is not None:
        sections.append(Section("Payment", (payment,)))
    route = _route(quote, currencies)
    if route:
        sections.append(Section("Route", tuple(route)))
    calls = _calls(quote, currencies)
    if calls:
        sections.append(Section("Calls", tuple(calls)))
    sections.append(step_section(quote.steps, currencies))
    return sections


def _calls(quote: Quote, currencies: Currencies) -> list[Line]:
    """The calls the order makes on the destination after the fill (`orderData.output.calls`),
    decoded: each contract, the value it gets out of the output, its calldata."""
    from crossdeck.execute.guards.calls import decode_call, order_calls

    given = order_calls(quote) or []
    details = quote.details
    out = details.currency_out if details is not None else None
    currency = out.currency if out is not None else None
    chain_id = currency.chain_id if currency is not None and not isinstance(currency, str) else None
    unit = currencies.native(chain_id)
    lines = []
    for i, encoded in enumerate(given, start=1):
        call = decode_call(encoded)
        if call is None:
            lines.append(Line(f"{i}.", f"cannot be read: {short(str(encoded), 18, 8)}"))
            continue
        lines.append(Line(f"{i}. to", call.to, raw=call.to, kind="address"))
        value = f"{units_text(call.value, unit)} out of what arrives"
        lines.append(Line("   value", value, raw=str(call.value), kind="amount"))
        lines.append(Line("   data", call.data, raw=call.data, kind="calldata"))
    return lines


def _summary(quote: Quote, request: QuoteRequest | None, currencies: Currencies) -> Section:
    details = quote.details
    lines = [Line("request", quote.request_id or "-", raw=quote.request_id, kind="hash")]
    if details is not None:
        if details.operation:
            lines.append(Line("operation", details.operation))
        if details.currency_in is not None:
            lines.append(_amount_line("you pay", details.currency_in, currencies))
        if details.currency_out is not None:
            out = details.currency_out
            lines.append(_amount_line("you get", out, currencies))
            if out.minimum_amount is not None and out.decimals is not None:
                unit = Unit(out.symbol or "?", out.decimals)
                lines.append(
                    Line(
                        "at least",
                        units_text(out.minimum_amount, unit),
                        raw=str(out.minimum_amount),
                        kind="amount",
                    )
                )
        topup = details.currency_gas_topup
        if topup is not None and topup.amount:  # the service sends 0 without a top-up
            lines.append(_amount_line("gas topup", topup, currencies))
        lines += _price_lines(quote)
    if request is not None:
        lines += _dollar_asks(request)
    if request is not None:
        lines.append(Line("user", request.user, raw=request.user, kind="address"))
    recipient = (details.recipient if details else None) or (
        request.effective_recipient() if request else None
    )
    if recipient:
        lines.append(Line("recipient", recipient, raw=recipient, kind="address"))
    if request is not None:
        refund = request.effective_refund_to()
        lines.append(Line("refund to", refund, raw=refund, kind="address"))
    return Section(f"Quote for request {quote.request_id or '-'}", tuple(lines))


def _dollar_asks(request: QuoteRequest) -> list[Line]:
    """The request's dollar fields said back in dollars, as they were asked for (the wire
    counts millionths of a dollar: an option read as the wrong unit shows here)."""
    lines: list[Line] = []
    if request.topup_gas:
        asked = request.topup_gas_amount
        text = f"{usd_text(int(asked))} asked" if asked is not None else "$2 asked (the default)"
        lines.append(Line("gas on arrival", text, raw=None if asked is None else str(asked)))
    if request.subsidize_fees and request.max_subsidization_amount is not None:
        cap = request.max_subsidization_amount
        lines.append(Line("sponsor cap", f"{usd_text(int(cap))} asked", raw=str(cap)))
    return lines


def _price_lines(quote: Quote) -> list[Line]:
    details = quote.details
    if details is None:
        return []
    lines: list[Line] = []
    if details.rate is not None:
        cin = details.currency_in.symbol if details.currency_in else None
        cout = details.currency_out.symbol if details.currency_out else None
        lines.append(Line("rate", rate_text(details.rate, cin, cout), raw=details.rate))
    for label, impact in (("impact", details.total_impact), ("swap impact", details.swap_impact)):
        if impact is not None:
            lines.append(Line(label, f"{usd(impact.usd)} ({impact.percent or '?'}%)"))
    tolerance = details.slippage_tolerance
    if tolerance is not None:
        parts = [
            f"{side} {value.percent or '?'}% ({usd(value.usd)})"
            for side in ("origin", "destination")
            if (value := getattr(tolerance, side)) is not None
        ]
        if parts:
            lines.append(Line("slippage", ", ".join(parts)))
    if details.time_estimate is not None:
        lines.append(Line("time", f"about {details.time_estimate} s"))
    return lines


def _sponsorship(quote: Quote, currencies: Currencies) -> list[Line]:
    sponsorship = quote.fee_sponsorship
    quoted = sponsorship.quoted if sponsorship else None
    if quoted is None:
        return []
    selected = ", ".join(quoted.selected_components or []) or "none"
    cap = quoted.max_subsidization_amount
    cap_text = f", cap {units_text(cap, Unit('USDC', 6))}" if cap is not None else ""
    hit = " (cap hit: you pay the rest)" if quoted.cap_hit else ""
    lines = [Line("components", f"{selected}{cap_text}{hit}")]
    for name, component in (quoted.components or {}).items():
        mark = "x" if component.selected else " "
        total, sponsored, user = component.total, component.sponsored, component.user_pays
        lines.append(
            Line(
                f"[{mark}] {name}",
                f"total {usd(total.amount_usd if total else None)}, sponsor pays "
                f"{usd(sponsored.amount_usd if sponsored else None)}, you pay "
                f"{usd(user.amount_usd if user else None)}",
            )
        )
    if quoted.sponsored_total is not None:
        lines.append(_amount_line("sponsored", quoted.sponsored_total, currencies))
    if quoted.user_pays_total is not None:
        lines.append(_amount_line("you pay", quoted.user_pays_total, currencies))
    return lines


def _payment(quote: Quote, currencies: Currencies) -> Line | None:
    payment = quote.payment_details
    if payment is None:
        return None
    details = quote.details
    amount_in = details.currency_in if details else None
    info = amount_in.currency_info if amount_in else None
    chain_id = info.chain_id if info else None
    if payment.currency and payment.currency.lower() == NATIVE_ADDRESS:
        unit: Unit | None = currencies.native(chain_id)
    else:
        unit = currencies.token(chain_id, payment.currency)
    amount = units_text(payment.amount, unit) if payment.amount is not None else "?"
    return Line(
        "payment",
        f"{amount} of {payment.currency} to the depository {payment.depository} on chain "
        f"{payment.chain_id}",
        raw=str(payment.amount) if payment.amount is not None else None,
        kind="amount",
    )


def _route(quote: Quote, currencies: Currencies) -> list[Line]:
    details = quote.details
    route = details.route if details else None
    if route is None:
        return []
    lines = []
    for side in ("origin", "destination"):
        leg = getattr(route, side)
        if leg is None:
            continue
        sources = ", ".join(leg.included_swap_sources or []) or "none"
        lines.append(
            Line(
                side,
                f"{money(leg.input_currency, currencies)} -> "
                f"{money(leg.output_currency, currencies)} via {leg.router or '?'} "
                f"(sources: {sources})",
            )
        )
    return lines


# -- after the signing: a request's legs ----------------------------------------------------------


def out_leg(status: str | None) -> str:
    """What the destination-side transactions of a request are: a refund's are refunds (a failed
    request's too: what goes out then is the refund attempt), a success's the fill."""
    if status in ("refund", "fallback", "failure", "refunded"):
        return "refund"
    return "fill"
