"""Quote steps and their items (spec 2.2 'steps', 4.4 venue flows).

An item's `data` is one of three known shapes, told apart by its keys: an EVM transaction, a
signature request (`sign` + `post`), or a venue deposit (`action` + `eip712Types`). Anything else
is kept as `UnknownItemData` so that the quote still parses and the executor can refuse it with a
clear message instead of crashing here.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Discriminator, Field, Tag

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.base import IntStr, WireModel, new_dict, new_list
from crossdeck.models.bitcoin import BitcoinPsbtData
from crossdeck.models.solana import SolanaTransactionData

ItemDataKind = Literal["transaction", "signature", "venue_deposit", "solana", "bitcoin", "unknown"]


class ItemKindError(CrossdeckError):
    """A step item was asked for data of a kind it does not carry."""


class ItemCheck(WireModel):
    endpoint: str | None = None
    method: str | None = None


class TransactionData(WireModel):
    """An EVM transaction to send from the wallet."""

    from_: str | None = Field(default=None, alias="from")
    to: str | None = None
    data: str | None = None
    value: IntStr | None = None
    max_fee_per_gas: IntStr | None = None
    max_priority_fee_per_gas: IntStr | None = None
    chain_id: int | None = None
    gas: IntStr | None = None

    def call_from(self, sender: str) -> dict[str, Any]:
        """The transaction as an eth_call / eth_estimateGas from `sender`, with the value and
        calldata the quote states (none stated: 0 and '0x')."""
        return {"from": sender, "to": self.to, "value": self.value or 0, "data": self.data or "0x"}


class SignPayload(WireModel):
    signature_kind: str | None = None  # "eip712" or "eip191"
    domain: dict[str, Any] | None = None
    types: dict[str, Any] | None = None
    primary_type: str | None = None
    value: dict[str, Any] | None = None
    message: str | None = None  # eip191 only

    def typed_data(self) -> dict[str, Any]:
        """The EIP-712 message this asks to be signed, as signers take it (`domain`, `types`,
        `primaryType`, `message`), copied: changing it changes nothing here."""
        return {
            "domain": copy.deepcopy(self.domain or {}),
            "types": copy.deepcopy(self.types or {}),
            "primaryType": self.primary_type,
            "message": copy.deepcopy(self.value or {}),
        }


class PostPayload(WireModel):
    endpoint: str | None = None
    method: str | None = None
    body: dict[str, Any] | None = None


class SignatureData(WireModel):
    sign: SignPayload | None = None
    post: PostPayload | None = None


class SendAssetAction(WireModel):
    """The venue action to sign and submit. `parameters` stays a plain ordered dict because one
    of its keys carries the venue's brand (e.g. `venueChain`); typed accessors read the rest."""

    type: str | None = None
    parameters: dict[str, Any] = Field(default_factory=new_dict)

    def _text(self, key: str) -> str | None:
        value = self.parameters.get(key)
        return None if value is None else str(value)

    @property
    def destination(self) -> str | None:
        return self._text("destination")

    @property
    def token(self) -> str | None:
        return self._text("token")

    @property
    def amount(self) -> str | None:
        """Decimal string in human units, exactly as sent."""
        return self._text("amount")

    @property
    def nonce(self) -> int | None:
        value = self.parameters.get("nonce")
        if value is None or isinstance(value, bool):
            return None
        try:
            return int(value)
        except (TypeError, ValueError):
            return None

    @property
    def source_dex(self) -> str | None:
        return self._text("sourceDex")

    @property
    def destination_dex(self) -> str | None:
        return self._text("destinationDex")

    @property
    def from_sub_account(self) -> str | None:
        return self._text("fromSubAccount")

    @property
    def chain_field(self) -> str | None:
        """The brand-bearing '<venue>Chain' parameter name (e.g. 'venueChain')."""
        for key in self.parameters:
            if key.endswith("Chain") and key != "signatureChain":
                return key
        return None

    @property
    def chain_value(self) -> str | None:
        field = self.chain_field
        return None if field is None else self._text(field)


