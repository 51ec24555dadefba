"""`crossdeck webhook sign|verify|serve` end to end: CliRunner, and a real `serve` process."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from track_support import API_KEY, body_of, independent_signature, signed_headers, status_payload

from crossdeck.cli import main

ENV = {"TEST_WEBHOOK_KEY": API_KEY}
CROSSDECK = str(Path(sys.executable).with_name("crossdeck"))  # the installed console script
BODY = body_of(status_payload("0xcli", "success"))


def run(*args: str, input: bytes | None = None, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), input=input, env=env if env is not None else ENV)


def sign_headers(body: bytes, *extra: str) -> dict[str, str]:
    result = run(
        "--json", "webhook", "sign", "--api-key-env", "TEST_WEBHOOK_KEY", *extra, input=body
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_sign_prints_the_two_headers_matching_an_independent_hmac(tmp_path: Path) -> None:
    body_file = tmp_path / "body.json"
    body_file.write_bytes(BODY)
    result = run(
        "webhook", "sign", "--body-file", str(body_file), "--api-key-env", "TEST_WEBHOOK_KEY",
        "--timestamp", "1800000000",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "X-Signature-Timestamp: 1800000000",
        f"X-Signature-SHA256: {independent_signature(API_KEY, '1800000000', BODY)}",
    ]
    assert API_KEY not in result.output


def test_sign_then_verify_round_trip_from_stdin() -> None:
    headers = sign_headers(BODY)
    ts, sig = headers["X-Signature-Timestamp"], headers["X-Signature-SHA256"]
    assert abs(int(ts) - time.time()) < 60
    result = run(
        "webhook", "verify", "--timestamp", ts, "--signature", sig,
        "--api-key-env", "TEST_WEBHOOK_KEY", input=BODY,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "valid"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda body, ts, sig: (body + b"\n", ts, sig), "mismatch"),
        (lambda body, ts, sig: (body, str(int(ts) + 1), sig), "mismatch"),
        (lambda body, ts, sig: (body, ts, sig.upper()), "uppercase_hex"),
        (lambda body, ts, sig: (body, ts, sig[:40]), "bad_length"),
        (lambda body, ts, sig: (body, "soon", sig), "bad_timestamp"),
    ],
    ids=["tampered body", "other timestamp", "upper-case", "truncated", "bad timestamp"],
)
def test_verify_exits_1_with_the_reason(change, reason: str) -> None:
    headers = sign_headers(BODY)
    body, ts, sig = change(BODY, headers["X-Signature-Timestamp"], headers["X-Signature-SHA256"])
    result = run(
        "webhook", "verify", "--timestamp", ts, "--signature", sig,
        "--api-key-env", "TEST_WEBHOOK_KEY", input=body,
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.startswith(f"invalid: {reason}")
    assert result.stdout == ""


def test_verify_time_window_and_ignore_time() -> None:
    old = str(int(time.time()) - 3600)
    headers = sign_headers(BODY, "--timestamp", old)
    args = [
        "webhook", "verify", "--timestamp", old, "--signature", headers["X-Signature-SHA256"],
        "--api-key-env", "TEST_WEBHOOK_KEY",
    ]  # fmt: skip
    stale = run(*args, input=BODY)
    assert stale.exit_code == 1 and "stale" in stale.stderr
    assert run(*args, "--tolerance", "7200", input=BODY).exit_code == 0
    assert run(*args, "--ignore-time", input=BODY).exit_code == 0


def test_verify_json_output() -> None:
    headers = sign_headers(BODY)
    base = ["--json", "webhook", "verify", "--timestamp", headers["X-Signature-Timestamp"],
            "--api-key-env", "TEST_WEBHOOK_KEY"]  # fmt: skip
    good = run(*base, "--signature", headers["X-Signature-SHA256"], input=BODY)
    assert good.exit_code == 0
    assert json.loads(good.stdout) == {"valid": True, "reason": "ok", "detail": ""}
    bad = run(*base, "--signature", "0" * 64, input=BODY)
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["reason"] == "mismatch"


def test_missing_key_environment_variable_is_no_secret() -> None:
    result = run("webhook", "sign", "--api-key-env", "NOT_SET_ANYWHERE", input=BODY, env={})
    assert result.exit_code == 6
    assert "NOT_SET_ANYWHERE" in result.stderr


def test_key_from_the_demo_world_file(tmp_path: Path) -> None:
    # Without --api-key-env the key comes from the profile: here the demo world's.
    world = tmp_path / "world.json"
    world.write_text(
        json.dumps(
            {
                "service_url": "http://127.0.0.1:1",
                "venue_url": "http://127.0.0.1:2",
                "rpc": {"8453": "http://127.0.0.1:3", "999": "http://127.0.0.1:4"},
                "wallet": {
                    "address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                    # the publicly known anvil account #0 key
                    "private_key": "0xac0974bec39a17e36ba4a6b4d238ff944bacb478"
                    "cbed5efcae784d7bf4f2ff80",
                },
                "api_key": "world-key-123",
                "solver": "0x70997970C51812dc3A010C7d01b50e8d4F3dc79C",
            }
        )
    )
    config = tmp_path / "config.toml"
    config.write_text("")
    env = {"CROSSDECK_CONFIG": str(config)}
    result = run(
        "--world", str(world), "--json", "webhook", "sign", "--timestamp", "5", input=b"x", env=env
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["X-Signature-SHA256"] == independent_signature(
        "world-key-123", "5", b"x"
    )


def _read_line(stream, timeout: float = 15.0) -> str:
    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sel.select(timeout=0.2):
            line = stream.readline()
            if line:
                return line
    raise AssertionError("no line from the serve process in time")


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_serve_prints_each_verified_event_once(as_json: bool) -> None:
    env = {**os.environ, "TEST_WEBHOOK_KEY": API_KEY, "HOOK_AUTH": "Bearer tok"}
    args = [
        CROSSDECK, "webhook", "serve", "--port", "0",
        "--path", "/in", "--api-key-env", "TEST_WEBHOOK_KEY",
        "--require-header", "Authorization=HOOK_AUTH", "--count", "2",
    ]  # fmt: skip
    if as_json:
        args.append("--json")
    proc = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        listening = _read_line(proc.stderr)
        assert listening.startswith("listening on http://127.0.0.1:")
        url = listening.split()[2]
        assert url.endswith("/in")
        first = body_of(status_payload("0xserve", "pending", updated_at=10))
        second = body_of(status_payload("0xserve", "success", updated_at=20))
        auth = {"Authorization": "Bearer tok"}
        with httpx.Client(timeout=10) as http:
            assert http.post(url, content=first, headers=signed_headers(first)).status_code == 401
            for body in (first, first, second):
                resp = http.post(url, content=body, headers={**signed_headers(body), **auth})
                assert resp.status_code == 200
        lines = [_read_line(proc.stdout), _read_line(proc.stdout)]
        proc.wait(timeout=15)
        assert proc.returncode == 0
        rest_err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
    assert proc.stdout.read() == ""  # the duplicate was not printed
    if as_json:
        events = [json.loads(line) for line in lines]
        assert [e["event"]["data"]["status"] for e in events] == ["pending", "success"]
        assert events[0]["event"] == status_payload("0xserve", "pending", updated_at=10)
        assert all(isinstance(e["receivedAt"], int) for e in events)
    else:
        assert "pending" in lines[0] and "0xserve" in lines[0]
        assert "success" in lines[1] and "8453->1337" in lines[1]
    assert "401 bad_custom_header" in rest_err
    assert "2 accepted, 1 duplicates, 1 rejected" in rest_err
    assert API_KEY not in rest_err and "Bearer tok" not in rest_err


def test_serve_stops_cleanly_on_sigterm() -> None:
    env = {**os.environ, "TEST_WEBHOOK_KEY": API_KEY}
    proc = subprocess.Popen(
        [CROSSDECK, "webhook", "serve", "--api-key-env",
         "TEST_WEBHOOK_KEY"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert _read_line(proc.stderr).startswith("listening on ")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "stopped: 0 accepted" in proc.stderr.read()


def test_serve_refuses_a_bad_require_header() -> None:
    result = run(
        "webhook", "serve", "--api-key-env", "TEST_WEBHOOK_KEY",
        "--require-header", "Authorization",
    )  # fmt: skip
    assert result.exit_code == 3
    assert "NAME=VAR" in result.stderr
    unset = run(
        "webhook", "serve", "--api-key-env", "TEST_WEBHOOK_KEY",
        "--require-header", "Authorization=UNSET_VAR_X",
    )  # fmt: skip
    assert unset.exit_code == 3
    assert "UNSET_VAR_X" in unset.stderr
