"""POST /quote/v2 body rules (spec 4.1 + facts.md), checked in a fixed order.

Every refusal is a ``ServiceError`` (400) naming the field. Codes: malformed user/refundTo ->
INVALID_ADDRESS, malformed recipient -> INVALID_RECIPIENT, malformed currencies ->
INVALID_INPUT_CURRENCY / INVALID_OUTPUT_CURRENCY, unknown chain -> UNSUPPORTED_CHAIN, unknown
currency on a known chain -> UNSUPPORTED_CURRENCY, zero amount -> AMOUNT_TOO_LOW, bad slippage ->
INVALID_SLIPPAGE_TOLERANCE, a flag the route cannot honour (deposit address for ERC-20, permit for
a non-USDC currency, gas topup to the venue or to the gas currency) -> UNSUPPORTED_ROUTE, and any
other broken field rule or field combination -> INVALID_INPUT.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from crossdeck.sim.brand import Brand
from crossdeck.sim.service.calls import Call, calls_value, parse_txs
from crossdeck.sim.service.currencies import VENUE_CHAIN_ID, Currency
from crossdeck.sim.service.directory import ChainDirectory
from crossdeck.sim.service.errors import ServiceError, invalid
from crossdeck.sim.service.families import (
    DESCRIPTIONS,
    SolanaOptions,
    valid_address,
    vm_type,
)

ADDRESS_RE = re.compile(r"^0x[a-fA-F0-9]{40}$")
VENUE_CURRENCY_RE = re.compile(r"^0x(?:[a-fA-F0-9]{2}){16,}$")
DIGITS_RE = re.compile(r"^[0-9]+$", re.ASCII)
TRADE_TYPES = ("EXACT_INPUT", "EXACT_OUTPUT", "EXPECTED_OUTPUT")
DEFAULT_TOPUP_MICRO_USD = 2_000_000
DEFAULT_PERMIT_EXPIRY_S = 600
MAX_PERMIT_EXPIRY_S = 7 * 24 * 3600
MAX_AMOUNT = 2**256 - 1
DEMO_PREFIX = "demo:"


@dataclass(frozen=True)
class QuoteParams:
    user: str
    origin_chain_id: int
    destination_chain_id: int
    origin: Currency
    destination: Currency
    amount: int
    trade_type: str
    recipient: str
    refund_to: str
    protocol_version: str | None
    topup_gas: bool
    topup_gas_micro_usd: int
    subsidize_fees: bool
    sponsored_components: tuple[str, ...]
    max_subsidization_micro_usd: int | None
    use_deposit_address: bool
    strict: bool
    use_permit: bool
    permit_expiry_s: int
    slippage_bps: int | None
    referrer: str | None
    app_fees: tuple[tuple[str, int], ...]
    solana: SolanaOptions | None = None  # origin Solana: its five body fields
    calls: tuple[Call, ...] = ()  # txs: run on the destination after the fill
    # a same-chain swap through the depository and the solver, not the user's own transaction
    force_solver_execution: bool = False

    @property
    def demo(self) -> str | None:
        """The demo trigger carried by the referrer ('fail', 'fail:SLIPPAGE', ...), if any."""
        if self.referrer and self.referrer.startswith(DEMO_PREFIX):
            return self.referrer[len(DEMO_PREFIX) :] or None
        return None


def _present(body: dict[str, Any], name: str) -> bool:
    return body.get(name) is not None


def _bool(body: dict[str, Any], name: str) -> bool:
    value = body.get(name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise invalid(f"{name} must be a boolean (true or false)", field=name)
    return value


def _int_field(body: dict[str, Any], name: str) -> int:
    value: object = body.get(name)
    if value is None:
        raise invalid(f"{name} is required", field=name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid(f"{name} must be an integer chain id", field=name)
    return value


def _string(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if value is None:
        raise invalid(f"{name} is required", field=name)
    if not isinstance(value, str):
        raise invalid(f"{name} must be a string", field=name)
    return value


def _address(
    body: dict[str, Any], name: str, code: str, *, required: bool, family: str = "evm"
) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise invalid(f"{name} is required", field=name)
        return None
    if not valid_address(family, value):
        raise invalid(f"{name} must be {DESCRIPTIONS[family]}, got {value!r}", code, field=name)
    assert isinstance(value, str)
    return value


def _unsigned(value: Any, name: str, code: str = "INVALID_INPUT") -> int:
    """A non-negative integer given as a digit string or a JSON integer."""
    if isinstance(value, bool):
        raise invalid(f"{name} must be a non-negative integer (string of digits)", code, field=name)
    if isinstance(value, int):
        if value < 0:
            raise invalid(f"{name} must not be negative", code, field=name)
        return value
    if isinstance(value, str) and DIGITS_RE.fullmatch(value) and len(value) <= 78:
        return int(value)
    raise invalid(
        f"{name} must be a non-negative integer (string of digits), got {value!r}", code, field=name
    )


def _currency(
    directory: ChainDirectory, chain_id: int, body: dict[str, Any], name: str, code: str
) -> Currency:
    value = _string(body, name)
    pattern = VENUE_CURRENCY_RE if chain_id == VENUE_CHAIN_ID else ADDRESS_RE
    if chain_id in directory.others:  # base58 / bech32: looked up as written
        pattern = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{32,44}$|^bc1[a-z0-9]{8,87}$")
    if not pattern.fullmatch(value):
        shape = (
            "0x + 32 hex digits (or a HIP-3 address)"
            if chain_id == VENUE_CHAIN_ID
            else "an address matching ^0x[a-fA-F0-9]{40}$"
        )
        raise invalid(
            f"{name} must be {shape} on chain {chain_id}, got {value!r}", code, field=name
        )
    currency = directory.currency(chain_id, value)
    if currency is None:
        known = ", ".join(f"{c.symbol} {c.address}" for c in directory.currencies(chain_id))
        raise invalid(
            f"{name} {value} is not supported on chain {chain_id} (supported: {known})",
            "UNSUPPORTED_CURRENCY",
            field=name,
        )
    return currency


def parse_quote_body(body: Any, directory: ChainDirectory, brand: Brand) -> QuoteParams:
    if not isinstance(body, dict):
        raise invalid("the quote body must be a JSON object")

    origin_chain_id = _int_field(body, "originChainId")
    destination_chain_id = _int_field(body, "destinationChainId")
    for name, chain_id in (
        ("originChainId", origin_chain_id),
        ("destinationChainId", destination_chain_id),
    ):
        if not directory.supports(chain_id):
            raise invalid(
                f"{name} {chain_id} is not supported (supported: "
                f"{', '.join(map(str, directory.chain_ids()))})",
                "UNSUPPORTED_CHAIN",
                field=name,
            )
    origin_family = vm_type(directory, origin_chain_id)
    destination_family = vm_type(directory, destination_chain_id)
    user = _address(body, "user", "INVALID_ADDRESS", required=True, family=origin_family)
    assert user is not None
    origin = _currency(directory, origin_chain_id, body, "originCurrency", "INVALID_INPUT_CURRENCY")
    destination = _currency(
        directory, destination_chain_id, body, "destinationCurrency", "INVALID_OUTPUT_CURRENCY"
    )

    amount_text = body.get("amount")
    if amount_text is None:
        raise invalid("amount is required", field="amount")
    if (
        not isinstance(amount_text, str)
        or len(amount_text) > 78
        or not DIGITS_RE.fullmatch(amount_text)
    ):
        raise invalid(
            "amount must be a string of digits (^[0-9]+$) in the currency's smallest unit, "
            f"got {amount_text!r}",
            field="amount",
        )
    amount = int(amount_text)
    if amount > MAX_AMOUNT:
        raise invalid("amount is larger than a uint256", field="amount")

    trade_type = body.get("tradeType")
    if trade_type is None:
        raise invalid("tradeType is required", field="tradeType")
    if trade_type not in TRADE_TYPES:
        raise invalid(
            f"tradeType must be one of {', '.join(TRADE_TYPES)}, got {trade_type!r}",
            field="tradeType",
        )

    recipient = _address(
        body, "recipient", "INVALID_RECIPIENT", required=False, family=destination_family
    )
    if recipient is None:
        if destination_family != origin_family:  # the user's address is of the other family
            raise invalid(
                f"recipient is required: chain {destination_chain_id} takes "
                f"{DESCRIPTIONS[destination_family]}",
                "INVALID_RECIPIENT",
                field="recipient",
            )
        recipient = user
    refund_to_given = _address(
        body, "refundTo", "INVALID_ADDRESS", required=False, family=origin_family
    )
    # Rule 3: refund to refundTo, else to the recipient, else to the user (recipient defaults
    # to the user, so "else user" is covered).
    # A recipient of another family cannot take a refund on the origin chain: the user does.
    refund_to = refund_to_given or (recipient if destination_family == origin_family else user)

    protocol_version = body.get("protocolVersion")
    if protocol_version is not None and protocol_version != "v2":
        raise invalid(
            f"protocolVersion must be 'v2', got {protocol_version!r}", field="protocolVersion"
        )
    if origin_chain_id == VENUE_CHAIN_ID and protocol_version != "v2":
        raise invalid(
            "protocolVersion 'v2' is mandatory when withdrawing from the venue "
            f"(originChainId {VENUE_CHAIN_ID})",
            field="protocolVersion",
        )

    if origin_chain_id == destination_chain_id and origin.key == destination.key:
        raise invalid(
            "originCurrency and destinationCurrency are the same currency on the same chain",
            "UNSUPPORTED_ROUTE",
        )
    if origin_chain_id == VENUE_CHAIN_ID and destination_chain_id == VENUE_CHAIN_ID:
        raise invalid(
            "moves inside the venue are not routed by the service; use the venue directly",
            "UNSUPPORTED_ROUTE",
        )

    topup_gas = _bool(body, "topupGas")
    topup_micro = DEFAULT_TOPUP_MICRO_USD
    if _present(body, "topupGasAmount"):
        if not topup_gas:
            raise invalid("topupGasAmount requires topupGas: true", field="topupGasAmount")
        topup_micro = _unsigned(body["topupGasAmount"], "topupGasAmount")
        if topup_micro == 0:
            raise invalid("topupGasAmount must be greater than zero", field="topupGasAmount")
    if topup_gas:
        if destination_family != "evm":
            raise invalid(
                f"topupGas is for EVM destination chains only, not chain {destination_chain_id}",
                "UNSUPPORTED_ROUTE",
                field="topupGas",
            )
        if destination_chain_id == VENUE_CHAIN_ID:
            raise invalid(
                "topupGas is for EVM destination chains only, not the venue (chain 1337)",
                "UNSUPPORTED_ROUTE",
                field="topupGas",
            )
        if destination.is_native:
            raise invalid(
                "topupGas is not applicable: the destination currency is already the "
                "destination gas currency",
                "UNSUPPORTED_ROUTE",
                field="topupGas",
            )

    subsidize = _bool(body, "subsidizeFees")
    solana = _solana_options(body, origin_family, user, subsidize)
    allowed_components: tuple[str, ...] = (
        "execution",
        "swap",
        brand.service_fee_component,
        "app",
    )
    if origin_family == "svm":
        allowed_components = (*allowed_components, "rent")
    components: tuple[str, ...] = allowed_components
    if _present(body, "sponsoredFeeComponents"):
        if not subsidize:
            raise invalid(
                "sponsoredFeeComponents requires subsidizeFees: true",
                field="sponsoredFeeComponents",
            )
        raw = body["sponsoredFeeComponents"]
        if not isinstance(raw, list) or not raw:
            raise invalid(
                "sponsoredFeeComponents must be a non-empty array of "
                f"{', '.join(allowed_components)}",
                field="sponsoredFeeComponents",
            )
        for item in raw:
            if item not in allowed_components:
                raise invalid(
                    f"sponsoredFeeComponents: {item!r} is not one of "
                    f"{', '.join(allowed_components)}",
                    field="sponsoredFeeComponents",
                )
        # "rent" (Solana) is sponsored apart from the fee model's components
        components = tuple(c for c in allowed_components if c in raw and c != "rent")
    max_subsidization = None
    if _present(body, "maxSubsidizationAmount"):
        if not subsidize:
            raise invalid(
                "maxSubsidizationAmount requires subsidizeFees: true",
                field="maxSubsidizationAmount",
            )
        max_subsidization = _unsigned(body["maxSubsidizationAmount"], "maxSubsidizationAmount")

    use_deposit_address = _bool(body, "useDepositAddress")
    strict = _bool(body, "strict")
    if strict and not use_deposit_address:
        raise invalid("strict requires useDepositAddress: true", field="strict")
    if strict and refund_to_given is None:
        raise invalid(
            "refundTo is required when a strict deposit address is used", field="refundTo"
        )
    if use_deposit_address:
        if origin_chain_id == VENUE_CHAIN_ID or not origin.is_native or origin_family != "evm":
            raise invalid(
                "useDepositAddress is for native-currency deposits on an EVM chain only",
                "UNSUPPORTED_ROUTE",
                field="useDepositAddress",
            )
        if trade_type == "EXACT_OUTPUT" and not strict:
            raise invalid("EXACT_OUTPUT with useDepositAddress needs strict: true", field="strict")

    use_permit = _bool(body, "usePermit")
    permit_expiry = DEFAULT_PERMIT_EXPIRY_S
    if _present(body, "permitExpiry"):
        raw_expiry = body["permitExpiry"]
        if isinstance(raw_expiry, bool) or not isinstance(raw_expiry, int) or raw_expiry <= 0:
            raise invalid("permitExpiry must be a positive number of seconds", field="permitExpiry")
        if raw_expiry > MAX_PERMIT_EXPIRY_S:
            raise invalid(
                f"permitExpiry must be at most {MAX_PERMIT_EXPIRY_S} seconds", field="permitExpiry"
            )
        permit_expiry = raw_expiry
    if use_permit:
        if (
            origin_chain_id == VENUE_CHAIN_ID
            or origin.asset != "USDC"
            or origin.is_native
            or origin_family != "evm"
        ):
            raise invalid(
                "usePermit is supported for USDC on an EVM origin chain only",
                "UNSUPPORTED_ROUTE",
                field="usePermit",
            )
        if use_deposit_address:
            raise invalid("usePermit and useDepositAddress cannot be combined", field="usePermit")

    slippage = None
    if _present(body, "slippageTolerance"):
        slippage = _unsigned(
            body["slippageTolerance"], "slippageTolerance", "INVALID_SLIPPAGE_TOLERANCE"
        )
        if slippage > 10_000:
            raise invalid(
                "slippageTolerance is in basis points and must be at most 10000 (100%)",
                "INVALID_SLIPPAGE_TOLERANCE",
                field="slippageTolerance",
            )

    referrer = body.get("referrer")
    if referrer is not None and (not isinstance(referrer, str) or len(referrer) > 256):
        raise invalid("referrer must be a string of at most 256 characters", field="referrer")

    app_fees = _app_fees(body.get("appFees"))
    calls = parse_txs(body.get("txs"), destination_chain_id)
    if calls_value(calls) and not destination.is_native:
        raise invalid(
            "txs with a value need the destination chain's native currency as the output "
            "(the calls' value is paid out of it)",
            "UNSUPPORTED_ROUTE",
            field="txs",
        )

    if amount == 0:
        raise invalid("amount must be greater than zero", "AMOUNT_TOO_LOW", field="amount")

    return QuoteParams(
        user=user,
        origin_chain_id=origin_chain_id,
        destination_chain_id=destination_chain_id,
        origin=origin,
        destination=destination,
        amount=amount,
        trade_type=trade_type,
        recipient=recipient,
        refund_to=refund_to,
        protocol_version=protocol_version,
        topup_gas=topup_gas,
        topup_gas_micro_usd=topup_micro if topup_gas else 0,
        subsidize_fees=subsidize,
        sponsored_components=components if subsidize else (),
        max_subsidization_micro_usd=max_subsidization,
        use_deposit_address=use_deposit_address,
        strict=strict,
        use_permit=use_permit,
        permit_expiry_s=permit_expiry,
        slippage_bps=slippage,
        referrer=referrer,
        app_fees=app_fees,
        solana=solana,
        calls=calls,
        force_solver_execution=_bool(body, "forceSolverExecution"),
    )


SOLANA_FIELDS = (
    "depositFeePayer",
    "includeComputeUnitLimit",
    "maxRouteLength",
    "useSharedAccounts",
    "subsidizeRent",
)


def _solana_options(
    body: dict[str, Any], origin_family: str, user: str, subsidize: bool
) -> SolanaOptions | None:
    """The five Solana body fields: held to their types, and to a Solana origin."""
    given = [name for name in SOLANA_FIELDS if _present(body, name)]
    if origin_family != "svm":
        if "depositFeePayer" in given:
            raise invalid(
                "depositFeePayer is for Solana origins only",
                "UNSUPPORTED_ROUTE",
                field="depositFeePayer",
            )
        return None
    payer = _address(body, "depositFeePayer", "INVALID_ADDRESS", required=False, family="svm")
    if payer is not None and payer == user:
        raise invalid(
            "depositFeePayer must differ from user (it is a second signer)",
            field="depositFeePayer",
        )
    route = None
    if _present(body, "maxRouteLength"):
        route = _unsigned(body["maxRouteLength"], "maxRouteLength")
        if route == 0:
            raise invalid("maxRouteLength must be at least 1", field="maxRouteLength")
    raw_components = body.get("sponsoredFeeComponents")
    rent = _bool(body, "subsidizeRent") or (
        subsidize and isinstance(raw_components, list) and "rent" in raw_components
    )
    return SolanaOptions(
        deposit_fee_payer=payer,
        include_compute_unit_limit=_bool(body, "includeComputeUnitLimit"),
        max_route_length=route,
        use_shared_accounts=_bool(body, "useSharedAccounts"),
        sponsor_rent=rent,
    )


def _app_fees(raw: Any) -> tuple[tuple[str, int], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise invalid("appFees must be an array of {recipient, fee}", field="appFees")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise invalid(f"appFees[{i}] must be an object {{recipient, fee}}", field="appFees")
        recipient = item.get("recipient")
        if not isinstance(recipient, str) or not ADDRESS_RE.fullmatch(recipient):
            raise invalid(f"appFees[{i}].recipient must be an address", "INVALID_ADDRESS")
        fee = _unsigned(item.get("fee"), f"appFees[{i}].fee")
        out.append((recipient, fee))
    if sum(fee for _, fee in out) >= 10_000:
        raise invalid("appFees must total less than 10000 basis points", field="appFees")
    return tuple(out)


__all__ = ["QuoteParams", "ServiceError", "parse_quote_body"]
