"""Each guard refuses a tampered quote from the demo world before anything is signed: the signer
is never called, nothing is confirmed, sent or posted, the journal holds no item, and the run
ends with exit code GUARD_REFUSED naming the guard and what differs."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from execute_support import (
    ETH,
    PERPS_USDC,
    USDC,
    VENUE_UNIT,
    Kit,
    fund,
    new_address,
    quote_native,
    usdc_address,
)

from crossdeck.base.exitcodes import ExitCode
from crossdeck.execute import Failed, Finished, GuardsChecked
from crossdeck.wallet.signer import Signer

OTHER = "0x1111111111111111111111111111111111111111"


@pytest.fixture
def sign_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call into the signer during the test."""
    calls: list[str] = []
    for name in ("sign_transaction", "sign_typed_data", "sign_eip191"):
        original = getattr(Signer, name)

        def spy(self: Signer, *args: Any, _name: str = name, _orig: Any = original) -> Any:
            calls.append(_name)
            return _orig(self, *args)

        monkeypatch.setattr(Signer, name, spy)
    return calls


async def native_quote(kit: Kit, **extra: Any):
    return await quote_native(kit, ETH // 10, **extra)


async def usdc_quote(kit: Kit):
    return await kit.quote(
        origin_chain_id=8453,
        destination_chain_id=999,
        origin_currency=usdc_address(kit.world, 8453),
        destination_currency=usdc_address(kit.world, 999),
        amount=str(10 * USDC),
        recipient=new_address(),
    )


async def permit_quote(kit: Kit):
    return await kit.quote(
        origin_chain_id=8453,
        destination_chain_id=999,
        origin_currency=usdc_address(kit.world, 8453),
        destination_currency=usdc_address(kit.world, 999),
        amount=str(10 * USDC),
        recipient=new_address(),
        use_permit=True,
    )


async def withdrawal_quote(kit: Kit):
    return await kit.quote(
        origin_chain_id=1337,
        destination_chain_id=8453,
        origin_currency=PERPS_USDC,
        destination_currency=usdc_address(kit.world, 8453),
        amount=str(25 * VENUE_UNIT),
        recipient=new_address(),
        protocol_version="v2",
    )


def item(wire: dict, step_id: str) -> dict:
    return next(s for s in wire["steps"] if s["id"] == step_id)["items"][0]["data"]


def deposit_params(wire: dict) -> dict:
    return item(wire, "deposit")["action"]["parameters"]


def _bump_nonce(wire: dict) -> None:
    deposit = item(wire, "deposit")
    deposit["nonce"] += 1
    deposit["action"]["parameters"]["nonce"] += 1


def _retag(wire: dict) -> None:
    deposit = item(wire, "deposit")
    order = wire["protocol"]["v2"]["orderId"][2:]
    deposit["data"] = deposit["data"].replace(order, "ee" * 32)


def _data_unknown(wire: dict) -> None:
    wire["steps"][0]["items"][0]["data"] = {"program": "solana-ix", "accounts": []}


DEAD = "0x000000000000000000000000000000000000dEaD"


def _no_protocol_to_dead(wire: dict) -> None:
    """The issue's first case: no `protocol` object, the deposit sent to 0x…dEaD at 10x."""
    del wire["protocol"]
    deposit = item(wire, "deposit")
    deposit.update(to=DEAD, value=str(int(deposit["value"]) * 10))


def _other_depository(wire: dict) -> None:
    """The depository replaced everywhere the quote names it, consistently."""
    wire["protocol"]["v2"]["paymentDetails"]["depository"] = OTHER
    item(wire, "deposit").update(to=OTHER)


def _permit_step(wire: dict) -> None:
    """An extra step asking for an unlimited EIP-2612 Permit to another spender."""
    wire["steps"].append(
        {
            "id": "permit",
            "kind": "signature",
            "requestId": wire["steps"][0]["requestId"],
            "items": [
                {
                    "status": "incomplete",
                    "data": {
                        "sign": {
                            "signatureKind": "eip712",
                            "domain": {"name": "USD Coin", "version": "2", "chainId": 8453},
                            "types": {"Permit": [{"name": "spender", "type": "address"}]},
                            "primaryType": "Permit",
                            "value": {"spender": OTHER, "value": str(2**256 - 1)},
                        },
                        "post": {"endpoint": "/permit", "method": "POST", "body": {}},
                    },
                }
            ],
        }
    )


def _other_venue_action(wire: dict) -> None:
    deposit = item(wire, "deposit")
    types = deposit["eip712Types"]
    types["VenueTransaction:UsdSend"] = types.pop("VenueTransaction:SendAsset")
    deposit["eip712PrimaryType"] = "VenueTransaction:UsdSend"


def _inflate(wire: dict) -> None:
    """The amount x10 everywhere the quote names it: tx value, paymentDetails, currencyIn."""
    deposit = item(wire, "deposit")
    more = str(int(deposit["value"]) * 10)
    deposit["value"] = more
    wire["protocol"]["v2"]["paymentDetails"]["amount"] = more
    wire["details"]["currencyIn"]["amount"] = more


def _other_chain(wire: dict) -> None:
    """The payment moved to chain 999 everywhere the quote names its chain: the tx, the
    paymentDetails (by the protocol's name for 999) and currencyIn."""
    item(wire, "deposit")["chainId"] = 999
    wire["protocol"]["v2"]["paymentDetails"]["chainId"] = "hyperevm"
    wire["details"]["currencyIn"]["currency"]["chainId"] = 999


def _recipient(wire: dict) -> None:
    wire["details"]["recipient"] = OTHER
    for payment in wire["protocol"]["v2"]["orderData"]["output"]["payments"]:
        payment["recipient"] = OTHER


def _refund_to(wire: dict) -> None:
    for entry in wire["protocol"]["v2"]["orderData"]["inputs"]:
        for refund in entry["refunds"]:
            refund["recipient"] = OTHER


def _second_deposit(wire: dict) -> None:
    wire["steps"].append(copy.deepcopy(next(s for s in wire["steps"] if s["id"] == "deposit")))


def _miscased(address: str) -> str:
    """`address` in its EIP-55 form with one letter's case flipped: a wrong checksum."""
    from eth_utils import to_checksum_address

    text = to_checksum_address(address)
    at = next(i for i in range(2, len(text)) if text[i].isalpha())
    return text[:at] + text[at].swapcase() + text[at + 1 :]


def _miscased_deposit_to(wire: dict) -> None:
    deposit = item(wire, "deposit")
    deposit["to"] = _miscased(deposit["to"])


def _miscased_depository(wire: dict) -> None:
    payment = wire["protocol"]["v2"]["paymentDetails"]
    payment["depository"] = _miscased(payment["depository"])


def _miscased_destination(wire: dict) -> None:
    params = deposit_params(wire)
    params["destination"] = _miscased(params["destination"])


def _sign_kind(wire: dict) -> None:
    item(wire, "authorize")["sign"]["signatureKind"] = "eip999"


# (guard name, quote maker, tamper, words the refusal must contain)
CASES: list[tuple[str, Callable[..., Any], Callable[[dict], None], str]] = [
    (
        "request-id",
        withdrawal_quote,
        lambda w: w["steps"][1].update(requestId="0x" + "ab" * 32),
        "different request ids",
    ),
    ("step-kind", native_quote, _data_unknown, "unknown shape"),
    ("step-kind", withdrawal_quote, _sign_kind, "'eip999' is not eip712 or eip191"),
    ("venue-nonce", withdrawal_quote, _bump_nonce, "!= authorize nonce"),
    (
        "venue-nonce",
        withdrawal_quote,
        lambda w: deposit_params(w).update(nonce=deposit_params(w)["nonce"] + 7),
        "!= action.parameters.nonce",
    ),
    (
        "authorize-terms",
        withdrawal_quote,
        lambda w: item(w, "authorize")["sign"]["value"].update(wallet=OTHER),
        f"wallet {OTHER}",
    ),
    (
        "verifying-contract",
        withdrawal_quote,
        lambda w: item(w, "authorize")["sign"]["domain"].update(verifyingContract=OTHER),
        f"verifyingContract is {OTHER}",
    ),
    (
        "send-asset-destination",
        withdrawal_quote,
        lambda w: deposit_params(w).update(destination=OTHER),
        f"destination {OTHER} is not the quote's depository",
    ),
    (
        "send-asset-token",
        withdrawal_quote,
        lambda w: deposit_params(w).update(token="USDe:0x22e9417ea9e6367dee20b2b9b56adc9e"),
        "USDe:0x22e9417ea9e6367dee20b2b9b56adc9e",
    ),
    (
        "send-asset-dex",
        withdrawal_quote,
        lambda w: deposit_params(w).update(sourceDex="spot"),
        "sourceDex 'spot' is not ''",
    ),
    (
        "send-asset-amount",
        withdrawal_quote,
        lambda w: deposit_params(w).update(amount="25.00000001"),
        "sendAsset amount 25.00000001 != the quote's currencyIn 25",
    ),
    (
        "tx-chain-id",
        native_quote,
        lambda w: item(w, "deposit").update(chainId=999),
        "on chain 999 but the payment is on chain 8453",
    ),
    (
        "tx-from",
        native_quote,
        lambda w: item(w, "deposit").update(**{"from": OTHER}),
        f"from {OTHER}, not the wallet",
    ),
    (
        "tx-payment",
        native_quote,
        lambda w: item(w, "deposit").update(value=str(int(item(w, "deposit")["value"]) + 1)),
        "but the payment is",
    ),
    (
        "tx-destination",
        native_quote,
        lambda w: item(w, "deposit").update(to=OTHER),
        f"goes to {OTHER}, which is not the depository /chains names for chain 8453",
    ),
    (
        "tx-payment",
        usdc_quote,
        lambda w: item(w, "approve").update(
            data=item(w, "approve")["data"][:34]
            + OTHER[2:].lower()
            + item(w, "approve")["data"][74:]
        ),
        f"approves {OTHER.lower()}, not the depository",
    ),
    (
        "tx-payment",
        usdc_quote,
        lambda w: item(w, "approve").update(data=item(w, "approve")["data"][:74] + "f" * 64),
        f"approves {2**256 - 1} of",
    ),
    ("order-id", native_quote, _retag, "does not carry orderId"),
    ("tx-payment", native_quote, _no_protocol_to_dead, "no protocol.v2.paymentDetails"),
    ("typed-data", native_quote, _permit_step, "refusing to sign an EIP-2612 Permit"),
    (
        "steps",
        native_quote,
        _second_deposit,
        "2 payments (deposits, venue transfers, permits, router swaps)",
    ),
    ("steps", usdc_quote, _second_deposit, "2 payments"),
    ("typed-data", withdrawal_quote, _other_venue_action, "'VenueTransaction:UsdSend'"),
    ("request-amount", native_quote, _inflate, "but you asked to send exactly 0.1 ETH"),
    ("request-origin", native_quote, _other_chain, "chain 999"),
    ("request-recipient", native_quote, _recipient, f"the quote pays out to {OTHER}"),
    ("request-refund", native_quote, _refund_to, f"a refund would go to {OTHER}"),
    (
        "send-asset-dex",
        withdrawal_quote,
        lambda w: deposit_params(w).update(destinationDex="xyz"),
        "destinationDex 'xyz'",
    ),
    (
        "send-asset-fields",
        withdrawal_quote,
        lambda w: deposit_params(w).update(fromSubAccount=OTHER),
        f"fromSubAccount {OTHER!r}",
    ),
    (
        "send-asset-fields",
        withdrawal_quote,
        lambda w: deposit_params(w).update(venueChain="Testnet"),
        "network 'Testnet' is not 'Mainnet'",
    ),
    (
        "authorize-domain",
        withdrawal_quote,
        lambda w: item(w, "authorize")["sign"]["domain"].update(name="OtherThing"),
        "domain name 'OtherThing'",
    ),
    (
        "authorize-fields",
        withdrawal_quote,
        lambda w: item(w, "authorize")["post"]["body"].update(walletChainId=8453),
        "walletChainId is 8453",
    ),
    ("tx-destination", native_quote, _no_protocol_to_dead, f"goes to {DEAD}"),
    ("depository", native_quote, _other_depository, f"the quote pays depository {OTHER}"),
    (
        "tx-payment",
        usdc_quote,
        lambda w: item(w, "deposit").update(data="0xa9059cbb" + item(w, "deposit")["data"][10:]),
        "with data crossdeck cannot read: transfer calldata is 128 bytes of arguments, not 64",
    ),
    (
        "permit-terms",
        permit_quote,
        lambda w: item(w, "deposit")["sign"]["value"].update(to=OTHER),
        f"pays {OTHER}, not the depository",
    ),
    (
        "permit-terms",
        permit_quote,
        lambda w: item(w, "deposit")["sign"]["value"].update(value="99000000"),
        "moves 99000000, not the payment amount 10000000",
    ),
    ("address-checksum", native_quote, _miscased_deposit_to, "wrong EIP-55 checksum"),
    ("address-checksum", usdc_quote, _miscased_depository, "paymentDetails.depository: 0x"),
    ("address-checksum", withdrawal_quote, _miscased_destination, "wrong EIP-55 checksum"),
]


@pytest.mark.parametrize(
    ("guard", "make_quote", "tamper", "words"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
async def test_tampered_quote_is_refused_before_signing(
    py_kit: Kit,
    sign_calls: list[str],
    guard: str,
    make_quote: Callable[..., Any],
    tamper: Callable[[dict], None],
    words: str,
) -> None:
    kit = py_kit
    quote, request = await make_quote(kit)
    if quote.step("approve") is None and make_quote is usdc_quote:
        pytest.fail("the USDC quote should start with an approve for a fresh wallet")
    bad = kit.tampered(quote, tamper)
    events = await kit.run(bad, request=request)

    last = events[-1]
    assert isinstance(last, Failed), last.to_json()
    assert last.exit_code == ExitCode.GUARD_REFUSED
    names = {f.name for f in last.failures}
    assert guard in names, last.error
    assert words in last.error
    [checked] = [e for e in events if isinstance(e, GuardsChecked)]
    assert not checked.ok
    # nothing was signed, confirmed, sent or journalled
    assert sign_calls == []
    assert kit.asked == []
    assert kit.journal.items(quote.request_id) == []
    assert kit.journal.run(quote.request_id).state == "refused"
    assert await kit.nonce(8453) == 0
    # the untampered quote passes every guard (the refusal is the tampering's doing)
    assert all(r.ok for r in await _guards(kit, quote))


async def _guards(kit: Kit, quote: Any) -> list[Any]:
    from crossdeck.execute.guards import check_quote

    # the world names the payment's chain as the public service does; /chains maps it
    chains = await kit.service.chains()
    return check_quote(
        quote,
        wallet=kit.address,
        rpc_chain_ids=set(kit.world.rpc),
        chains=chains,
        service_name=kit.world.brand.service_name,
        spot_meta=await kit.venue.spot_meta(),
    )


async def test_chain_without_rpc_is_refused_before_signing(
    py_kit: Kit, sign_calls: list[str]
) -> None:
    kit = py_kit
    quote, request = await native_quote(kit)
    kit.executor = kit.make_executor(rpc={999: kit.world.rpc[999]})
    # neither the settings nor /chains name an RPC for 8453 (/chains' would be used otherwise)
    chains = await kit.service.chains()
    for chain in chains.chains:
        if chain.id == 8453:
            chain.http_rpc_url = None
    await kit.executor.chains_for(quote, known=chains)
    events = await kit.run(quote, request=request)

    last = events[-1]
    assert isinstance(last, Failed) and last.exit_code == ExitCode.GUARD_REFUSED
    assert "no RPC is configured for chain 8453" in last.error
    assert sign_calls == [] and kit.asked == []


async def test_a_chain_the_settings_name_no_rpc_for_uses_the_chains_one(py_kit: Kit) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, native={8453: ETH})
    quote, request = await native_quote(kit)
    kit.executor = kit.make_executor(rpc={999: kit.world.rpc[999]})
    events = await kit.run(quote, request=request)
    last = events[-1]
    assert isinstance(last, Finished) and last.status == "success", last
    pool = kit.executor.gateways
    assert pool.from_chains == {8453: kit.world.rpc[8453]}  # /chains' httpRpcUrl of 8453
    assert pool.notes(quote) == [
        f"chain 8453: RPC {kit.world.rpc[8453]} (the service's /chains httpRpcUrl; the "
        "settings name none for this chain, so the funds, gas and simulation checks take the "
        "service's node's word: set your own with CROSSDECK_RPC__8453 or [rpc] 8453 in the "
        "config)"
    ]


async def test_rpc_serving_another_chain_is_refused_before_signing(
    py_kit: Kit, sign_calls: list[str]
) -> None:
    kit = py_kit
    quote, request = await native_quote(kit)
    # the URL configured for 8453 actually serves chain 999
    kit.executor = kit.make_executor(rpc={8453: kit.world.rpc[999], 999: kit.world.rpc[999]})
    events = await kit.run(quote, request=request)

    last = events[-1]
    assert isinstance(last, Failed) and last.exit_code == ExitCode.GUARD_REFUSED
    assert [f.name for f in last.failures] == ["rpc-chain-id"]
    assert "serves chain 999" in last.error
    assert sign_calls == [] and kit.asked == []
    assert kit.journal.items(quote.request_id) == []


async def test_declining_stops_before_signing(py_kit: Kit, sign_calls: list[str]) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, native={8453: ETH})
    sign_calls.clear()  # funding signed from the demo wallet
    quote, request = await native_quote(kit)
    kit.answer = False
    events = await kit.run(quote, request=request)

    last = events[-1]
    assert isinstance(last, Failed) and last.exit_code == ExitCode.ABORTED
    assert len(kit.asked) == 1 and sign_calls == []
    assert kit.journal.items(quote.request_id) == []


async def test_a_started_request_is_not_run_twice(py_kit: Kit, sign_calls: list[str]) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, native={8453: ETH})
    sign_calls.clear()  # funding signed from the demo wallet
    quote, request = await native_quote(kit)
    first = await kit.run(quote, request=request)
    assert first[-1].to_json()["event"] == "Finished"
    calls = len(sign_calls)
    again = await kit.run(quote, request=request)

    last = again[-1]
    assert isinstance(last, Failed) and last.error_type == "AlreadyStarted"
    assert f"crossdeck resume {quote.request_id}" in last.error
    assert len(sign_calls) == calls
    assert kit.journal.run(quote.request_id).state == "finished"
    assert await kit.nonce(8453) == 1


