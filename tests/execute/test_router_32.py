"""Router 3.2 and its approval proxy (spec quote-v3.md section 8): the guards take a router or
approval proxy only as /chains names it for the chain (the top-level pair, `contracts.v3`,
`contracts["v3.2"]`), read live; an unknown key under `contracts` breaks nothing; a fresh
approval to the new proxy reads as such."""

from __future__ import annotations

import copy
import json
from typing import Any

from eth_abi import encode
from test_execute_guards_unit import FIXTURES, _paid_on_base, failures, guards, load

from crossdeck.execute.guards.calldata import SELECTORS
from crossdeck.models import ChainsResponse

NEW_ROUTER = "0x0729e2a4716d9f7dd17858d5d504426d228697f7"  # the public 3.2 pair (changelog)
NEW_PROXY = "0x5567954cd026cebfe486062cb75848e0f1c12e58"
OLD_ROUTER = "0xb92fe925dc43a0ecde6c8b1a2709c170ec4fff4f"


def _chains(contracts: dict[str, Any]) -> ChainsResponse:
    raw = json.loads((FIXTURES / "chains.json").read_text())
    for chain in raw["chains"]:
        if chain["id"] == 8453:
            chain["contracts"] = contracts
    return ChainsResponse.from_wire(raw)


TRANSITION = {
    "multicall3": "0xca11bde05977b3631167028862be2a173976ca11",
    "erc20Router": NEW_ROUTER,
    "approvalProxy": NEW_PROXY,
    "v3": {
        "erc20Router": OLD_ROUTER,
        "approvalProxy": "0xccc88a9d1b4ed6b0eaba998850414b24f1c315be",
    },
    "v3.2": {"erc20Router": NEW_ROUTER, "approvalProxy": NEW_PROXY},
    "v4-preview": {"somethingNew": ["not", "an", "address"], "count": 3},  # unknown: kept
}


def _approving(spender: str) -> dict[str, Any]:
    wire = _paid_on_base(load("quote_evm.json"))
    wire["steps"][0]["items"][0]["data"]["data"] = (
        SELECTORS["approve"] + encode(["address", "uint256"], [spender, 10_000_000]).hex()
    )
    return wire


def test_chains_with_the_new_pair_and_an_unknown_key_parse() -> None:
    base = _chains(TRANSITION).by_id(8453)
    assert base is not None
    named = base.contract_addresses()
    assert named[NEW_PROXY] == "router 3.2 approval proxy (v3.2.approvalProxy)"
    assert named[NEW_ROUTER] == "router 3.2 (v3.2.erc20Router)"
    assert named[OLD_ROUTER] == "router 3 (v3.erc20Router)"


def test_a_fresh_approval_to_the_new_proxy_reads_as_such() -> None:
    results = guards(_approving(NEW_PROXY), rpc_chain_ids={8453}, chains=_chains(TRANSITION))
    assert failures(results) == []
    [payment] = [r for r in results if r.name == "tx-payment" and "approve" in r.message]
    assert "approve 10 USDC to the router 3.2 approval proxy (v3.2.approvalProxy)" in (
        payment.message
    )


def test_the_old_pair_is_taken_while_chains_names_it_and_not_after() -> None:
    during = guards(_approving(OLD_ROUTER), rpc_chain_ids={8453}, chains=_chains(TRANSITION))
    assert failures(during) == []
    ended = copy.deepcopy(TRANSITION)
    del ended["v3"]
    [failed] = failures(guards(_approving(OLD_ROUTER), rpc_chain_ids={8453}, chains=_chains(ended)))
    assert failed.name == "tx-payment" and "nor a contract /chains names" in failed.message


def test_the_new_proxy_on_another_chain_is_not_this_chains() -> None:
    # named for chain 999 only: an approval on 8453 to it is refused
    raw = json.loads((FIXTURES / "chains.json").read_text())
    for chain in raw["chains"]:
        if chain["id"] == 999:
            chain["contracts"] = {"v3.2": {"approvalProxy": NEW_PROXY}}
    chains = ChainsResponse.from_wire(raw)
    [failed] = failures(guards(_approving(NEW_PROXY), rpc_chain_ids={8453}, chains=chains))
    assert failed.name == "tx-payment"
