"""The published examples of the service's current API (../shared/realdata/quote-v3/ and
ws/, rows in SOURCES.md) through crossdeck's models and readers, each named with what was
assumed where the example says nothing.

- quote-v3/docs-execute-permits-v2-*-2: flat steps (the shape /quote/v3 steps share) through
  the one reader into the one `Step` model: each a step of one item, its transaction data, check
  and deposit address read. Its `<string>` placeholders are typed first (`_filled`: amounts as
  digit strings, addresses, calldata, an endpoint), as the schema's types say. Assumed: `kind`
  and `status` take v2's values (the sample has placeholders); the request id comes from the
  answer, not the step (no step carries one).
- quote-v3/docs-execute-permits-v2-*-1: the request body the signature step's post names,
  posted as given (its query parameter, cut from the copy, assumed `signature`).
- quote-v3/docs-create-access-token-*: the mint request (`{}`) and answer (`AccessToken`); the
  world's /access-tokens answers the same shape.
- ws/*: each message through the status socket's own reader (`track.socket_feed`): the ready
  message, the subscribe/unsubscribe requests it sends (same members), their acks (one of them
  with the published typo "equest.status.updated", read by its filters alone), and the event
  (`StatusUpdate.from_socket`, a base58 Solana hash kept as text).
"""

from __future__ import annotations

from typing import Any

import httpx
from realdata_support import load

from crossdeck.models.quote_v3 import AccessToken, read_steps
from crossdeck.models.steps import TransactionData

PERMITS_ANSWER = "quote-v3/docs-execute-permits-v2-2026-11-25-2.json"
PERMITS_BODY = "quote-v3/docs-execute-permits-v2-2026-11-25-1.json"
TOKEN_BODY = "quote-v3/docs-create-access-token-2026-11-25-1.json"
TOKEN_ANSWER = "quote-v3/docs-create-access-token-2026-11-25-2.json"
WS = {
    "ready": "ws/docs-websocket-reference-2025-12-18-1.json",
    "subscribe": "ws/docs-websocket-reference-2025-12-18-2.json",
    "subscribed": "ws/docs-websocket-reference-2025-12-18-3.json",
    "unsubscribe": "ws/docs-websocket-reference-2025-12-18-4.json",
    "unsubscribed": "ws/docs-websocket-reference-2025-12-18-5.json",
    "event": "ws/docs-websocket-reference-2025-12-18-6.json",
    "guide-subscribe": "ws/docs-websockets-2026-07-27-1.json",
    "guide-subscribed": "ws/docs-websockets-2026-07-27-2.json",
    "guide-unsubscribe": "ws/docs-websockets-2026-07-27-3.json",
    "guide-unsubscribed": "ws/docs-websockets-2026-07-27-4.json",
}
CHECKED = [PERMITS_ANSWER, PERMITS_BODY, TOKEN_BODY, TOKEN_ANSWER, *WS.values()]
"""Every file this module checks (test_realdata_client's inventory counts them)."""


_TYPED = {
    "to": "0x" + "11" * 20,
    "address": "0x" + "12" * 20,
    "depositor": "0x" + "13" * 20,
    "recoveryAddress": "0x" + "14" * 20,
    "depositTxHash": "0x" + "22" * 32,
    "data": "0x",
    "endpoint": "/intents/status/v3?requestId=0x" + "ab" * 32,
}


def _filled(value: Any, key: str = "") -> Any:
    """The rendered sample with its `<string>` placeholders typed: addresses, hashes, calldata
    and an endpoint as such, every other one (the amounts and gas) a digit string."""
    if isinstance(value, dict):
        return {k: _filled(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, key) for v in value]
    if value == "<string>" and key not in ("id", "action", "description", "kind", "status"):
        return _TYPED.get(key, "1")
    return value