async def test_a_quote_without_its_request_is_refused_unless_trusted(
    py_kit: Kit, sign_calls: list[str]
) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, native={8453: ETH})
    sign_calls.clear()  # funding signed from the demo wallet
    quote, _request = await native_quote(kit)
    events = await kit.run(quote)

    last = events[-1]
    assert isinstance(last, Failed) and last.exit_code == ExitCode.GUARD_REFUSED
    assert [f.name for f in last.failures] == ["request"]
    assert "--trust-quote" in last.error
    assert sign_calls == [] and kit.asked == []

    again, _ = await native_quote(kit)
    kit.executor = kit.make_executor(trust_quote=True)
    events = await kit.run(again)
    [checked] = [e for e in events if isinstance(e, GuardsChecked)]
    [said] = [r for r in checked.results if r.name == "request"]
    assert said.ok and "NOT CHECKED against a request" in said.message
    # the dialog shows it: every signing request carries the guard list
    assert any("NOT CHECKED" in r.message for r in kit.asked[0].guards)
    assert events[-1].to_json()["event"] == "Finished"


async def _refused_at_signing(kit: Kit, quote: Any, request: Any) -> Failed:
    events = await kit.run(quote, request=request)
    last = events[-1]
    assert isinstance(last, Failed), last.to_json()
    assert last.exit_code == ExitCode.GUARD_REFUSED
    assert kit.asked == []
    return last


