from datetime import UTC, datetime

import pytest
from models_support import load

from crossdeck.base.errors import InputError
from crossdeck.models import (
    STATUS_UPDATED_EVENT,
    ErrorBody,
    RequestRecord,
    RequestsPage,
    RequestsQuery,
    RequestsQueryError,
    RequestStatus,
    StatusV1,
    StatusV3,
    WebhookEvent,
    is_final,
    parse_status,
)


def test_final_statuses() -> None:
    assert {s for s in RequestStatus if s.is_final} == {
        RequestStatus.SUCCESS,
        RequestStatus.REFUND,
        RequestStatus.FALLBACK,
    }
    # failure can still turn into pending -> refund: not final
    assert not RequestStatus.FAILURE.is_final
    assert RequestStatus.FAILURE.is_failure
    assert RequestStatus.FALLBACK.is_refunded and RequestStatus.REFUND.is_refunded
    assert is_final("success") and not is_final("pending") and not is_final("bogus")
    assert not is_final(None)
    assert parse_status("delayed") is RequestStatus.DELAYED
    assert parse_status("received") is RequestStatus.RECEIVED
    assert parse_status("bogus") is None


def test_statuses_only_a_deposit_leads_to() -> None:
    assert {s.value for s in RequestStatus if s.follows_a_deposit} == {
        "depositing",
        "pending",
        "submitted",
        "success",
        "refund",
    }
    # failure and an unknown status say nothing about a deposit
    assert not StatusV3.model_validate({"status": "failure"}).follows_a_deposit
    assert not StatusV3.model_validate({"status": "bogus"}).follows_a_deposit
    assert StatusV3.model_validate({"status": "pending"}).follows_a_deposit


def test_status_v1_and_v3() -> None:
    v1 = StatusV1.from_wire(load("status_v1.json"))
    assert v1.known_status is RequestStatus.FALLBACK and v1.is_final
    assert v1.time == 1732000012345
    v3 = StatusV3.from_wire(load("status_v3.json"))
    assert v3.status == RequestStatus.REFUND and v3.is_final
    assert v3.fail_reason == "DOUBLE_SPEND" and v3.refund_fail_reason == "N/A"
    assert v3.updated_at == 1732000012345
    assert v3.details == {"revert": "0x08c379a0"}


def test_unknown_status_is_kept_as_text() -> None:
    v3 = StatusV3.from_wire({"status": "settling"})
    assert v3.status == "settling" and v3.known_status is None and not v3.is_final
    assert v3.to_wire() == {"status": "settling"}


def test_webhook_event() -> None:
    event = WebhookEvent.from_wire(load("webhook_event.json"))
    assert event.is_status_update and event.event == STATUS_UPDATED_EVENT
    assert event.timestamp == 1732000012999
    data = event.data
    assert data is not None
    assert data.known_status is RequestStatus.FAILURE and not data.is_final
    assert data.deposit_address is not None
    assert data.deposit_address.deposit_address_type == "open"
    assert data.deposit_address.depositor is None
    assert data.details is None and data.fail_reason == "UNKNOWN"
    assert data.referrer == "crossdeck"
    no_deposit_address = load("webhook_event.json")
    no_deposit_address["data"]["depositAddress"] = None
    parsed = WebhookEvent.from_wire(no_deposit_address)
    assert parsed.data is not None and parsed.data.deposit_address is None
    assert parsed.to_wire() == no_deposit_address


def test_request_record_fields() -> None:
    record = RequestRecord.from_wire(load("request_record.json"))
    assert record.known_status is RequestStatus.SUCCESS and record.is_final
    assert record.created_at == datetime(2024, 11, 19, 7, 6, 40, 123000, tzinfo=UTC)
    assert record.updated_at is not None and record.updated_at > record.created_at
    assert record.deposit_address is not None
    assert record.deposit_address.deposit_address_type == "strict"
    data = record.data
    assert data is not None and data.fees is not None and data.fees_usd is not None
    assert data.fees.gas == 21_000_000_000_000 and data.fees_usd.fixed == "3000"
    assert data.fees_usd.decimal("fixed") == 3000  # decimal USD text, as the service writes it
    assert data.price == 1_000_000
    assert data.in_txs is not None and data.in_txs[0].fee == 21_000_000_000_000
    assert data.in_txs[0].data is not None and data.in_txs[0].data.from_ is not None
    assert data.in_txs[0].timestamp == 1732000000
    assert record.in_tx_hashes == ["0x" + "11" * 32]
    assert record.out_tx_hashes == ["0x" + "22" * 32]


