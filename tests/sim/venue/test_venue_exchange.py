"""POST /exchange sendAsset on the sim venue, signed independently from the spec's text."""

from __future__ import annotations

import asyncio

import pytest

from crossdeck.sim.venue import USDE_TOKEN_ID, SendAssetRecord, hip3_address

from .support import (
    OTHER,
    OTHER_KEY,
    PAYER,
    PERPS_USDC,
    SOLVER,
    SPOT_USDC_ID,
    USDC_UNIT,
    build_action,
    now_ms,
    sign,
    signed_body,
)

OK = {"status": "ok", "response": {"type": "default"}}
FEE = USDC_UNIT  # default first-send fee: 1 USDC


def funded(venue, amount: int = 100 * USDC_UNIT) -> None:
    venue.ledger.credit(PAYER.address, PERPS_USDC, amount)


def snapshot(venue) -> tuple[dict[str, int], dict[str, int]]:
    return venue.ledger.balances(PAYER.address), venue.ledger.balances(SOLVER)


async def expect_err(venue, body, fragment: str) -> None:
    before = snapshot(venue)
    resp = await venue.exchange(body)
    assert resp.status_code == 200, resp.text
    data = resp.json()
    assert data["status"] == "err", data
    assert fragment in data["response"], data
    assert snapshot(venue) == before


async def test_signed_send_moves_perps_usdc_and_notifies(venue) -> None:
    funded(venue)
    seen: list[SendAssetRecord] = []
    venue.ledger.on_send_asset(seen.append)
    body = signed_body(venue.brand, amount="12.5")

    resp = await venue.exchange(body)

    assert resp.status_code == 200
    assert resp.json() == OK
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == 100 * USDC_UNIT - 1250000000 - FEE
    assert venue.ledger.balance(SOLVER, PERPS_USDC) == 1250000000
    [record] = seen
    assert record.user == PAYER.address.lower()
    assert record.destination == SOLVER
    assert record.amount == 12_50000000
    assert record.token == f"USDC:{SPOT_USDC_ID}"
    assert record.nonce == body["nonce"]
    assert (record.source_dex, record.destination_dex) == ("", "")
    assert record.signature_chain_id == 8453
    assert record.source_currency == PERPS_USDC
    assert record.fee == FEE


async def test_first_send_fee_only_once(venue) -> None:
    funded(venue, 10 * USDC_UNIT)
    assert (await venue.exchange(signed_body(venue.brand, amount="2"))).json() == OK
    assert (await venue.exchange(signed_body(venue.brand, amount="2"))).json() == OK
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == (10 - 2 - 2 - 1) * USDC_UNIT
    assert venue.ledger.fee_paid(PAYER.address)


async def test_max_send_fails_because_of_the_first_send_fee(venue) -> None:
    funded(venue, 10 * USDC_UNIT)
    await expect_err(venue, signed_body(venue.brand, amount="10"), "Insufficient balance")
    assert (await venue.exchange(signed_body(venue.brand, amount="9"))).json() == OK
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == 0


async def test_async_subscriber_is_awaited_on_the_loop(venue) -> None:
    funded(venue)
    got: asyncio.Queue[SendAssetRecord] = asyncio.Queue()

    async def on_send(record: SendAssetRecord) -> None:
        await got.put(record)

    venue.ledger.on_send_asset(on_send)
    body = signed_body(venue.brand, amount="1")
    assert (await venue.exchange(body)).json() == OK
    record = await asyncio.wait_for(got.get(), 5)
    assert record.nonce == body["nonce"]


async def test_spot_send_debits_spot_balance_and_fee_from_spot_usdc(venue) -> None:
    venue.ledger.credit(PAYER.address, USDE_TOKEN_ID, 5 * 10**8)
    venue.ledger.credit(PAYER.address, SPOT_USDC_ID, 2 * USDC_UNIT)
    body = signed_body(
        venue.brand,
        token=f"USDe:{USDE_TOKEN_ID}",
        amount="4.25",
        source_dex="spot",
        destination_dex="spot",
    )
    assert (await venue.exchange(body)).json() == OK
    assert venue.ledger.balance(PAYER.address, USDE_TOKEN_ID) == 75_000000
    assert venue.ledger.balance(SOLVER, USDE_TOKEN_ID) == 4_25000000
    assert venue.ledger.balance(PAYER.address, SPOT_USDC_ID) == 1 * USDC_UNIT