async def test_a_fee_above_the_chains_market_is_refused(py_kit: Kit, sign_calls: list[str]) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, native={8453: 10 * ETH})
    sign_calls.clear()
    quote, request = await native_quote(kit)
    tip = str(100_000 * 10**9)  # the 100,000 gwei tip
    bad = kit.tampered(
        quote, lambda w: item(w, "deposit").update(maxPriorityFeePerGas=tip, maxFeePerGas=tip)
    )
    last = await _refused_at_signing(kit, bad, request)
    assert [f.name for f in last.failures] == ["fee-market"]
    assert "asks up to 100000 gwei per gas" in last.error
    assert "the limit is 3x" in last.error
    assert sign_calls == [] and await kit.nonce(8453) == 0
    assert await kit.native(8453, kit.address) == 10 * ETH


async def test_more_than_the_wallet_holds_is_refused_before_signing(
    py_kit: Kit, sign_calls: list[str]
) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, native={8453: ETH // 20})  # 0.05 for a 0.1 transfer
    sign_calls.clear()
    quote, request = await native_quote(kit)
    last = await _refused_at_signing(kit, quote, request)
    # refused with the quote, in its own units, before the first item is even started
    assert [f.name for f in last.failures] == ["funds"]
    assert "it needs 0.1 ETH plus up to " in last.error
    assert "on chain 8453, but the wallet holds 0.05 ETH" in last.error
    assert sign_calls == [] and await kit.nonce(8453) == 0
    assert kit.journal.items(quote.request_id) == []


async def test_a_token_payment_beyond_the_wallet_is_refused_with_the_quote(
    py_kit: Kit, sign_calls: list[str]
) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, native={8453: ETH}, usdc={8453: 4 * USDC})
    sign_calls.clear()
    quote, request = await usdc_quote(kit)  # 10 USDC
    last = await _refused_at_signing(kit, quote, request)
    assert [f.name for f in last.failures] == ["funds"]
    assert "the payment is 10 USDC but the wallet holds 4 USDC" in last.error
    assert sign_calls == [] and await kit.nonce(8453) == 0


