"""POST /info of the sim venue: spotMeta, clearinghouseState, spotClearinghouseState shapes."""

from __future__ import annotations

from sim_parts_support import PAYER, PERPS_USDC, SPOT_USDC_ID, USDC_UNIT

from crossdeck.sim.venue import USDE_TOKEN_ID, hip3_address


async def test_spot_meta_lists_usdc_at_index_0_with_its_public_token_id(venue) -> None:
    resp = await venue.info({"type": "spotMeta"})
    assert resp.status_code == 200
    meta = resp.json()
    usdc = meta["tokens"][0]
    assert usdc == {
        "name": "USDC",
        "szDecimals": 8,
        "weiDecimals": 8,
        "index": 0,
        "tokenId": SPOT_USDC_ID,
        "isCanonical": True,
        "evmContract": None,
        "fullName": "USD Coin",
    }
    names = [t["name"] for t in meta["tokens"]]
    assert names == ["USDC", "USDe", "USDH"]
    for token in meta["tokens"]:
        assert len(token["tokenId"]) == 2 + 32 and int(token["tokenId"], 16) >= 0
    assert [t["index"] for t in meta["tokens"]] == [0, 1, 2]
    for pair in meta["universe"]:
        assert set(pair) == {"tokens", "name", "index", "isCanonical"}
        assert pair["tokens"][1] == 0  # quoted in USDC


async def test_perp_dexs_names_the_hip3_dex(venue) -> None:
    resp = await venue.info({"type": "perpDexs"})
    dexes = resp.json()
    assert dexes[0] is None
    assert dexes[1]["name"] == "xyz"
    assert hip3_address(SPOT_USDC_ID, "xyz") == SPOT_USDC_ID + "78797a"


async def test_clearinghouse_state_reports_withdrawable_as_usd_decimal_string(venue) -> None:
    venue.ledger.credit(PAYER.address, PERPS_USDC, 1234 * USDC_UNIT + USDC_UNIT // 2)
    resp = await venue.info({"type": "clearinghouseState", "user": PAYER.address})
    assert resp.status_code == 200
    state = resp.json()
    assert state["withdrawable"] == "1234.5"
    for key in ("marginSummary", "crossMarginSummary"):
        assert state[key] == {
            "accountValue": "1234.5",
            "totalMarginUsed": "0.0",
            "totalNtlPos": "0.0",
            "totalRawUsd": "1234.5",
        }
    assert state["assetPositions"] == []
    with_dex = await venue.info({"type": "clearinghouseState", "user": PAYER.address, "dex": ""})
    assert with_dex.json()["withdrawable"] == "1234.5"


async def test_hip3_dex_balance_is_separate_from_default_perps(venue) -> None:
    venue.ledger.credit(PAYER.address, hip3_address(SPOT_USDC_ID, "xyz"), 7 * USDC_UNIT)
    default = await venue.info({"type": "clearinghouseState", "user": PAYER.address})
    xyz = await venue.info({"type": "clearinghouseState", "user": PAYER.address, "dex": "xyz"})
    assert default.json()["withdrawable"] == "0.0"
    assert xyz.json()["withdrawable"] == "7.0"


async def test_unknown_user_has_zero_everything(venue) -> None:
    user = "0x" + "ab" * 20
    state = (await venue.info({"type": "clearinghouseState", "user": user})).json()
    assert state["withdrawable"] == "0.0"
    spot = (await venue.info({"type": "spotClearinghouseState", "user": user})).json()
    assert spot == {"balances": []}


async def test_spot_clearinghouse_state_lists_held_tokens(venue) -> None:
    venue.ledger.credit(PAYER.address, SPOT_USDC_ID, 25 * USDC_UNIT + 1)
    venue.ledger.credit(PAYER.address, USDE_TOKEN_ID, 3 * 10**8)
    resp = await venue.info({"type": "spotClearinghouseState", "user": PAYER.address.lower()})
    assert resp.json()["balances"] == [
        {"coin": "USDC", "token": 0, "total": "25.00000001", "hold": "0.0", "entryNtl": "0.0"},
        {"coin": "USDe", "token": 1, "total": "3.0", "hold": "0.0", "entryNtl": "0.0"},
    ]


async def test_unknown_type_and_bad_fields_are_422(venue) -> None:
    bad_bodies = [
        {"type": "allMids2"},
        {"type": "clearinghouseState"},
        {"type": "clearinghouseState", "user": "0x1234"},
        {"type": "clearinghouseState", "user": PAYER.address, "dex": "nope"},
        {"type": "clearinghouseState", "user": PAYER.address, "dex": "spot"},
        {"type": 5},
        [],
        "spotMeta",
    ]
    for body in bad_bodies:
        resp = await venue.info(body)
        assert resp.status_code == 422, body
        assert "Failed to deserialize" in resp.text


async def test_non_json_info_body_is_400(venue) -> None:
    resp = await venue.http.post(f"{venue.url}/info", content=b"{not json")
    assert resp.status_code == 400