@pytest.mark.parametrize("name", ["USDe", "usde"])
async def test_token_name_is_matched_without_case_the_id_decides(venue, name: str) -> None:
    # The public venue spells it 'USDE' where wallets write 'USDe': same token, same id.
    venue.ledger.credit(PAYER.address, USDE_TOKEN_ID, 5 * 10**8)
    venue.ledger.credit(PAYER.address, SPOT_USDC_ID, 2 * USDC_UNIT)
    token = f"{name}:{USDE_TOKEN_ID.upper().replace('0X', '0x')}"
    body = signed_body(
        venue.brand, token=token, amount="1", source_dex="spot", destination_dex="spot"
    )
    assert (await venue.exchange(body)).json() == OK
    assert venue.ledger.balance(SOLVER, USDE_TOKEN_ID) == 1 * 10**8
    assert venue.ledger.sends()[-1].token == token  # recorded as signed


async def test_perps_to_hip3_dex_and_back_to_spot(venue) -> None:
    funded(venue)
    xyz = hip3_address(SPOT_USDC_ID, "xyz")
    to_dex = signed_body(venue.brand, amount="20", destination_dex="xyz")
    assert (await venue.exchange(to_dex)).json() == OK
    assert venue.ledger.balance(SOLVER, xyz) == 20 * USDC_UNIT
    from_dex = signed_body(venue.brand, amount="3", source_dex="xyz", destination_dex="spot")
    await expect_err(venue, from_dex, "Insufficient balance")  # the payer holds nothing on xyz
    venue.ledger.credit(PAYER.address, xyz, 5 * USDC_UNIT)
    assert (await venue.exchange(from_dex)).json() == OK
    assert venue.ledger.balance(SOLVER, SPOT_USDC_ID) == 3 * USDC_UNIT


async def test_a_perp_dex_only_holds_its_collateral(venue) -> None:
    venue.ledger.credit(PAYER.address, USDE_TOKEN_ID, 5 * 10**8)
    body = signed_body(venue.brand, token=f"USDe:{USDE_TOKEN_ID}", amount="1", source_dex="spot")
    await expect_err(venue, body, "collateral")


async def test_wrong_signer_is_refused(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand, key=OTHER_KEY)  # OTHER has no venue account
    await expect_err(venue, body, f"User or API Wallet {OTHER.address.lower()} does not exist.")


async def test_tampered_amount_recovers_another_signer(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand, amount="1")
    body["action"]["amount"] = "90"
    await expect_err(venue, body, "does not exist")


@pytest.mark.parametrize("bad_v", [0, 1, 26, 29, 2**255])
async def test_v_other_than_27_or_28_is_refused(venue, bad_v: int) -> None:
    funded(venue)
    body = signed_body(venue.brand)
    body["signature"]["v"] = bad_v
    await expect_err(venue, body, "v must be the integer 27 or 28")


@pytest.mark.parametrize("bad_v", ["27", "0x1b", 27.0, True, None])
async def test_v_that_is_not_an_integer_does_not_deserialize(venue, bad_v) -> None:
    funded(venue)
    body = signed_body(venue.brand)
    before = snapshot(venue)
    body["signature"]["v"] = bad_v
    resp = await venue.exchange(body)
    assert resp.status_code == 422
    assert "signature.v" in resp.text
    assert snapshot(venue) == before


async def test_replayed_nonce_is_refused(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand, amount="1")
    assert (await venue.exchange(body)).json() == OK
    await expect_err(venue, body, "Invalid nonce: duplicate nonce")


async def test_stale_and_far_future_nonces_are_refused(venue) -> None:
    funded(venue)
    three_days = 3 * 24 * 3600 * 1000
    await expect_err(venue, signed_body(venue.brand, nonce=now_ms() - three_days), "past")
    await expect_err(venue, signed_body(venue.brand, nonce=now_ms() + three_days), "future")