async def test_a_transaction_that_would_revert_is_refused_with_its_reason(
    py_kit: Kit, sign_calls: list[str]
) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, native={8453: ETH}, usdc={8453: 10 * USDC})
    sign_calls.clear()
    quote, request = await usdc_quote(kit)
    # without its approve the deposit cannot take the USDC: the dry run at the latest block says
    no_approve = kit.tampered(quote, lambda w: w.update(steps=w["steps"][1:]))
    last = await _refused_at_signing(kit, no_approve, request)
    assert [f.name for f in last.failures] == ["simulation"]
    assert "simulated at the latest block of chain 8453, it would revert" in last.error
    assert sign_calls == [] and await kit.nonce(8453) == 0
    assert await kit.usdc(8453, kit.address) == 10 * USDC


async def test_a_withdrawal_beyond_the_venue_balance_is_refused_before_signing(
    py_kit: Kit, sign_calls: list[str]
) -> None:
    kit = py_kit
    await fund(kit.world, kit.address, venue_perps=10 * VENUE_UNIT)  # 10 USDC for a 25 withdrawal
    sign_calls.clear()
    quote, request = await withdrawal_quote(kit)
    last = await _refused_at_signing(kit, quote, request)
    assert [f.name for f in last.failures] == ["funds"]
    assert "the withdrawal is 25 USDC but the venue account holds 10 USDC" in last.error
    assert sign_calls == [] and kit.journal.items(quote.request_id) == []
    # with enough on the venue the same check passes, saying what it found
    await fund(kit.world, kit.address, venue_perps=20 * VENUE_UNIT)
    [result] = await kit.executor.check_funds(quote)
    assert result.ok and "the venue account holds 30 USDC on perps" in result.message
