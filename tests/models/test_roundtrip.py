"""Every model parses a spec-shaped example with every field present and gives it back unchanged."""

import json
from typing import Any

import pytest
from models_support import load
from pydantic import BaseModel, TypeAdapter

from crossdeck.models import (
    ChainsResponse,
    ErrorBody,
    LenientWireModel,
    Quote,
    RequestRecord,
    RequestsPage,
    StatusV1,
    StatusV3,
    StepItem,
    WebhookEvent,
    WireModel,
)

CASES: list[tuple[str, type[WireModel]]] = [
    ("quote_evm.json", Quote),
    ("quote_venue_withdrawal.json", Quote),
    ("quote_venue_withdrawal_public.json", Quote),
    # a /quote/v3 answer as the one reader holds it: v3's swap fee among v2's members, and the
    # fees as sent kept beside them (models.quote_v3)
    ("quote_evm_read_from_v3.json", Quote),
    ("request_record.json", RequestRecord),
    ("requests_page.json", RequestsPage),
    ("status_v1.json", StatusV1),
    ("status_v3.json", StatusV3),
    ("webhook_event.json", WebhookEvent),
    ("chains.json", ChainsResponse),
    ("error_body.json", ErrorBody),
    # older answers carry the code under `code`, the execute endpoints under `error`
    ("error_body_older.json", ErrorBody),
    ("error_body_execute.json", ErrorBody),
]


@pytest.mark.parametrize(("name", "model"), CASES, ids=[c[0] for c in CASES])
def test_round_trips_to_the_same_json(name: str, model: type[WireModel]) -> None:
    raw = load(name)
    parsed = model.from_wire(raw)
    assert parsed.to_wire() == raw
    # and through JSON text too, as a client would receive it
    again = model.from_json(json.dumps(raw))
    assert json.loads(json.dumps(again.to_wire())) == raw


def test_step_items_of_every_shape_round_trip() -> None:
    raw = load("step_items_misc.json")
    items = TypeAdapter(list[StepItem]).validate_python(raw)
    assert [item.to_wire() for item in items] == raw


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("error_body.json", "AMOUNT_TOO_LOW"),
        ("error_body_older.json", "AMOUNT_TOO_LOW"),
        ("error_body_execute.json", "INVALID_SIGNATURE"),
    ],
)
def test_error_code_is_read_from_whichever_member_carries_it(name: str, code: str) -> None:
    assert ErrorBody.from_wire(load(name)).error_code == code


def _walk(value: Any, seen: dict[type, set[str]]) -> None:
    if isinstance(value, BaseModel):
        seen.setdefault(type(value), set()).update(value.model_fields_set)
        for name in type(value).model_fields:
            _walk(getattr(value, name), seen)
    elif isinstance(value, dict):
        for v in value.values():
            _walk(v, seen)
    elif isinstance(value, list):
        for v in value:
            _walk(v, seen)


def test_fixtures_exercise_every_field_of_every_model() -> None:
    seen: dict[type, set[str]] = {}
    for name, model in CASES:
        _walk(model.from_wire(load(name)), seen)
    _walk(TypeAdapter(list[StepItem]).validate_python(load("step_items_misc.json")), seen)
    missing = {
        cls.__name__: sorted(set(cls.model_fields) - fields)
        for cls, fields in seen.items()
        if set(cls.model_fields) - fields
    }
    assert missing == {}
    # and every response model class of the package was reached at least once
    import crossdeck.models as models

    wire_classes = {
        obj
        # by __all__: the package loads its names on first use, so vars() holds only those used
        for obj in (getattr(models, name) for name in models.__all__)
        if isinstance(obj, type)
        and issubclass(obj, WireModel)
        and obj not in (WireModel, LenientWireModel)
    }
    assert {c.__name__ for c in wire_classes - set(seen)} == set()


def test_unknown_fields_are_kept_at_every_level() -> None:
    raw = load("quote_evm.json")
    raw["newTopLevel"] = {"x": 1}
    raw["steps"][0]["items"][0]["data"]["authorizationList"] = [{"chainId": 1}]
    raw["details"]["currencyIn"]["currency"]["metadata"]["tags"] = ["stable"]
    raw["protocol"]["v2"]["paymentDetails"]["extraHint"] = "kept"
    quote = Quote.from_wire(raw)
    assert quote.extra_fields == {"newTopLevel": {"x": 1}}
    assert quote.to_wire() == raw


def test_record_partner_id_passes_through() -> None:
    record = RequestRecord.from_wire(load("request_record.json"))
    assert record.extra_fields == {"moonpayId": "6f1c3f2a-2b1d-4c0e-9a52-1f0b6d2e8c71"}


def test_minimal_and_empty_bodies_parse() -> None:
    # requiredness of the quote response is "not shown": nothing may be demanded
    assert Quote.from_wire({}).to_wire() == {}
    assert Quote.from_wire({}).steps == []
    assert RequestsPage.from_wire({"requests": []}).continuation is None
    assert WebhookEvent.from_wire({"event": "request.status.updated"}).data is None


def test_nulls_survive_the_round_trip() -> None:
    raw = {"requests": [{"id": "0x01", "depositAddress": None, "data": None}], "continuation": None}
    assert RequestsPage.from_wire(raw).to_wire() == raw