async def test_refused_send_keeps_its_nonce_for_a_retry(venue) -> None:
    funded(venue, 1 * USDC_UNIT)
    body = signed_body(venue.brand, amount="5")
    await expect_err(venue, body, "Insufficient balance")
    funded(venue)
    assert (await venue.exchange(body)).json() == OK


async def test_mismatched_body_nonce_is_refused(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand)
    body["nonce"] += 1
    await expect_err(venue, body, "does not match")


async def test_insufficient_balance(venue) -> None:
    funded(venue, 5 * USDC_UNIT)
    await expect_err(venue, signed_body(venue.brand, amount="50"), "Insufficient balance")


@pytest.mark.parametrize(
    "token",
    [
        "USDC:0x00000000000000000000000000000001",
        "USDT:0x6d1e7cde53ba9467b783cb7c530ce054",
        f"USDe:{SPOT_USDC_ID}",  # a known name with another token's id
        "USDC",
        "0x6d1e7cde53ba9467b783cb7c530ce054",
    ],
)
async def test_unknown_token_is_refused(venue, token: str) -> None:
    funded(venue)
    await expect_err(venue, signed_body(venue.brand, token=token), "Unknown token")


@pytest.mark.parametrize("amount", ["0", "-1", "1e3", "1.123456789", ".5", "01", " 1", "1,5"])
async def test_bad_amount_is_refused(venue, amount: str) -> None:
    funded(venue)
    await expect_err(venue, signed_body(venue.brand, amount=amount), "Invalid amount")


async def test_testnet_chain_is_refused(venue) -> None:
    funded(venue)
    await expect_err(venue, signed_body(venue.brand, venue_chain="Testnet"), "Mainnet")


async def test_any_signature_chain_id_works_when_domain_and_message_agree(venue) -> None:
    funded(venue)
    for chain_id in (1, 0x66EEE, 421614):
        body = signed_body(venue.brand, chain_id=chain_id, amount="1")
        assert (await venue.exchange(body)).json() == OK


async def test_signature_chain_id_differing_from_signed_domain_is_refused(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand, chain_id=8453)
    body["action"]["signatureChainId"] = hex(1)
    await expect_err(venue, body, "does not exist")


async def test_the_other_brands_field_name_does_not_deserialize(venue) -> None:
    funded(venue)
    other = "hyperliquidChain" if venue.brand.key == "neutral" else "venueChain"
    action = build_action(venue.brand)
    mine = next(k for k in action if k.endswith("Chain"))
    action[other] = action.pop(mine)
    resp = await venue.exchange({"action": action, "nonce": action["nonce"], "signature": {}})
    assert resp.status_code == 422


async def test_malformed_bodies_are_4xx_and_change_nothing(venue) -> None:
    funded(venue)
    before = snapshot(venue)
    good = signed_body(venue.brand)
    raw = await venue.http.post(f"{venue.url}/exchange", content=b'{"action": ')
    assert raw.status_code == 400
    variants = [
        [],
        {},
        {"action": good["action"], "nonce": good["nonce"]},
        {**good, "nonce": str(good["nonce"])},
        {**good, "action": {**good["action"], "type": "usdSend"}},
        {**good, "action": {**good["action"], "extra": "x"}},
        {**good, "action": {**good["action"], "amount": 10}},
        {**good, "action": {**good["action"], "nonce": -1}, "nonce": -1},
        {**good, "signature": {"r": good["signature"]["r"], "v": 27}},
        {**good, "vaultAddress": SOLVER},
    ]
    for body in variants:
        resp = await venue.exchange(body)
        assert resp.status_code == 422, (body, resp.text)
    assert snapshot(venue) == before


async def test_r_and_s_must_be_hex_in_range(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand)
    n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    high_s = dict(
        body, signature={**body["signature"], "s": hex(n - int(body["signature"]["s"], 16))}
    )
    await expect_err(venue, high_s, "Invalid signature")
    not_hex = dict(body, signature={**body["signature"], "r": "zz"})
    await expect_err(venue, not_hex, "Invalid signature")


async def test_sdk_style_null_vault_and_expiry_are_accepted(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand, amount="1")
    body["vaultAddress"] = None
    body["expiresAfter"] = None
    assert (await venue.exchange(body)).json() == OK


