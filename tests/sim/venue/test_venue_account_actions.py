"""The world's venue beyond sendAsset: account modes, class transfers, sends to other accounts,
sub accounts and the account reads, over HTTP with an independent signer (the field lists are
written here from the venue SDK's published `signing.py` lists, not taken from the world), in
both brands. Refusals are in the venue's words and move nothing; a refused nonce stays usable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eth_account import Account
from eth_account.messages import encode_typed_data

from crossdeck.sim.brand import Brand
from crossdeck.sim.venue import HIP3_DEX_NAME, VenueLedger
from crossdeck.sim.venue.actions import apply_usd_class_transfer

from .support import (
    OTHER,
    PAYER,
    PAYER_KEY,
    PERPS_USDC,
    SPOT_USDC_ID,
    USDC_UNIT,
    fresh_nonce,
    signed_body,
)

REALDATA = Path(__file__).resolve().parents[4] / "shared" / "realdata"

OK = {"status": "ok", "response": {"type": "default"}}
FIELDS = {  # after the '<venue>Chain' field
    "usdClassTransfer": ("UsdClassTransfer", [("amount", "string"), ("toPerp", "bool"),
                                              ("nonce", "uint64")]),
    "usdSend": ("UsdSend", [("destination", "string"), ("amount", "string"), ("time", "uint64")]),
    "spotSend": ("SpotSend", [("destination", "string"), ("token", "string"),
                              ("amount", "string"), ("time", "uint64")]),
    "userSetAbstraction": ("UserSetAbstraction", [("user", "address"), ("abstraction", "string"),
                                                  ("nonce", "uint64")]),
}  # fmt: skip


def body(brand: Brand, kind: str, key: str = PAYER_KEY, **fields: Any) -> dict[str, Any]:
    title, tail = FIELDS[kind]
    chain = brand.venue_name[0].lower() + brand.venue_name[1:] + "Chain"
    nonce_field = "time" if kind in ("usdSend", "spotSend") else "nonce"
    nonce = fields.pop(nonce_field, None) or fresh_nonce()
    action = {"type": kind, "signatureChainId": "0xa4b1", chain: "Mainnet", **fields,
              nonce_field: nonce}  # fmt: skip
    primary = f"{brand.venue_name}Transaction:{title}"
    typed = {
        "domain": {"name": f"{brand.venue_name}SignTransaction", "version": "1",
                   "chainId": 0xA4B1, "verifyingContract": "0x" + "0" * 40},
        "types": {
            primary: [{"name": chain, "type": "string"}]
            + [{"name": n, "type": t} for n, t in tail],
            "EIP712Domain": [{"name": "name", "type": "string"},
                             {"name": "version", "type": "string"},
                             {"name": "chainId", "type": "uint256"},
                             {"name": "verifyingContract", "type": "address"}],
        },
        "primaryType": primary,
        "message": action,
    }  # fmt: skip
    signed = Account.sign_message(encode_typed_data(full_message=typed), key)
    signature = {"r": hex(signed.r), "s": hex(signed.s), "v": signed.v}
    return {"action": action, "nonce": nonce, "signature": signature}


async def post(venue: Any, sent: dict[str, Any]) -> Any:
    return (await venue.exchange(sent)).json()


def funded(venue: Any, usdc: int = 100) -> None:
    venue.ledger.credit(PAYER.address, PERPS_USDC, usdc * USDC_UNIT)


async def test_class_transfer_both_ways_and_its_refusals(venue: Any) -> None:
    funded(venue)
    sent = body(venue.brand, "usdClassTransfer", amount="30", toPerp=False)
    assert await post(venue, sent) == OK
    assert venue.ledger.balance(PAYER.address, SPOT_USDC_ID) == 30 * USDC_UNIT
    assert (await post(venue, sent))["response"] == "Invalid nonce: duplicate nonce"
    too_much = body(venue.brand, "usdClassTransfer", amount="31", toPerp=True)
    answer = await post(venue, too_much)
    assert answer["status"] == "err" and "Insufficient balance" in answer["response"]
    # refused, its nonce is still free
    assert not venue.ledger.nonce_used(PAYER.address, too_much["nonce"])
    back = body(venue.brand, "usdClassTransfer", amount="10", toPerp=True)
    assert await post(venue, back) == OK
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == 80 * USDC_UNIT


async def test_usd_send_nonce_is_its_time_field(venue: Any) -> None:
    funded(venue)
    sent = body(venue.brand, "usdSend", destination=OTHER.address, amount="5")
    sent["nonce"] += 1  # the body's nonce must be the action's `time`
    answer = await post(venue, sent)
    assert answer["status"] == "err" and "does not match" in answer["response"]
    assert venue.ledger.balance(OTHER.address, PERPS_USDC) == 0


async def test_sending_to_oneself_with_usd_send_is_refused(venue: Any) -> None:
    funded(venue)
    answer = await post(venue, body(venue.brand, "usdSend", destination=PAYER.address, amount="1"))
    assert answer == {"status": "err", "response": "Cannot send to the same account and dex"}


async def test_modes_are_set_by_the_account_itself_only(venue: Any) -> None:
    funded(venue)
    other = body(venue.brand, "userSetAbstraction", user=OTHER.address.lower(),
                 abstraction="unifiedAccount")  # fmt: skip
    answer = await post(venue, other)
    assert answer["status"] == "err" and "only the account itself" in answer["response"]
    odd = body(venue.brand, "userSetAbstraction", user=PAYER.address.lower(), abstraction="max")
    assert "Invalid abstraction" in (await post(venue, odd))["response"]
    mine = body(venue.brand, "userSetAbstraction", user=PAYER.address.lower(),
                abstraction="portfolioMargin")  # fmt: skip
    assert await post(venue, mine) == OK
    read = await venue.info({"type": "userAbstraction", "user": PAYER.address})
    assert read.json() == "portfolioMargin"
    state = (await venue.info({"type": "clearinghouseState", "user": PAYER.address})).json()
    assert state["withdrawable"] == "0.0"
    assert venue.ledger.balance(PAYER.address, SPOT_USDC_ID) == 100 * USDC_UNIT
    # a deposit to perps lands on the unified balance
    venue.ledger.credit(PAYER.address, PERPS_USDC, 5 * USDC_UNIT)
    assert venue.ledger.balance(PAYER.address, SPOT_USDC_ID) == 105 * USDC_UNIT
    assert venue.ledger.spendable(PAYER.address, PERPS_USDC) == 105 * USDC_UNIT


async def test_class_transfer_out_of_a_sub_account(venue: Any) -> None:
    funded(venue)
    sub = venue.ledger.add_sub_account(PAYER.address, "desk")
    venue.ledger.credit(sub, PERPS_USDC, 20 * USDC_UNIT)
    sent = body(venue.brand, "usdClassTransfer", amount=f"7 subaccount:{sub}", toPerp=False)
    assert await post(venue, sent) == OK
    assert venue.ledger.balance(sub, SPOT_USDC_ID) == 7 * USDC_UNIT
    foreign = venue.ledger.add_sub_account(OTHER.address, "theirs")
    refused = body(venue.brand, "usdClassTransfer", amount=f"1 subaccount:{foreign}", toPerp=False)
    assert "not a sub account of" in (await post(venue, refused))["response"]
    listed = (await venue.info({"type": "subAccounts", "user": PAYER.address})).json()
    assert [(s["name"], s["subAccountUser"]) for s in listed] == [("desk", sub)]


async def test_account_reads_refuse_a_body_without_a_user(venue: Any) -> None:
    for kind in ("userAbstraction", "subAccounts", "userVaultEquities", "userRole"):
        answer = await venue.info({"type": kind})
        assert answer.status_code == 422 and "user" in answer.text
    answer = await venue.info({"type": "userNonFundingLedgerUpdates", "user": PAYER.address})
    assert answer.status_code == 422 and "startTime" in answer.text


def test_a_restart_keeps_modes_sub_accounts_vaults_and_updates(tmp_path: Any) -> None:
    path = tmp_path / "venue.sqlite3"
    ledger = VenueLedger(path)
    ledger.credit(PAYER.address, PERPS_USDC, 10 * USDC_UNIT)
    apply_usd_class_transfer(
        ledger, signer=PAYER.address, amount_text="2", to_perp=False, nonce=ledger.now_ms()
    )
    ledger.set_mode(PAYER.address, "unifiedAccount")
    sub = ledger.add_sub_account(PAYER.address, "desk")
    ledger.set_vault_equity(PAYER.address, OTHER.address, 3 * USDC_UNIT, 42)
    ledger.close()
    again = VenueLedger(path)
    assert again.mode(PAYER.address) == "unifiedAccount"
    assert again.balance(PAYER.address, SPOT_USDC_ID) == 10 * USDC_UNIT
    assert [s.address for s in again.sub_accounts(PAYER.address)] == [sub]
    assert again.master_of(sub) == PAYER.address.lower()
    assert [v.equity for v in again.vault_equities(PAYER.address)] == [3 * USDC_UNIT]
    assert [u["delta"]["type"] for u in again.updates(PAYER.address)] == ["accountClassTransfer"]
    again.close()


async def test_every_new_action_is_answered_as_the_venue_answers(venue: Any) -> None:
    """usdClassTransfer, usdSend, spotSend, sendAsset to oneself and userSetAbstraction are
    answered with the recorded /exchange success body (../shared/realdata/venue-exchange/)."""
    ok = json.loads((REALDATA / "venue-exchange" / "jkorf-exchange-ok-default.json").read_text())
    funded(venue, 50)
    bodies = [
        body(venue.brand, "usdClassTransfer", amount="5", toPerp=False),
        body(venue.brand, "usdSend", destination=OTHER.address, amount="1"),
        body(venue.brand, "spotSend", destination=OTHER.address,
             token=f"USDC:{SPOT_USDC_ID}", amount="1"),
        signed_body(venue.brand, destination=PAYER.address, destination_dex=HIP3_DEX_NAME,
                    amount="2"),
        body(venue.brand, "userSetAbstraction", user=PAYER.address.lower(),
             abstraction="unifiedAccount"),
    ]  # fmt: skip
    for sent in bodies:
        answer = await venue.exchange(sent)
        assert answer.status_code == 200 and answer.json() == ok, sent["action"]["type"]
