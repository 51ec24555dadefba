from models_support import load

from crossdeck.models import VENUE_CHAIN_ID, ChainsResponse


def test_chains_lookup_and_venue_currencies() -> None:
    chains = ChainsResponse.from_wire(load("chains.json"))
    base = chains.by_id(8453)
    assert base is not None and base.display_name == "Base"
    assert base.depository == "0x4cd00e387622c35bddb9b4c962c136462338bc31"
    assert chains.by_id(1) is None
    venue = chains.venue
    assert venue is not None and venue.id == VENUE_CHAIN_ID
    addresses = [c.address for c in venue.currencies]
    assert addresses == ["0x" + "0" * 32, "0x6d1e7cde53ba9467b783cb7c530ce054"]
    found = venue.find_currency("0x6D1E7CDE53BA9467B783CB7C530CE054")
    assert found is not None and found.decimals == 8
    # native and ERC-20 lists overlap on base (solver list repeats USDC): no duplicates
    assert [c.symbol for c in base.currencies] == ["ETH", "USDC"]
