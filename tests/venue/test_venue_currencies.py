"""Venue currency addressing (spec 2.4): perps, spot, HIP-3."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crossdeck.models.venue import SpotMeta
from crossdeck.venue.currencies import (
    PERPS_USDC_ADDRESS,
    SPOT_USDC_TOKEN_ID,
    describe_venue_currency,
    hip3_address,
    parse_hip3,
    parse_token_string,
    spot_token_for,
    token_string,
)
from crossdeck.venue.errors import VenueDataError

from .conftest import SPOT_META

USDE_ID = "0x2e6d84f2d7ca82e6581e03523e4389f7"


@pytest.fixture
def meta() -> SpotMeta:
    return SpotMeta.model_validate(SPOT_META)


def test_fixed_addresses() -> None:
    assert PERPS_USDC_ADDRESS == "0x00000000000000000000000000000000"
    assert len(PERPS_USDC_ADDRESS) == 34
    assert SPOT_USDC_TOKEN_ID == "0x6d1e7cde53ba9467b783cb7c530ce054"


def test_token_strings() -> None:
    assert token_string("USDC", SPOT_USDC_TOKEN_ID) == f"USDC:{SPOT_USDC_TOKEN_ID}"
    assert token_string("USDE", USDE_ID.upper().replace("0X", "0x")) == f"USDE:{USDE_ID}"
    assert parse_token_string(f"USDC:{SPOT_USDC_TOKEN_ID}") == ("USDC", SPOT_USDC_TOKEN_ID)
    for bad in ("USDC", "USDC:0x12", ":" + SPOT_USDC_TOKEN_ID):
        with pytest.raises(VenueDataError):
            parse_token_string(bad)


def test_hip3_address_is_spot_address_plus_hex_of_the_dex_name() -> None:
    address = hip3_address(USDE_ID, "xyz")
    assert address == USDE_ID + "78797a"
    assert parse_hip3(address) == (USDE_ID, "xyz")


@given(
    spot=st.binary(min_size=16, max_size=16).map(lambda b: "0x" + b.hex()),
    dex=st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1),
)
def test_hip3_round_trip(spot: str, dex: str) -> None:
    if dex == "spot":
        return
    assert parse_hip3(hip3_address(spot, dex)) == (spot, dex)


def test_parse_hip3_refuses_other_forms() -> None:
    assert parse_hip3(PERPS_USDC_ADDRESS) is None
    assert parse_hip3(SPOT_USDC_TOKEN_ID) is None
    assert parse_hip3(USDE_ID + "7") is None  # half a byte
    assert parse_hip3(USDE_ID + "00") is None  # not a printable name
    assert parse_hip3(USDE_ID + "ff") is None  # not ASCII
    assert parse_hip3("0x1234") is None
    with pytest.raises(VenueDataError):
        hip3_address("0x1234", "xyz")
    with pytest.raises(VenueDataError):
        hip3_address(USDE_ID, "has space")
    with pytest.raises(VenueDataError):
        hip3_address(USDE_ID, "")


def test_describe_perps_spot_and_hip3(meta: SpotMeta) -> None:
    perps = describe_venue_currency(PERPS_USDC_ADDRESS, meta)
    assert (perps.kind, perps.name, perps.dex) == ("perps", "USDC", "")
    assert perps.token_string == f"USDC:{SPOT_USDC_TOKEN_ID}"

    spot_usdc = describe_venue_currency(SPOT_USDC_TOKEN_ID.upper().replace("0X", "0x"), meta)
    assert (spot_usdc.kind, spot_usdc.name, spot_usdc.dex) == ("spot", "USDC", "spot")
    assert spot_usdc.token_id == SPOT_USDC_TOKEN_ID

    usde = describe_venue_currency(USDE_ID, meta)
    assert (usde.kind, usde.name, usde.token_string) == ("spot", "USDE", f"USDE:{USDE_ID}")

    on_dex = describe_venue_currency(hip3_address(USDE_ID, "xyz"), meta)
    assert (on_dex.kind, on_dex.name, on_dex.dex) == ("hip3", "USDE", "xyz")
    assert on_dex.token_string == f"USDE:{USDE_ID}"


def test_usdc_is_known_without_spot_meta() -> None:
    assert describe_venue_currency(PERPS_USDC_ADDRESS).token_id == SPOT_USDC_TOKEN_ID
    assert describe_venue_currency(SPOT_USDC_TOKEN_ID).kind == "spot"
    with pytest.raises(VenueDataError, match="no spotMeta"):
        describe_venue_currency(USDE_ID)


def test_unknown_or_malformed_addresses(meta: SpotMeta) -> None:
    with pytest.raises(VenueDataError, match="not a known spot token"):
        describe_venue_currency("0x" + "12" * 16, meta)
    with pytest.raises(VenueDataError, match="not a venue currency address"):
        describe_venue_currency("0x1234", meta)


def test_spot_token_lookup(meta: SpotMeta) -> None:
    assert spot_token_for(meta, "USDE").token_id == USDE_ID
    # the venue writes 'USDE'; the service, the seed and users write 'USDe'
    assert spot_token_for(meta, "USDe").token_id == USDE_ID
    assert spot_token_for(meta, "usde").token_id == USDE_ID
    assert spot_token_for(meta, USDE_ID).name == "USDE"
    assert meta.token_by_index(0) is not None and meta.token_by_index(0).name == "USDC"  # type: ignore[union-attr]
    with pytest.raises(VenueDataError):
        spot_token_for(meta, "NOPE")


def test_exact_spelling_wins_over_a_case_variant_then_canonical_wins() -> None:
    def token(name: str, index: int, canonical: bool) -> dict[str, object]:
        token_id = f"0x{index:032x}"
        return {"name": name, "index": index, "tokenId": token_id, "isCanonical": canonical}

    meta = SpotMeta.model_validate(
        {"tokens": [token("ABC", 1, True), token("abc", 2, False), token("Abc", 3, False)]}
    )
    assert spot_token_for(meta, "abc").index == 2  # spelled exactly so, though not canonical
    assert spot_token_for(meta, "aBC").index == 1  # no exact spelling: the canonical one
    assert spot_token_for(meta, "Abc").index == 3