def test_flat_steps_become_the_one_step_model() -> None:
    answer = _filled(load(PERMITS_ANSWER))
    [raw] = answer["steps"]
    [step] = read_steps(answer["steps"], "0x" + "ab" * 32)
    assert step.id == raw["id"] and step.kind == raw["kind"]
    assert step.request_id == "0x" + "ab" * 32  # the answer's, not the step's
    [item] = step.items
    assert item.status == raw["status"]
    tx = item.as_transaction()
    assert isinstance(tx, TransactionData) and tx.to == raw["data"]["to"]
    assert tx.chain_id == raw["data"]["chainId"]
    assert tx.extra_fields["gasPrice"] == raw["data"]["gasPrice"]  # kept, not dropped
    assert item.check is not None and item.check.method == "GET"
    assert step.deposit_address == raw["depositAddress"]["address"]
    assert step.extra_fields["depositAddressInfo"] == raw["depositAddress"]
    assert step.extra_fields["depositAddressId"] == raw["depositAddressId"]
    # the one model writes the v2 form back out (what the journal keeps)
    wire = step.to_wire()
    assert wire["items"][0]["data"]["data"] == raw["data"]["data"]


def test_the_permit_body_is_what_a_signed_post_carries() -> None:
    from crossdeck.api.endpoints import SIGNATURE_PARAM, endpoint_problem

    body = load(PERMITS_BODY)
    assert set(body) == {"kind", "requestId"}
    assert endpoint_problem("/execute/permits/v2", reserved=(SIGNATURE_PARAM,)) is None


def test_the_access_token_answer_fits_its_model_and_hides_the_token() -> None:
    assert load(TOKEN_BODY) == {}
    raw = load(TOKEN_ANSWER)
    token = AccessToken.from_wire(raw)
    assert token.token_type == "Bearer" and token.scope == "public-api"
    assert token.to_wire() == raw
    assert raw["token"] not in repr(token)


def test_the_worlds_access_token_has_the_published_shape(world: Any) -> None:
    answer = httpx.post(
        world.service_url + "/access-tokens",
        json=load(TOKEN_BODY),
        headers={"x-api-key": world.api_key},
        timeout=10,
    )
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store"
    assert set(answer.json()) == set(load(TOKEN_ANSWER))
    assert AccessToken.from_wire(answer.json()).token_type == "Bearer"


class _Sink:
    def __init__(self) -> None:
        self.events: list[Any] = []
        self.acked: list[str] = []
        self.notes: list[tuple[str, str]] = []

    def socket_event(self, update: Any) -> None:
        self.events.append(update)

    def socket_acked(self, request_id: str) -> None:
        self.acked.append(request_id)

    def socket_state(self, live: bool, reason: str) -> None:
        pass

    def socket_note(self, kind: str, message: str) -> None:
        self.notes.append((kind, message))


def test_every_socket_message_goes_through_the_socket_reader() -> None:
    from crossdeck.track.socket_feed import EVENT, SocketFeed

    rid = load(WS["subscribe"])["filters"]["id"]
    for name in ("subscribe", "unsubscribe", "guide-subscribe", "guide-unsubscribe"):
        sent = load(WS[name])
        # what the feed sends has exactly the published members
        assert sent == {"type": sent["type"], "event": EVENT, "filters": {"id": rid}}
    sink = _Sink()
    feed = SocketFeed("ws://127.0.0.1:9", sink=sink)
    feed._wants.add(rid.lower())
    for name in ("ready", "unsubscribed", "guide-unsubscribed"):
        feed._frame(load(WS[name]))
    assert sink.notes == [] and sink.events == [] and sink.acked == []
    feed._frame(load(WS["guide-subscribed"]))  # the published typo in data.event
    feed._frame(load(WS["subscribed"]))
    assert sink.acked == [rid.lower()]
    event = load(WS["event"])
    event["data"]["requestId"] = rid  # the example's own id is not followed here
    feed._frame(event)
    [update] = sink.events
    assert update.status.value == event["data"]["status"]
    assert list(update.in_tx_hashes) == event["data"]["inTxHashes"]  # base58 kept
