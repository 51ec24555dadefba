"""POST /info of the sim venue: the metadata reads (spotMeta, meta, perpDexs and the AssetCtxs
pairs) and the balance reads (clearinghouseState, spotClearinghouseState)."""

from __future__ import annotations

from crossdeck.sim.venue import USDE_TOKEN_ID, hip3_address

from .support import PAYER, PERPS_USDC, SOLVER, SPOT_USDC_ID, USDC_UNIT


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
        "deployerTradingFeeShare": "0.0",
    }
    names = [t["name"] for t in meta["tokens"]]
    assert names == ["USDC", "USDE", "USDH"]
    for token in meta["tokens"]:
        assert len(token["tokenId"]) == 2 + 32 and int(token["tokenId"], 16) >= 0
    assert [t["index"] for t in meta["tokens"]] == [0, 1, 2]
    assert [t["isCanonical"] for t in meta["tokens"]] == [True, False, False]
    for i, pair in enumerate(meta["universe"]):
        # as the public venue names a pair of non-canonical tokens: '@' + its index
        assert pair == {"tokens": [i + 1, 0], "name": f"@{i}", "index": i, "isCanonical": False}


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
    assert spot == {"balances": [], "tokenToAvailableAfterMaintenance": []}


async def test_spot_clearinghouse_state_lists_held_tokens(venue) -> None:
    venue.ledger.credit(PAYER.address, SPOT_USDC_ID, 25 * USDC_UNIT + 1)
    venue.ledger.credit(PAYER.address, USDE_TOKEN_ID, 3 * 10**8)
    resp = await venue.info({"type": "spotClearinghouseState", "user": PAYER.address.lower()})
    assert resp.json()["balances"] == [
        {"coin": "USDC", "token": 0, "total": "25.00000001", "hold": "0.0", "entryNtl": "0.0"},
        {"coin": "USDE", "token": 1, "total": "3.0", "hold": "0.0", "entryNtl": "0.0"},
    ]
    assert resp.json()["tokenToAvailableAfterMaintenance"] == [[0, "25.00000001"], [1, "3.0"]]


async def test_meta_lists_the_default_dex_markets_and_their_margin_tables(venue) -> None:
    for body in ({"type": "meta"}, {"type": "meta", "dex": ""}):
        meta = (await venue.info(body)).json()
        assert [a["name"] for a in meta["universe"]] == ["ETH", "HYPE"]
        assert meta["collateralToken"] == 0
        tables = dict((table_id, table) for table_id, table in meta["marginTables"])
        for asset in meta["universe"]:
            assert set(asset) == {"szDecimals", "name", "maxLeverage", "marginTableId"}
            tiers = tables[asset["marginTableId"]]["marginTiers"]
            assert tiers == [{"lowerBound": "0.0", "maxLeverage": asset["maxLeverage"]}]


async def test_meta_of_the_hip3_dex_prefixes_its_coins_with_the_dex_name(venue) -> None:
    meta = (await venue.info({"type": "meta", "dex": "xyz"})).json()
    assert [a["name"] for a in meta["universe"]] == ["xyz:DEMO"]


async def test_meta_and_asset_ctxs_pairs_each_market_with_its_context(venue) -> None:
    meta, ctxs = (await venue.info({"type": "metaAndAssetCtxs"})).json()
    assert meta == (await venue.info({"type": "meta"})).json()
    assert len(ctxs) == len(meta["universe"])
    eth = ctxs[0]
    assert eth["markPx"] == eth["oraclePx"] == eth["midPx"] == "3000.0"
    assert eth["impactPxs"] == ["3000.0", "3000.0"] and eth["openInterest"] == "0.0"


async def test_spot_meta_and_asset_ctxs_reports_supply_from_the_ledger(venue) -> None:
    venue.ledger.credit(PAYER.address, USDE_TOKEN_ID, 3 * 10**8)
    venue.ledger.credit(SOLVER, USDE_TOKEN_ID, 2 * 10**8 + 5)
    spot_meta, ctxs = (await venue.info({"type": "spotMetaAndAssetCtxs"})).json()
    assert spot_meta == (await venue.info({"type": "spotMeta"})).json()
    assert [c["coin"] for c in ctxs] == [p["name"] for p in spot_meta["universe"]]
    assert ctxs[0]["totalSupply"] == ctxs[0]["circulatingSupply"] == "5.00000005"  # USDE
    assert ctxs[1]["totalSupply"] == "0.0"  # USDH: nobody holds any


async def test_unknown_type_and_bad_fields_are_422(venue) -> None:
    bad_bodies = [
        {"type": "allMids2"},
        {"type": "clearinghouseState"},
        {"type": "clearinghouseState", "user": "0x1234"},
        {"type": "clearinghouseState", "user": PAYER.address, "dex": "nope"},
        {"type": "clearinghouseState", "user": PAYER.address, "dex": "spot"},
        {"type": "meta", "dex": "nope"},
        {"type": "metaAndAssetCtxs", "dex": 3},
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