class VenueDepositData(WireModel):
    action: SendAssetAction | None = None
    nonce: int | None = None
    eip712_types: dict[str, list[dict[str, Any]]] | None = None
    eip712_primary_type: str | None = None

    @property
    def venue_name(self) -> str | None:
        """The venue's brand: the primary type's prefix before 'Transaction:'."""
        primary = self.eip712_primary_type or ""
        prefix, sep, _ = primary.partition("Transaction:")
        return prefix if sep and prefix else None

    @property
    def sign_domain_name(self) -> str | None:
        """'<venue>SignTransaction', derived from the quote rather than hard-coded."""
        name = self.venue_name
        return None if name is None else f"{name}SignTransaction"


class UnknownItemData(WireModel):
    """Item data of a shape this client does not know; kept verbatim."""


_MODEL_KINDS: dict[type, ItemDataKind] = {
    TransactionData: "transaction",
    SignatureData: "signature",
    VenueDepositData: "venue_deposit",
    SolanaTransactionData: "solana",
    BitcoinPsbtData: "bitcoin",
}


def classify_item_data(data: Any) -> ItemDataKind:
    """Which kind of item data a decoded JSON object is (by its keys)."""
    if isinstance(data, WireModel):
        return _MODEL_KINDS.get(type(data), "unknown")
    if not isinstance(data, dict):
        return "unknown"
    if "sign" in data or "post" in data:
        return "signature"
    action = data.get("action")
    if "eip712Types" in data or "eip712PrimaryType" in data:
        return "venue_deposit"
    if isinstance(action, dict) and "parameters" in action:
        return "venue_deposit"
    if "to" in data:
        return "transaction"
    if "instructions" in data:
        return "solana"
    if isinstance(data.get("psbt"), str):
        return "bitcoin"
    return "unknown"


def _item_tag(data: Any) -> str:
    # data that is not even an object (a bare string, a list) is kept as it came
    if isinstance(data, dict | WireModel):
        return classify_item_data(data)
    return "raw"


ItemData = Annotated[
    Annotated[TransactionData, Tag("transaction")]
    | Annotated[SignatureData, Tag("signature")]
    | Annotated[VenueDepositData, Tag("venue_deposit")]
    | Annotated[SolanaTransactionData, Tag("solana")]
    | Annotated[BitcoinPsbtData, Tag("bitcoin")]
    | Annotated[UnknownItemData, Tag("unknown")]
    | Annotated[Any, Tag("raw")],
    Discriminator(_item_tag),
]
"""An item's data: one of the four known shapes, else `UnknownItemData` (or the raw value)."""


_Data = TypeVar("_Data", bound=WireModel)


class StepItem(WireModel):
    status: str | None = None
    data: ItemData | None = None
    check: ItemCheck | None = None

    @property
    def kind_of_data(self) -> ItemDataKind:
        return classify_item_data(self.data) if self.data is not None else "unknown"

    def _expect(self, kind: ItemDataKind, model: type[_Data]) -> _Data:
        actual = self.kind_of_data
        if actual != kind or not isinstance(self.data, model):
            raise ItemKindError(
                f"step item carries {actual} data, not {kind} data",
                hint="the quote's step does not match what this flow expects",
            )
        return self.data

    def as_transaction(self) -> TransactionData:
        return self._expect("transaction", TransactionData)

    def as_signature(self) -> SignatureData:
        return self._expect("signature", SignatureData)

    def as_venue_deposit(self) -> VenueDepositData:
        return self._expect("venue_deposit", VenueDepositData)

    def as_solana(self) -> SolanaTransactionData:
        return self._expect("solana", SolanaTransactionData)

    def as_bitcoin(self) -> BitcoinPsbtData:
        return self._expect("bitcoin", BitcoinPsbtData)

    @property
    def is_incomplete(self) -> bool:
        return self.status == "incomplete"


class Step(WireModel):
    id: str | None = None
    action: str | None = None
    description: str | None = None
    kind: str | None = None
    request_id: str | None = None
    # deposit-address quotes: the address the transfer goes to ("" on the other steps); the
    # quote's paymentDetails.depository stays the depository contract behind it
    deposit_address: str | None = None
    items: list[StepItem] = Field(default_factory=new_list)
