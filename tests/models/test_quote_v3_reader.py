"""The one reader of quote answers, on the readings of /quote/v3 the world does not send: a
signature step whose `data` is the sign payload with `post` beside it, fees nested under
`quoted`, a request id named only by the checks, steps naming two requests, a v2 answer left
as it is."""

from __future__ import annotations

from typing import Any

from crossdeck.models.quote_v3 import read_quote

RID = "0x" + "ab" * 32
OTHER = "0x" + "cd" * 32
USDC = {"chainId": 8453, "address": "0x" + "a1" * 20, "symbol": "USDC", "decimals": 6}


def _sign() -> dict[str, Any]:
    return {
        "signatureKind": "eip712",
        "domain": {"name": "USD Coin", "version": "2", "chainId": 8453},
        "types": {"ReceiveWithAuthorization": []},
        "primaryType": "ReceiveWithAuthorization",
        "value": {"from": "0x" + "11" * 20},
    }


def test_a_sign_payload_with_post_beside_it_reads_as_v2s_signature_data() -> None:
    post = {"endpoint": "/execute/permits/v2", "method": "POST", "body": {"requestId": RID}}
    quote = read_quote(
        {
            "steps": [
                {
                    "id": "deposit",
                    "kind": "signature",
                    "status": "incomplete",
                    "data": _sign(),
                    "post": post,
                },
            ]
        }
    )
    [step] = quote.steps
    signature = step.items[0].as_signature()
    assert signature.sign is not None and signature.sign.primary_type == "ReceiveWithAuthorization"
    assert signature.post is not None and signature.post.endpoint == "/execute/permits/v2"
    assert step.request_id == RID  # named by the post's body alone


def test_a_signature_step_without_a_post_stays_unknown_data() -> None:
    quote = read_quote(
        {"requestId": RID, "steps": [{"id": "s", "kind": "signature", "data": {"what": 1}}]}
    )
    assert quote.steps[0].items[0].kind_of_data == "unknown"  # the executor refuses it


def test_fees_nested_under_quoted_read_as_v2s_members() -> None:
    fees = {
        "quoted": {
            "execution": {"usd": "-0.010000", "amount": "10000", "amountFormatted": "0.01"},
            "platform": {"usd": "-0.020000", "amount": "20000", "amountFormatted": "0.02"},
            "swap": {"usd": "0", "amount": "0", "amountFormatted": "0"},
        },
        "actual": {"execution": {"usd": "-0.010000"}},
        "currency": USDC,
    }
    quote = read_quote({"requestId": RID, "steps": [], "fees": fees})
    assert quote.fees is not None and quote.fees.relayer_gas is not None
    assert quote.fees.relayer_gas.amount == 10_000 and quote.fees.relayer_gas.symbol == "USDC"
    assert quote.fees.relayer_gas.amount_usd == "0.010000"  # a cost, v2's positive size
    assert quote.fees.relayer is not None and quote.fees.relayer.amount == 30_000
    assert quote.fees_v3 == fees


def test_a_request_id_named_only_by_the_checks_is_the_steps() -> None:
    check = {"endpoint": f"/intents/status/v3?requestId={RID}", "method": "GET"}
    quote = read_quote(
        {
            "steps": [
                {
                    "id": "deposit",
                    "kind": "transaction",
                    "data": {"to": "0x" + "22" * 20},
                    "check": check,
                }
            ]
        }
    )
    assert quote.request_id == RID


def test_steps_naming_two_requests_carry_both_for_the_guard_to_refuse() -> None:
    quote = read_quote(
        {
            "requestId": RID,
            "steps": [
                {"id": "a", "kind": "transaction", "data": {"to": "0x" + "22" * 20}},
                {
                    "id": "b",
                    "kind": "transaction",
                    "data": {"to": "0x" + "22" * 20},
                    "requestId": OTHER,
                },
            ],
        }
    )
    assert {s.request_id for s in quote.steps} == {RID, OTHER}


def test_checks_naming_two_requests_and_no_top_level_id_name_none() -> None:
    def step(rid: str) -> dict[str, Any]:
        check = {"endpoint": f"/intents/status?requestId={rid}"}
        return {"id": "d", "kind": "transaction", "data": {"to": "0x" + "22" * 20}, "check": check}

    quote = read_quote({"steps": [step(RID), step(OTHER)]})
    assert {s.request_id for s in quote.steps} == {None}  # the request-id guard refuses


def test_a_v2_answer_is_read_as_it_is() -> None:
    v2 = {
        "steps": [
            {
                "id": "deposit",
                "kind": "transaction",
                "requestId": RID,
                "items": [{"status": "incomplete", "data": {"to": "0x" + "22" * 20}}],
            }
        ],
        "fees": {"app": {"currency": USDC, "amount": "0"}},
    }
    quote = read_quote(v2)
    assert quote.to_wire() == v2 and quote.fees_v3 is None
