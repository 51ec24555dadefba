"""Guards as pure functions over the contract's fixture quotes (no server), and the events'
JSON form."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from eth_abi import encode

from crossdeck.execute import GuardRefused, check_item, check_quote
from crossdeck.execute import events as ev
from crossdeck.execute.guards import (
    GuardResult,
    built_domain_guard,
    expected_token_id,
    failures,
    require,
)
from crossdeck.execute.guards.calldata import SELECTORS
from crossdeck.models import ChainsResponse, Quote
from crossdeck.models.venue import SpotMeta

FIXTURES = Path(__file__).resolve().parents[1] / "models" / "fixtures"
WALLET = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
# the venue's spotMeta as far as the fixtures need it: spot USDC, which perps USDC sends as
SPOT_META = SpotMeta.model_validate(
    {
        "tokens": [
            {
                "name": "USDC",
                "szDecimals": 8,
                "weiDecimals": 8,
                "index": 0,
                "tokenId": "0x6d1e7cde53ba9467b783cb7c530ce054",
                "isCanonical": True,
            }
        ],
        "universe": [],
    }
)


def load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text())


def fixture_chains(wire: dict[str, Any]) -> ChainsResponse:
    """/chains as the service would answer it for the fixture: the paid chain with the
    depository the fixture pays (and its solver), and the chains the fixture routes over."""
    payment = wire["protocol"]["v2"]["paymentDetails"]
    paid = int(payment["chainId"])
    entries = []
    # the public brand's /chains calls the venue by its own name
    venue = "hyperliquid" if "hyperliquidChain" in json.dumps(wire) else "venue"
    for chain_id, name in ((8453, "base"), (999, "hyperevm"), (1337, venue)):
        depository = payment["depository"] if chain_id == paid else "0x" + "77" * 20
        solver = (wire["protocol"]["v2"].get("orderData") or {}).get("solver")
        entries.append(
            {
                "id": chain_id,
                "name": name,
                "protocol": {"v2": {"chainId": name, "depository": depository}},
                "solverAddresses": [solver or "0x" + "5a" * 20],  # never the depository
                "contracts": {},
            }
        )
    return ChainsResponse.from_wire({"chains": entries})


def fixture_service_name(wire: dict[str, Any]) -> str:
    """The service's name (the setting) for the fixture: the public one for the public brand."""
    return "Relay" if "hyperliquidChain" in json.dumps(wire) else "Service"


def guards(wire: dict[str, Any], **options: Any) -> list[GuardResult]:
    if "chains" not in options:
        options["chains"] = fixture_chains(wire)
    options.setdefault("service_name", fixture_service_name(wire))
    options.setdefault("spot_meta", SPOT_META)
    return check_quote(Quote.from_wire(wire), wallet=WALLET, **options)


def _deposit_calldata(wire: dict[str, Any]) -> str:
    """depositErc20(this wallet, the payment token, the payment amount, the orderId): the
    call the fixture's placeholder calldata stands for."""
    payment = wire["protocol"]["v2"]["paymentDetails"]
    order = bytes.fromhex(wire["protocol"]["v2"]["orderId"][2:])
    args = encode(
        ["address", "address", "uint256", "bytes32"],
        [WALLET, payment["currency"], int(payment["amount"]), order],
    )
    return SELECTORS["depositErc20"] + args.hex()


@pytest.mark.parametrize(
    "name", ["quote_venue_withdrawal.json", "quote_venue_withdrawal_public.json"]
)
def test_fixture_withdrawals_pass_every_guard(name: str) -> None:
    results = guards(load(name))
    assert failures(results) == []
    assert {r.name for r in results} >= {
        "request-id",
        "venue-nonce",
        "authorize-terms",
        "verifying-contract",
        "send-asset-destination",
        "send-asset-depository",
        "send-asset-token",
        "send-asset-amount",
    }


