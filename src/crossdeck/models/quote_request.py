"""The POST /quote/v2 body (spec 4.1; unnamed fields under their public names from facts.md).

`QuoteRequest.build(**fields)` is the front door: it accepts snake_case or camelCase names and
raises `QuoteRequestError` naming the offending field. `to_body()` is the JSON to send.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic.alias_generators import to_camel

from crossdeck.models.addresses import (
    NATIVE_CURRENCY,
    Family,
    UnknownFamily,
    checked_checksum,
    checksum_problem,
    family_of,
    well_formed_problem,
    wrong_family_problem,
)
from crossdeck.models.base import IntStr
from crossdeck.models.constants import NATIVE_ADDRESS, VENUE_CHAIN_ID, required_protocol_version
from crossdeck.models.errors import RuleViolation, raise_field_error
from crossdeck.models.field_errors import QuoteRequestError as QuoteRequestError  # re-exported

EVM_ADDRESS_PATTERN = r"^0x[a-fA-F0-9]{40}$"
_EVM_ADDRESS = re.compile(EVM_ADDRESS_PATTERN)
# Venue currencies: perps USDC '0x' + 32 hex, spot token ids (16 bytes), HIP-3 = a spot address
# with the hex of the DEX name appended: at least 32 hex digits, whole bytes.
_VENUE_CURRENCY = re.compile(r"^0x(?:[a-fA-F0-9]{2}){16,}$")
_AMOUNT = re.compile(r"^[0-9]+$")
_COMPONENT = re.compile(r"^[a-z]+$")
# a body field this model does not list is sent as given (the service adds fields faster than
# a client ships), but only under a name that could be a field's: letters, digits, underscores
_FIELD_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
FIELD_NAME_RULE = "a letter, then letters, digits or _"


def is_field_name(name: str) -> bool:
    """Whether `name` can be a body field's name (the only check on a field crossdeck does not
    list)."""
    return _FIELD_NAME.fullmatch(name) is not None


TradeType = Literal["EXACT_INPUT", "EXACT_OUTPUT", "EXPECTED_OUTPUT"]


def _evm_address(value: str) -> str:
    if not _EVM_ADDRESS.fullmatch(value):
        raise ValueError(f"{value!r} is not an EVM address ('0x' followed by 40 hex digits)")
    return checked_checksum(value)


EvmAddress = Annotated[str, AfterValidator(_evm_address)]


def _some_address(value: str) -> str:
    problem = well_formed_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


AnyAddress = Annotated[str, AfterValidator(_some_address)]
"""An address of some family (its checksum checked); its chain's family is checked in
`QuoteRequest._rules`, where the chain is known."""


def _family(info: ValidationInfo, field: str, chain_id: int) -> Family:
    """`chain_id`'s address family, as /chains' vmType says it (the validation context's
    `vm_types`) or as publicly known; `RuleViolation` on `field` for a chain crossdeck
    cannot address."""
    vm_types = (info.context or {}).get("vm_types") or {}
    try:
        return family_of(chain_id, vm_types.get(chain_id))
    except UnknownFamily as exc:
        raise RuleViolation(field, str(exc)) from None


def _check_address(field: str, value: str | None, family: Family, chain_id: int) -> None:
    """`value` must be an address of `family` with a right checksum: a Solana key kept in its
    case, a Bitcoin address whose bech32/bech32m or base58check checksum holds."""
    if value is None:
        return
    problem = wrong_family_problem(value, family, chain_id)
    if problem is not None:
        raise RuleViolation(field, problem)


def _amount_text(value: object) -> object:
    if isinstance(value, bool):
        raise ValueError("must be a whole number of the smallest unit, not a boolean")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("must not be negative")
        return str(value)
    if isinstance(value, str) and not _AMOUNT.fullmatch(value):
        raise ValueError(
            f"{value!r} must be digits only (an integer in the currency's smallest unit)"
        )
    return value


AmountText = Annotated[str, BeforeValidator(_amount_text)]


def _bps(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError("must be basis points (0..10000), not a boolean")
    if isinstance(value, str):
        if not _AMOUNT.fullmatch(value):
            raise ValueError(f"{value!r} must be a whole number of basis points (0..10000)")
        value = int(value)
    if not isinstance(value, int):
        raise ValueError(f"{value!r} must be a whole number of basis points (0..10000)")
    if not 0 <= value <= 10000:
        raise ValueError(f"{value} is out of range: basis points must be 0..10000 (50 = 0.5%)")
    return value


Bps = Annotated[
    int, BeforeValidator(_bps), PlainSerializer(str, return_type=str, when_used="always")
]
"""Basis points: an int in Python, a digit string on the wire."""


def _non_negative(value: int) -> int:
    if value < 0:
        raise ValueError("must not be negative")
    return value


UIntStr = Annotated[IntStr, AfterValidator(_non_negative)]


class _BodyModel(BaseModel):
    # strict: a body we send must not have True turned into chain 1, or "1" into a flag
    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class TxCall(_BodyModel):
    """A transaction to execute on the destination chain."""

    model_config = ConfigDict(extra="allow")
    to: EvmAddress
    value: UIntStr | None = None
    data: str | None = None


class Authorization(_BodyModel):
    """An EIP-7702 authorization."""

    chain_id: int
    address: EvmAddress
    nonce: int
    y_parity: int
    r: str
    s: str


class AppFee(_BodyModel):
    recipient: str
    fee: Bps


class QuoteRequest(_BodyModel):
    """The body. Fields it does not list are kept and sent as given (`unlisted_fields` names
    them, so a caller can say so); only their names are checked."""

    model_config = ConfigDict(extra="allow")

    # named in the spec
    # user, recipient, refundTo and depositFeePayer are addresses of their chain's family
    # (`_rules`), so they are plain text here
    user: AnyAddress
    origin_chain_id: int
    destination_chain_id: int
    origin_currency: str
    destination_currency: str
    amount: AmountText
    trade_type: TradeType
    recipient: AnyAddress | None = None
    refund_to: AnyAddress | None = None
    protocol_version: Literal["v2"] | None = None
    topup_gas: bool | None = None
    subsidize_fees: bool | None = None
    use_deposit_address: bool | None = None
    strict: bool | None = None
    # named in facts.md
    txs: list[TxCall] | None = None
    txs_gas_limit: int | None = Field(default=None, ge=0)
    authorization_list: list[Authorization] | None = None
    additional_data: dict[str, Any] | None = None
    referrer: str | None = None
    referrer_address: EvmAddress | None = None
    recovery_address: EvmAddress | None = None
    refund_on_origin: bool | None = None
    topup_gas_amount: UIntStr | None = None
    enable_true_exact_output: bool | None = None
    explicit_deposit: bool | None = None
    use_external_liquidity: bool | None = None
    use_fallbacks: bool | None = None
    use_permit: bool | None = None
    permit_expiry: int | None = Field(default=None, gt=0)
    slippage_tolerance: Bps | None = None
    late_payment_slippage_tolerance: Bps | None = None
    gas_limit_for_deposit_specified_txs: int | None = Field(default=None, ge=0)
    force_solver_execution: bool | None = None
    sponsored_fee_components: list[str] | None = None
    max_subsidization_amount: UIntStr | None = None
    subsidize_rent: bool | None = None
    included_swap_sources: list[str] | None = None
    excluded_swap_sources: list[str] | None = None
    included_origin_swap_sources: list[str] | None = None
    included_destination_swap_sources: list[str] | None = None
    origin_gas_overhead: int | None = Field(default=None, ge=0)
    deposit_fee_payer: str | None = None
    max_route_length: int | None = Field(default=None, ge=1)
    use_shared_accounts: bool | None = None
    include_compute_unit_limit: bool | None = None
    override_price_impact: bool | None = None
    disable_origin_swaps: bool | None = None
    fixed_rate: str | int | None = None
    app_fees: list[AppFee] | None = None
    include_protocol_data: bool | None = None
    ttl: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _rules(self, info: ValidationInfo) -> Self:
        for name in self.unlisted_fields:
            if not is_field_name(name):
                raise RuleViolation(
                    "body", f"{name[:64]!r} is not a field name ({FIELD_NAME_RULE})"
                )
        origin = _family(info, "originChainId", self.origin_chain_id)
        destination = _family(info, "destinationChainId", self.destination_chain_id)
        self._check_currency("originCurrency", self.origin_currency, self.origin_chain_id, origin)
        self._check_currency(
            "destinationCurrency",
            self.destination_currency,
            self.destination_chain_id,
            destination,
        )
        _check_address("user", self.user, origin, self.origin_chain_id)
        _check_address("recipient", self.recipient, destination, self.destination_chain_id)
        _check_address("refundTo", self.refund_to, origin, self.origin_chain_id)
        if origin is Family.SOLANA:
            # the second signer of a Solana deposit (the public service ignores it elsewhere)
            _check_address("depositFeePayer", self.deposit_fee_payer, origin, self.origin_chain_id)
        needed = required_protocol_version(self.origin_chain_id)
        if needed is not None and self.protocol_version != needed:
            raise RuleViolation(
                "protocolVersion",
                f"must be {needed!r} when withdrawing from the venue (originChainId 1337)",
            )
        if self.topup_gas_amount is not None and not self.topup_gas:
            raise RuleViolation("topupGasAmount", "applies only with topupGas=true")
        if self.topup_gas and self.destination_chain_id == VENUE_CHAIN_ID:
            raise RuleViolation(
                "topupGas", "applies to EVM destination chains only, not the venue (1337)"
            )
        if self.topup_gas and destination is not Family.EVM:
            raise RuleViolation("topupGas", "applies to EVM destination chains only")
        if self.topup_gas and self.destination_currency == NATIVE_ADDRESS:
            raise RuleViolation(
                "topupGas",
                "does not apply when the destination currency is already the gas currency",
            )
        if self.sponsored_fee_components is not None:
            if not self.subsidize_fees:
                raise RuleViolation("sponsoredFeeComponents", "needs subsidizeFees=true")
            if not self.sponsored_fee_components:
                raise RuleViolation(
                    "sponsoredFeeComponents", "must name at least one component (or be omitted)"
                )
            for name in self.sponsored_fee_components:
                if not _COMPONENT.fullmatch(name):
                    raise RuleViolation(
                        "sponsoredFeeComponents",
                        f"{name!r} is not a fee component name (lowercase letters, e.g. "
                        "execution, swap, app, rent)",
                    )
        if self.max_subsidization_amount is not None and not self.subsidize_fees:
            raise RuleViolation("maxSubsidizationAmount", "needs subsidizeFees=true")
        if self.use_deposit_address and self.origin_currency.lower() != NATIVE_CURRENCY[origin]:
            raise RuleViolation(
                "useDepositAddress",
                "is for native-currency bridges only: the origin currency must be the chain's "
                f"native currency ({NATIVE_CURRENCY[origin]})",
            )
        if self.strict and not self.use_deposit_address:
            raise RuleViolation("strict", "applies only with useDepositAddress=true")
        if self.strict and self.refund_to is None:
            raise RuleViolation("refundTo", "is required with a strict deposit address")
        if self.use_deposit_address and self.trade_type == "EXACT_OUTPUT" and not self.strict:
            raise RuleViolation(
                "strict", "must be true for a deposit address with tradeType EXACT_OUTPUT"
            )
        return self

    @staticmethod
    def _check_currency(field: str, value: str, chain_id: int, family: Family) -> None:
        if family is Family.BITCOIN and value == NATIVE_CURRENCY[family]:
            return  # the public placeholder for BTC, not an address (`NATIVE_CURRENCY`)
        if family is not Family.EVM:
            # a Solana mint is case-sensitive: it is checked, and kept, exactly as given
            problem = wrong_family_problem(value, family, chain_id)
            if problem is not None:
                raise RuleViolation(field, problem)
            return
        if chain_id == VENUE_CHAIN_ID:
            if not _VENUE_CURRENCY.fullmatch(value):
                raise RuleViolation(
                    field,
                    f"{value!r} is not a venue currency address ('0x' and at least 32 hex "
                    "digits: perps USDC, a spot token id, or a HIP-3 id)",
                )
        elif not _EVM_ADDRESS.fullmatch(value):
            raise RuleViolation(
                field, f"{value!r} is not an EVM address ('0x' followed by 40 hex digits)"
            )
        elif (problem := checksum_problem(value)) is not None:
            raise RuleViolation(field, problem)

    @classmethod
    def build(cls, vm_types: dict[int, str] | None = None, **fields: Any) -> Self:
        """Validate the fields (snake_case or camelCase); QuoteRequestError names the field.
        `vm_types` gives chains' vmType as /chains says them (`ChainsResponse.vm_types`), which
        decide the family of their addresses; without, the publicly known ones (`family_of`)."""
        return cls.from_body(fields, vm_types=vm_types)

    @classmethod
    def from_body(cls, body: dict[str, Any], *, vm_types: dict[int, str] | None = None) -> Self:
        try:
            return cls.model_validate(body, context={"vm_types": vm_types or {}})
        except ValidationError as exc:
            raise_field_error(exc, cls, QuoteRequestError)
            raise  # unreachable: raise_field_error always raises

    def replace(self, **changes: Any) -> Self:
        """A validated copy with some fields changed (snake_case or camelCase; None removes)."""
        body = self.to_body()
        for name, value in changes.items():
            key = to_camel(name)
            if value is None:
                body.pop(key, None)
            else:
                body[key] = value
        return self.from_body(body)

    @property
    def unlisted_fields(self) -> list[str]:
        """The body fields this model does not list, sent as given."""
        return sorted(self.model_extra or {})

    def effective_recipient(self) -> str:
        """Rule 2: recipient, else user."""
        return self.recipient or self.user

    def effective_refund_to(self) -> str:
        """Rule 3: refundTo, else recipient, else user."""
        return self.refund_to or self.recipient or self.user

    @property
    def amount_int(self) -> int:
        return int(self.amount)

    @property
    def is_venue_withdrawal(self) -> bool:
        return self.origin_chain_id == VENUE_CHAIN_ID

    @property
    def is_venue_deposit(self) -> bool:
        return self.destination_chain_id == VENUE_CHAIN_ID

    def to_body(self) -> dict[str, Any]:
        """The JSON body: camelCase keys, no None values, amounts and bps as strings."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