def test_timestamps_keep_their_text_and_format_new_ones_like_the_service() -> None:
    page = RequestsPage.from_wire(load("requests_page.json"))
    second = page.requests[1]
    assert second.to_wire()["updatedAt"] == "2024-11-19T08:00:09+00:00"
    assert page.has_more
    built = RequestRecord(created_at=datetime(2024, 1, 2, 3, 4, 5, 678900, tzinfo=UTC))
    assert built.to_wire() == {"createdAt": "2024-01-02T03:04:05.678Z"}


def test_error_body() -> None:
    err = ErrorBody.from_wire(load("error_body.json"))
    assert err.error_code == "AMOUNT_TOO_LOW" and not err.is_transient
    assert err.error_data == {"minimum": "1000"}
    assert ErrorBody.from_wire({"message": "x", "errorCode": "SERVICE_UNAVAILABLE"}).is_transient


# --- RequestsQuery (GET /requests/v2) ---


def test_query_to_params() -> None:
    query = RequestsQuery.build(
        limit=50,
        continuation="abc",
        user="0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        hash="0x" + "11" * 32,
        originChainId=8453,
        destinationChainId=1337,
        privateChainsToInclude="uuid-1,uuid-2",
        id="0x" + "ab" * 32,
        orderId="0x" + "cd" * 32,
        includeOrderData=True,
        startTimestamp=1700000000,
        endTimestamp=1800000000,
        startBlock=1,
        endBlock=2,
        chainId=8453,
        referrer="crossdeck",
        depositAddress="0x1111111111111111111111111111111111111111",
        includeChildRequests=False,
        includeAuthenticatedData=True,
        status="refund",
        apiKey="key-id",
        sortBy="updatedAt",
        sortDirection="asc",
    )
    params = query.to_params()
    assert params["limit"] == "50"
    assert params["includeOrderData"] == "true"
    assert params["includeChildRequests"] == "false"
    assert params["chainId"] == "8453"
    assert params["status"] == "refund"
    assert params["sortDirection"] == "asc"
    assert all(isinstance(v, str) for v in params.values())
    assert set(params) == {f.alias for f in RequestsQuery.model_fields.values()}


def test_query_defaults_are_left_to_the_server() -> None:
    assert RequestsQuery.build().to_params() == {}
    assert RequestsQuery().limit is None


def test_next_page_keeps_filters() -> None:
    query = RequestsQuery.build(user="0xabc", limit=10)
    assert query.next_page("cursor").to_params() == {
        "user": "0xabc",
        "limit": "10",
        "continuation": "cursor",
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("limit", 0),
        ("limit", 51),
        ("status", "waiting"),
        ("sortBy", "id"),
        ("sortDirection", "up"),
        ("startTimestamp", -1),
        ("originChainId", "base"),
        ("unknownFilter", 1),
    ],
)
def test_query_rejects_by_field(field: str, value: object) -> None:
    with pytest.raises(RequestsQueryError) as info:
        RequestsQuery.build(**{field: value})
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")
    assert isinstance(info.value, InputError)


@pytest.mark.parametrize("status", ["success", "failure", "refund", "pending", "depositing"])
def test_query_statuses(status: str) -> None:
    assert RequestsQuery.build(status=status).to_params() == {"status": status}


def test_timestamp_text_survives_copies() -> None:
    import pickle

    raw = {"createdAt": "2024-11-19T08:00:09+00:00", "updatedAt": "2024-11-19T08:00:10.5Z"}
    record = RequestRecord.from_wire(raw)
    assert record.model_copy(deep=True).to_wire() == raw
    assert pickle.loads(pickle.dumps(record)).to_wire() == raw