def test_evm_fixture_needs_a_deposit_call_the_abi_reads() -> None:
    wire = load("quote_evm.json")
    [failed] = failures(guards(wire, rpc_chain_ids={8453}))
    assert failed.name == "tx-payment"  # the fixture's calldata is a placeholder
    assert "selector 0x12121212 is none of" in failed.message
    deposit = wire["steps"][1]["items"][0]["data"]
    deposit["data"] = _deposit_calldata(wire)
    assert failures(guards(wire, rpc_chain_ids={8453})) == []
    # the same call with another order id, amount or depositor is refused by field
    order = wire["protocol"]["v2"]["orderId"][2:]
    retagged = copy.deepcopy(wire)
    retagged["steps"][1]["items"][0]["data"]["data"] = deposit["data"].replace(order, "ee" * 32)
    [failed] = failures(guards(retagged, rpc_chain_ids={8453}))
    assert failed.name == "order-id" and "does not carry orderId" in failed.message
    more = copy.deepcopy(wire)
    more["steps"][1]["items"][0]["data"]["data"] = deposit["data"].replace(
        f"{10_000_000:064x}", f"{20_000_000:064x}"
    )
    [failed] = failures(guards(more, rpc_chain_ids={8453}))
    assert "deposits 20 USDC, but the payment is 10 USDC" in failed.message
    other = copy.deepcopy(wire)
    other["steps"][1]["items"][0]["data"]["data"] = deposit["data"].replace(
        WALLET[2:].lower(), "22" * 20
    )
    [failed] = failures(guards(other, rpc_chain_ids={8453}))
    assert "credits depositor 0x2222222222222222222222222222222222222222" in failed.message
    # the depositor's word with a high byte set is no address (the ABI's strict reading)
    dirty = copy.deepcopy(wire)
    dirty["steps"][1]["items"][0]["data"]["data"] = deposit["data"].replace(
        "00" * 12 + WALLET[2:].lower(), "01" + "00" * 11 + WALLET[2:].lower(), 1
    )
    [failed] = failures(guards(dirty, rpc_chain_ids={8453}))
    assert "depositor is not an address: high bytes set" in failed.message
    assert failures(guards(wire, rpc_chain_ids={8453})) == []
    assert [f.name for f in failures(guards(wire, rpc_chain_ids={999}))] == [
        "rpc-configured",
        "rpc-configured",
    ]


def test_expected_token_ids() -> None:
    usdc = "0x6d1e7cde53ba9467b783cb7c530ce054"
    assert expected_token_id("0x" + "0" * 32) == (usdc, "")
    assert expected_token_id(usdc.upper().replace("0X", "0x")) == (usdc, "spot")
    assert expected_token_id(usdc + b"xyz".hex()) == (usdc, "xyz")
    assert expected_token_id("0x1234") is None
    assert expected_token_id(usdc + "ff") is None  # not a printable DEX name


def _authorize(wire: dict[str, Any]) -> dict[str, Any]:
    return wire["steps"][0]["items"][0]["data"]


def test_eip191_items_are_understood_refused_by_name_and_unknown_kinds_refused() -> None:
    wire = load("quote_venue_withdrawal.json")
    data = _authorize(wire)
    data["sign"] = {"signatureKind": "eip191", "message": "hello"}
    results = guards(wire)
    assert [r for r in results if r.name == "step-kind" and not r.ok] == []
    # a personal message is no part of any flow crossdeck runs; and without its NonceMapping
    # the venue transfer is no longer tied to the request
    assert sorted(f.name for f in failures(results)) == ["message-signature", "venue-nonce"]
    [message] = [f for f in failures(results) if f.name == "message-signature"]
    assert "personal message (EIP-191) 'hello'" in message.message

    bad = copy.deepcopy(wire)
    bad["steps"][0]["kind"] = "transaction"  # signature data in a transaction step
    [failed] = [f for f in failures(guards(bad)) if f.name == "step-kind"]
    assert "signature data inside a 'transaction' step" in failed.message

    bad = copy.deepcopy(wire)
    bad["steps"][0]["kind"] = "solana"
    assert "step kind 'solana'" in str(failures(guards(bad)))

    bad = copy.deepcopy(wire)
    _authorize(bad)["post"]["method"] = "GET"
    assert "post method 'GET' is not POST" in str(failures(guards(bad)))


def test_signed_and_posted_nonce_must_agree() -> None:
    wire = load("quote_venue_withdrawal.json")
    _authorize(wire)["post"]["body"]["nonce"] += 1
    [failed] = failures(guards(wire))
    assert failed.name == "venue-nonce" and "the body posts nonce" in failed.message


