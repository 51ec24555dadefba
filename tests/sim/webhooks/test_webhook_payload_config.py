"""build_status_payload (spec 6.1) and the operator's webhook configuration (file and flags)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crossdeck.sim.webhooks import (
    WebhookConfigError,
    build_status_payload,
    encode_body,
    load_webhook_config,
    parse_webhook_flags,
    sign_body,
)
from helpers.webhook_signing import independent_signature

RID = "0x" + "cd" * 32


def test_payload_has_exactly_the_6_1_fields_in_order() -> None:
    p = build_status_payload(
        request_id=RID,
        status="success",
        origin_chain_id=8453,
        destination_chain_id=1337,
        in_tx_hashes=["0x01"],
        tx_hashes=["0x02"],
        updated_at_ms=1_700_000_000_123,
        timestamp_ms=1_700_000_000_456,
    )
    assert list(p) == ["event", "timestamp", "data"]
    assert p["event"] == "request.status.updated"
    assert p["timestamp"] == 1_700_000_000_456
    assert p["data"] == {
        "status": "success",
        "inTxHashes": ["0x01"],
        "txHashes": ["0x02"],
        "updatedAt": 1_700_000_000_123,
        "originChainId": 8453,
        "destinationChainId": 1337,
        "depositAddress": None,
        "requestId": RID,
        "details": None,
        "failReason": "N/A",
        "refundFailReason": "N/A",
    }
    assert list(p["data"]) == [
        "status", "inTxHashes", "txHashes", "updatedAt", "originChainId", "destinationChainId",
        "depositAddress", "requestId", "details", "failReason", "refundFailReason",
    ]  # fmt: skip


def test_timestamps_default_to_now_in_milliseconds() -> None:
    p = build_status_payload(
        request_id=RID, status="waiting", origin_chain_id=1, destination_chain_id=2
    )
    assert isinstance(p["timestamp"], int) and p["timestamp"] > 1_600_000_000_000
    assert isinstance(p["data"]["updatedAt"], int) and p["data"]["updatedAt"] > 1_600_000_000_000


def test_fail_reason_rules() -> None:
    common = {"request_id": RID, "origin_chain_id": 1337, "destination_chain_id": 8453}
    assert build_status_payload(status="failure", **common)["data"]["failReason"] == "UNKNOWN"
    refund = build_status_payload(
        status="refund", fail_reason="DOUBLE_SPEND", refund_fail_reason="AMOUNT_TOO_LOW_TO_REFUND",
        details={"revert": "0x"}, **common,
    )  # fmt: skip
    assert refund["data"]["failReason"] == "DOUBLE_SPEND"
    assert refund["data"]["refundFailReason"] == "AMOUNT_TOO_LOW_TO_REFUND"
    assert refund["data"]["details"] == {"revert": "0x"}
    pending = build_status_payload(status="pending", fail_reason="N/A", **common)
    assert pending["data"]["failReason"] == "N/A"
    with pytest.raises(ValueError, match="N/A"):
        build_status_payload(status="success", fail_reason="SLIPPAGE", **common)
    with pytest.raises(ValueError, match="status must be one of"):
        build_status_payload(status="done", **common)


def test_deposit_address_object_and_referrer() -> None:
    p = build_status_payload(
        request_id=RID,
        status="pending",
        origin_chain_id=8453,
        destination_chain_id=1337,
        deposit_address={"address": "0x" + "12" * 20, "depositAddressType": "strict"},
        referrer="crossdeck",
    )
    assert p["data"]["depositAddress"] == {
        "address": "0x" + "12" * 20,
        "depositAddressType": "strict",
        "depositor": None,
        "depositTxHash": None,
    }
    assert p["data"]["referrer"] == "crossdeck"
    with pytest.raises(ValueError, match="open' or 'strict"):
        build_status_payload(
            request_id=RID, status="pending", origin_chain_id=1, destination_chain_id=2,
            deposit_address={"address": "0x", "depositAddressType": "loose"},
        )  # fmt: skip


@given(key=st.text(min_size=1, max_size=40), stamp=st.integers(0, 2**40), note=st.text())
def test_signature_matches_an_independent_hmac(key: str, stamp: int, note: str) -> None:
    body = encode_body({"event": "request.status.updated", "data": {"details": note}})
    ts = str(stamp)
    assert sign_body(key, ts, body) == independent_signature(key, ts, body)


def write(tmp_path, text: str):
    path = tmp_path / "webhooks.toml"
    path.write_text(text)
    return path


def test_config_file_with_headers_and_env_key(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DESK_B_KEY", "key-from-env")
    path = write(
        tmp_path,
        """