async def test_destination_may_be_checksummed_and_is_credited_lowercase(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand, destination=OTHER.address, amount="1")
    assert (await venue.exchange(body)).json() == OK
    assert venue.ledger.balance(OTHER.address.lower(), PERPS_USDC) == USDC_UNIT
    # The destination now exists, so it can send back with its own key.
    back = {**build_action(venue.brand, destination=PAYER.address, amount="0.5")}
    signed = {
        "action": back,
        "nonce": back["nonce"],
        "signature": sign(venue.brand, back, OTHER_KEY),
    }
    # the send that created it carried the first-send fee: its own first send is free
    assert (await venue.exchange(signed)).json() == OK
    assert venue.ledger.balance(OTHER.address.lower(), PERPS_USDC) == USDC_UNIT // 2


async def test_perps_to_own_spot_is_a_class_transfer(venue) -> None:
    funded(venue)
    body = signed_body(venue.brand, destination=PAYER.address, amount="4", destination_dex="spot")
    assert (await venue.exchange(body)).json() == OK
    assert venue.ledger.balance(PAYER.address, SPOT_USDC_ID) == 4 * USDC_UNIT
    # a move between one's own books leaves the account: no first-send fee, none marked paid
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == (100 - 4) * USDC_UNIT
    assert not venue.ledger.fee_paid(PAYER.address)


async def test_send_to_self_on_the_same_dex_is_refused(venue) -> None:
    funded(venue)
    await expect_err(venue, signed_body(venue.brand, destination=PAYER.address), "same account")


async def test_unknown_dex_is_refused(venue) -> None:
    funded(venue)
    await expect_err(venue, signed_body(venue.brand, source_dex="abc"), "Unknown sourceDex")


async def test_a_send_that_creates_an_account_pays_its_activation_fee(venue) -> None:
    """The venue's docs ("Activation gas fee"): the first transaction that has a new account as
    its destination pays 1 USDC, whatever the sender's own first send: here the sender's is
    made, so only the new account's fee is taken, once; the account it creates is activated."""
    funded(venue, 10 * USDC_UNIT)
    assert (await venue.exchange(signed_body(venue.brand, amount="1"))).json() == OK  # first send
    new = OTHER.address.lower()
    check = {"type": "preTransferCheck", "user": OTHER.address, "source": PAYER.address}
    before = (await venue.info(check)).json()
    assert before == {"fee": "1.0", "isSanctioned": False, "userExists": False,
                      "userHasSentTx": False}  # fmt: skip
    assert (
        await venue.exchange(signed_body(venue.brand, destination=new, amount="2"))
    ).json() == OK
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == (10 - 1 - 1 - 2 - 1) * USDC_UNIT
    (update,) = [u for u in venue.ledger.updates(PAYER.address) if u["delta"]["destination"] == new]
    assert update["delta"]["fee"] == "1.0"
    after = (await venue.info(check)).json()
    assert after["fee"] == "0.0" and after["userExists"] is True
    # the second send to it pays nothing, and the account it created sends for free
    assert (
        await venue.exchange(signed_body(venue.brand, destination=new, amount="2"))
    ).json() == OK
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == (10 - 1 - 1 - 2 - 1 - 2) * USDC_UNIT
    assert venue.ledger.fee_paid(new)


async def test_a_fresh_account_sending_to_a_new_one_pays_both_fees_and_is_told_both(venue) -> None:
    funded(venue, 3 * USDC_UNIT)
    short = signed_body(venue.brand, destination=OTHER.address, amount="2")
    await expect_err(
        venue, short, "plus the first-send fee 1.0 USDC and the new-account fee 1.0 USDC"
    )
    body = signed_body(venue.brand, destination=OTHER.address, amount="1")
    assert (await venue.exchange(body)).json() == OK
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == 0  # 1 sent + 1 + 1 in fees


async def test_pre_transfer_check_refuses_a_missing_source(venue) -> None:
    answer = await venue.info({"type": "preTransferCheck", "user": OTHER.address})
    assert answer.status_code == 422 and "source" in answer.text