def test_typed_data_the_wallet_cannot_hash_is_refused_before_anyone_is_asked() -> None:
    for change, says in [
        (lambda sign: sign["value"].pop("id"), "message.id (bytes32) is missing"),
        (lambda sign: sign["value"].update(id="0x1234"), "message.id should be 32 bytes"),
        (lambda sign: sign["value"].update(nonce="soon"), "message.nonce should be a whole"),
    ]:
        wire = load("quote_venue_withdrawal.json")
        change(_authorize(wire)["sign"])
        typed = [r for r in failures(guards(wire)) if r.name == "typed-data"]
        assert len(typed) == 1, failures(guards(wire))
        assert f"refusing to sign the NonceMapping: {says}" in typed[0].message


def test_check_item_covers_the_cross_step_nonce() -> None:
    wire = load("quote_venue_withdrawal.json")
    wire["steps"][1]["items"][0]["data"]["nonce"] += 1
    wire["steps"][1]["items"][0]["data"]["action"]["parameters"]["nonce"] += 1
    quote = Quote.from_wire(wire)
    for step_index in (0, 1):
        names = {f.name for f in failures(check_item(quote, step_index, 0, wallet=WALLET))}
        assert "venue-nonce" in names


def test_refusal_lists_every_failure() -> None:
    wire = load("quote_venue_withdrawal.json")
    params = wire["steps"][1]["items"][0]["data"]["action"]["parameters"]
    params["destination"] = "0x" + "22" * 20
    params["amount"] = "11"
    with pytest.raises(GuardRefused) as caught:
        require(guards(wire))
    names = [f.name for f in caught.value.failures]
    assert names == ["send-asset-destination", "send-asset-amount", "send-asset-depository"]
    assert "nothing was signed" in str(caught.value)
    assert caught.value.exit_code == 7


def test_built_send_asset_domain() -> None:
    typed = {"domain": {"name": "VenueSignTransaction", "verifyingContract": "0x" + "0" * 40}}
    assert built_domain_guard(typed, "VenueSignTransaction", "here").ok
    typed["domain"]["verifyingContract"] = "0x" + "01" * 20
    assert not built_domain_guard(typed, "VenueSignTransaction", "here").ok


def test_every_event_is_json_without_surprises() -> None:
    guard = GuardResult("tx-payment", True, "pays", "step 'deposit' item 0")
    request = ev.SignRequest(
        "transaction", "deposit", 0, "Send", ("to 0x1",), {"value": 1}, (guard,), 8453
    )
    samples = [
        ev.RunStarted("0x01", WALLET, ("deposit",)),
        ev.GuardsChecked((guard,)),
        ev.StepStarted("deposit", 0, 0, "transaction"),
        ev.AwaitingConfirmation(request),
        ev.AwaitingSignature(request),
        ev.Signed("deposit", 0, "transaction"),
        ev.TxSent("0xab", 8453, 0),
        ev.TxConfirmed("0xab", 8453, 10, 21000),
        ev.Posted("/authorize", "authorize", 0, ("ack",)),
        ev.VenueSubmitted(5),
        ev.ItemSkipped("deposit", 0, "already done"),
        ev.Note("hi"),
        ev.StatusChanged("pending", ("0xab",)),
        ev.Finished("0x01", "refund", "TRANSFER_FAILED"),
        ev.Failed("boom", "GuardRefused", 7, "0x01", (guard,)),
    ]
    for event in samples:
        data = json.loads(json.dumps(event.to_json()))
        assert data["event"] == type(event).__name__
    assert json.loads(json.dumps(samples[3].to_json()))["what"]["guards"][0]["name"] == "tx-payment"
    assert ev.exit_code_of(samples[-2]) == 8 and ev.exit_code_of(samples[-1]) == 7
    assert ev.exit_code_of(ev.Finished("0x01", "success")) == 0
    assert ev.exit_code_of(ev.Finished("0x01", "failure")) == 9


def _paid_on_base(wire: dict[str, Any]) -> dict[str, Any]:
    wire["steps"][1]["items"][0]["data"]["data"] = _deposit_calldata(wire)
    wire["protocol"]["v2"]["paymentDetails"]["chainId"] = "base"  # the public form: a name
    return wire


