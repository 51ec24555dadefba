"""What every guard shares: the result type, refusing, and small helpers on wire values."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.models import (
    ChainsResponse,
    Quote,
    Step,
    StepItem,
)
from crossdeck.models.addresses import same_address
from crossdeck.models.units import quantity

APPROVE_SELECTOR = "0x095ea7b3"
TRANSFER_SELECTOR = "0xa9059cbb"
PERMIT_TYPES = frozenset({"ReceiveWithAuthorization", "TransferWithAuthorization"})
NONCE_MAPPING = "NonceMapping"
# Permit2 transfer permits: what they move cannot be checked against a quote without
# paymentDetails, and a signed one moves tokens without another prompt
PERMIT2_TYPES = frozenset(
    {
        "PermitTransferFrom",
        "PermitBatchTransferFrom",
        "PermitWitnessTransferFrom",
        "PermitBatchWitnessTransferFrom",
        "PermitSingle",
        "PermitBatch",
    }
)
# an approval this large is a standing allowance (2^256-1, Permit2's 2^160-1), not one payment
UNLIMITED_ALLOWANCE = 2**128
_EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
# item data of chains this client does not sign for, by the key that gives them away
_FOREIGN_ITEM_KEYS = {
    # a Solana item without `instructions` (they make it a Solana item: `classify_item_data`)
    "addressLookupTableAddresses": "a Solana transaction without instructions",
}


@dataclass(frozen=True)
class GuardResult:
    """One check's verdict: its name, whether it passed, and why, in words."""

    name: str
    ok: bool
    message: str
    where: str | None = None  # e.g. "step 'deposit' item 1"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "message": self.message, "where": self.where}

    def __str__(self) -> str:
        mark = "ok" if self.ok else "FAILED"
        where = f" [{self.where}]" if self.where else ""
        return f"{self.name}: {mark}{where}: {self.message}"


class GuardRefused(CrossdeckError):
    """One or more pre-sign guards failed; nothing was signed."""

    exit_code = ExitCode.GUARD_REFUSED

    def __init__(self, failures: Sequence[GuardResult]) -> None:
        self.failures = tuple(failures)
        lines = "; ".join(f"{f.name}: {f.message}" for f in self.failures)
        super().__init__(
            f"refused before signing, {len(self.failures)} guard(s) failed: {lines}",
            hint="nothing was signed or sent; do not execute this quote",
        )


def refused(name: str, message: str, where: str) -> GuardRefused:
    """One guard's refusal, for what a runner checks itself right before signing (no key, no
    RPC, a key that cannot sign): raised as a failed list of guards is, so it reads the same."""
    return GuardRefused([GuardResult(name, False, message, where)])


def failures(results: Collection[GuardResult]) -> list[GuardResult]:
    return [r for r in results if not r.ok]


def require(results: Collection[GuardResult]) -> None:
    """Raise `GuardRefused` naming every failed guard."""
    failed = failures(results)
    if failed:
        raise GuardRefused(failed)


# -- small helpers ------------------------------------------------------------------------


def _same_address(a: Any, b: Any) -> bool:
    """One address, in its family's terms: EVM and bech32 without regard to case, base58
    (Solana keys and mints, Bitcoin legacy addresses) exactly."""
    return same_address(a, b)


_int = quantity  # the guards read a quote's integers as the signer and the gateway do


def _decimal(text: Any) -> Decimal | None:
    if not isinstance(text, str | int) or isinstance(text, bool):
        return None
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _where(step: Step, item_index: int) -> str:
    return f"step '{step.id}' item {item_index}"


def _items(quote: Quote) -> Iterator[tuple[int, Step, int, StepItem]]:
    for step_index, step in enumerate(quote.steps):
        for item_index, item in enumerate(step.items):
            yield step_index, step, item_index, item


def _ok(name: str, message: str, where: str | None = None) -> GuardResult:
    return GuardResult(name, True, message, where)


def _fail(name: str, message: str, where: str | None = None) -> GuardResult:
    return GuardResult(name, False, message, where)


@dataclass(frozen=True)
class PaymentChain:
    """paymentDetails.chainId resolved to a chain id, or why it could not be."""

    name: str | None  # as the quote gives it ("base"; older answers: "8453")
    chain_id: int | None
    problem: str | None = None


def payment_chain(quote: Quote, chains: ChainsResponse | None) -> PaymentChain:
    """The chain id the payment is on. The quote names the chain by the protocol's name; the
    `/chains` answer says which id carries that name (`protocol.v2.chainId`). A digit string is
    the id itself (older answers, and the contract's seed)."""
    payment = quote.payment_details
    name = payment.chain_id if payment else None
    if name is None:
        return PaymentChain(None, None)
    text = name.strip()
    if text.isdigit():
        return PaymentChain(name, int(text))
    if chains is None:
        return PaymentChain(
            name,
            None,
            f"paymentDetails.chainId {name!r} is a chain name, and there is no /chains answer "
            "to map it to a chain id",
        )
    chain = chains.by_protocol_name(text)
    if chain is None or chain.id is None:
        return PaymentChain(
            name,
            None,
            f"paymentDetails.chainId {name!r} names no chain /chains knows (no chain has "
            f"protocol.v2.chainId {name!r}); refusing to guess which chain pays",
        )
    return PaymentChain(name, chain.id)


def _payment_chain_guard(paid: PaymentChain) -> list[GuardResult]:
    if paid.name is None:
        return []
    if paid.problem is not None:
        return [_fail("payment-chain", paid.problem)]
    return [
        _ok("payment-chain", f"pays on {paid.name!r}, which /chains says is chain {paid.chain_id}")
    ]
