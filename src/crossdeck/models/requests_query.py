"""The GET /requests/v2 query (spec 4.2)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from crossdeck.models.errors import FieldInputError, raise_field_error

HistoryStatus = Literal["success", "failure", "refund", "pending", "depositing"]


def _chain_id_text(value: object) -> object:
    # the spec types this filter as a string; a chain id given as an int means the same
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


class RequestsQueryError(FieldInputError):
    """A history filter is invalid; `field` names it (wire name)."""


class RequestsQuery(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    limit: int | None = Field(default=None, ge=1, le=50)  # None: the server's default, 20
    continuation: str | None = None
    user: str | None = None
    hash: str | None = None
    origin_chain_id: int | None = Field(default=None, ge=0)
    destination_chain_id: int | None = Field(default=None, ge=0)
    private_chains_to_include: str | None = None
    id: str | None = None
    order_id: str | None = None
    include_order_data: bool | None = None
    start_timestamp: int | None = Field(default=None, ge=0)
    end_timestamp: int | None = Field(default=None, ge=0)
    start_block: int | None = Field(default=None, ge=0)
    end_block: int | None = Field(default=None, ge=0)
    chain_id: Annotated[str, BeforeValidator(_chain_id_text)] | None = None
    referrer: str | None = None
    deposit_address: str | None = None
    include_child_requests: bool | None = None
    include_authenticated_data: bool | None = None
    status: HistoryStatus | None = None
    api_key: str | None = Field(default=None, repr=False)  # an API key: never in a repr
    sort_by: Literal["createdAt", "updatedAt"] | None = None
    sort_direction: Literal["asc", "desc"] | None = None

    @classmethod
    def build(cls, **fields: Any) -> Self:
        """Validate the filters (snake_case or camelCase); RequestsQueryError names the field."""
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            raise_field_error(exc, cls, RequestsQueryError)
            raise

    def to_params(self) -> dict[str, str]:
        """Query parameters: camelCase names, booleans as 'true'/'false', None left out."""
        params: dict[str, str] = {}
        for name, info in type(self).model_fields.items():
            value = getattr(self, name)
            if value is None:
                continue
            key = info.alias or name
            params[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return params

    def next_page(self, continuation: str) -> Self:
        return self.model_copy(update={"continuation": continuation})