DEPOSITORY = "0x4cd00e387622c35bddb9b4c962c136462338bc31"


def _chains(*named: tuple[int, str]) -> ChainsResponse:
    return ChainsResponse.from_wire(
        {
            "chains": [
                {"id": i, "name": n, "protocol": {"v2": {"chainId": n, "depository": DEPOSITORY}}}
                for i, n in named
            ]
        }
    )


def test_a_payment_chain_name_is_mapped_through_chains() -> None:
    wire = _paid_on_base(load("quote_evm.json"))
    ok = guards(wire, rpc_chain_ids={8453}, chains=_chains((8453, "base"), (999, "hyperevm")))
    assert failures(ok) == []
    assert any(r.name == "payment-chain" and "is chain 8453" in r.message for r in ok)
    # the same name on another id: the transactions are on the wrong chain
    moved = failures(guards(wire, rpc_chain_ids={8453}, chains=_chains((10, "base"))))
    assert {f.name for f in moved} == {"tx-chain-id", "tx-destination"}
    # a name /chains does not know, or no /chains at all, is refused in words
    for chains in (_chains((999, "hyperevm")), None):
        refused = failures(guards(wire, rpc_chain_ids={8453}, chains=chains))
        assert refused[0].name == "payment-chain"
        assert "paymentDetails.chainId 'base'" in refused[0].message


def test_a_deposit_address_step_is_paid_by_a_plain_transfer() -> None:
    wire = _paid_on_base(load("quote_evm.json"))
    address = "0x" + "5a" * 20
    wire["steps"] = [wire["steps"][1]]
    wire["steps"][0]["depositAddress"] = address
    tx = wire["steps"][0]["items"][0]["data"]
    chains = _chains((8453, "base"))
    native = wire["protocol"]["v2"]["paymentDetails"]["currency"] == "0x" + "0" * 40
    amount = int(wire["protocol"]["v2"]["paymentDetails"]["amount"])
    if native:
        tx.update(to=address, data="0x", value=str(amount))
    else:
        tx.update(
            to=wire["protocol"]["v2"]["paymentDetails"]["currency"],
            value="0",
            data="0xa9059cbb" + "00" * 12 + address[2:] + f"{amount:064x}",
        )
    assert failures(guards(wire, rpc_chain_ids={8453}, chains=chains)) == []
    tx["data"] = tx["data"][:-1] + ("1" if tx["data"][-1] != "1" else "2")
    if native:
        tx["data"] = "0x1234"
    [failed] = failures(guards(wire, rpc_chain_ids={8453}, chains=chains))
    assert failed.name == "tx-payment"


def test_chains_contracts_are_allowed_destinations_by_role() -> None:
    chains = ChainsResponse.from_wire(json.loads((FIXTURES / "chains.json").read_text()))
    base = chains.by_id(8453)
    assert base is not None
    assert base.contract_addresses() == {
        "0xca11bde05977b3631167028862be2a173976ca11": "multicall3",
        "0xb92fe925dc43a0ecde6c8b1a2709c170ec4fff4f": "router 3 (v3.erc20Router)",
    }
    wire = _paid_on_base(load("quote_evm.json"))
    wire["steps"][0]["items"][0]["data"]["data"] = (
        SELECTORS["approve"] + encode(["address", "uint256"], [_ROUTER, 10_000_000]).hex()
    )
    ok = guards(wire, rpc_chain_ids={8453}, chains=chains)
    assert failures(ok) == []
    assert any("approve 10 USDC to the router 3 (v3.erc20Router) contract" in r.message for r in ok)
    # an approve of the same amount to an address /chains does not name is refused
    wire["steps"][0]["items"][0]["data"]["data"] = (
        SELECTORS["approve"] + encode(["address", "uint256"], ["0x" + "31" * 20, 10_000_000]).hex()
    )
    [failed] = failures(guards(wire, rpc_chain_ids={8453}, chains=chains))
    assert "nor a contract /chains names" in failed.message


_ROUTER = "0xb92fe925dc43a0ecde6c8b1a2709c170ec4fff4f"