[[webhook]]
api_key = "key-a"
url = "https://hooks.example/a"
headers = { Authorization = "Bearer t0k", "X-Desk" = "a" }

[[webhook]]
api_key_env = "DESK_B_KEY"
url = "http://127.0.0.1:9000/b"
""",
    )
    endpoints, headers = load_webhook_config(path)
    assert endpoints == {
        "key-a": "https://hooks.example/a",
        "key-from-env": "http://127.0.0.1:9000/b",
    }
    assert headers == {"key-a": {"Authorization": "Bearer t0k", "X-Desk": "a"}}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[[webhook]]\nurl = "https://x/y"\n', "exactly one of api_key or api_key_env"),
        ('[[webhook]]\napi_key = "k"\n', "missing url"),
        ('[[webhook]]\napi_key = "k"\nurl = "ftp://x/y"\n', "http(s) URL"),
        ('[[webhook]]\napi_key = "k"\nurl = "https://x"\nsecret = 1\n', "unknown field"),
        (
            '[[webhook]]\napi_key = "k"\nurl = "https://x"\n[[webhook]]\napi_key = "k"\n'
            'url = "https://y"\n',
            "same API key",
        ),
        (
            '[[webhook]]\napi_key = "k"\nurl = "https://x"\nheaders = { "Bad Name" = "v" }\n',
            "invalid header name",
        ),
        (
            '[[webhook]]\napi_key = "k"\nurl = "https://x"\nheaders = { Content-Type = "t" }\n',
            "set by the sender",
        ),
        ('[[webhook]]\napi_key_env = "CROSSDECK_TEST_UNSET_VAR"\nurl = "https://x"\n', "not set"),
        ("[webhook]\napi_key = 'k'\n", "[[webhook]]"),
        ("[[webhook]\n", "not valid TOML"),
        ("[hooks]\n", "unknown section"),
    ],
)
def test_config_file_errors_name_the_entry(tmp_path, text: str, fragment: str) -> None:
    with pytest.raises(WebhookConfigError) as info:
        load_webhook_config(write(tmp_path, text))
    assert fragment in str(info.value)
    assert "webhooks.toml" in str(info.value)


def test_missing_config_file(tmp_path) -> None:
    with pytest.raises(WebhookConfigError, match="cannot read"):
        load_webhook_config(tmp_path / "absent.toml")


def test_secrets_stay_out_of_config_errors(tmp_path) -> None:
    text = '[[webhook]]\napi_key = "sk-live-123"\nurl = "nope"\n'
    with pytest.raises(WebhookConfigError) as info:
        load_webhook_config(write(tmp_path, text))
    assert "sk-live-123" not in str(info.value)


def test_cli_flags() -> None:
    endpoints, headers = parse_webhook_flags(
        ["key-a=https://hooks.example/a?x=1", "key-b=http://127.0.0.1:8000/b"],
        ["key-a=Authorization:Bearer abc:def", "key-a=X-Desk: a"],
    )
    assert endpoints == {"key-a": "https://hooks.example/a?x=1", "key-b": "http://127.0.0.1:8000/b"}
    assert headers == {"key-a": {"Authorization": "Bearer abc:def", "X-Desk": "a"}}


@pytest.mark.parametrize(
    ("hooks", "extra", "fragment"),
    [
        (["no-equals-sign"], [], "API_KEY=URL"),
        (["=https://x"], [], "API_KEY=URL"),
        (["k=notaurl"], [], "http(s) URL"),
        (["k=https://x", "k=https://y"], [], "same API key"),
        (["k=https://x"], ["k=NoColon"], "API_KEY=NAME:VALUE"),
        (["k=https://x"], ["other=A:b"], "no --webhook"),
        (["k=https://x"], ["k=X-Signature-Timestamp:1"], "set by the sender"),
    ],
)
def test_cli_flag_errors(hooks, extra, fragment) -> None:
    with pytest.raises(WebhookConfigError) as info:
        parse_webhook_flags(hooks, extra)
    assert fragment in str(info.value)


def test_a_header_flag_may_name_a_key_configured_in_a_file() -> None:
    endpoints, headers = parse_webhook_flags([], ["key-f=X-Desk:a"], configured={"key-f"})
    assert endpoints == {}  # the file's endpoint is merged by the caller
    assert headers == {"key-f": {"X-Desk": "a"}}
    with pytest.raises(WebhookConfigError, match="no --webhook"):
        parse_webhook_flags([], ["other=X-Desk:a"], configured={"key-f"})
