"""The venue's `/info` answers, field for field in the public venue's shapes: the metadata its
SDKs read at start (`spotMeta`, `meta`, `perpDexs` and their asset contexts) and the account
reads (`clearinghouseState`, `spotClearinghouseState`, `userAbstraction`, `subAccounts`,
`userVaultEquities`, `userNonFundingLedgerUpdates`, `userRole`) and `preTransferCheck`.

Nothing trades here: the perp markets (`PERP_ASSETS`) exist with fixed demo prices and zero
volume, and an account's value is its USDC.
"""

from __future__ import annotations

from typing import Any

from crossdeck.sim.venue.assets import (
    HIP3_DEXES,
    PERP_ASSETS,
    PERPS_DEX,
    SPOT_PAIR_BASES,
    SPOT_PAIR_PX,
    SPOT_TOKENS,
    USDC,
    USDC_DECIMALS,
    UnknownCurrency,
    format_units,
)
from crossdeck.sim.venue.ledger import VenueLedger


def spot_meta() -> dict[str, Any]:
    """Answer to `spotMeta`: only USDC is canonical there, and a pair of non-canonical tokens
    is named '@<index>', as the public venue writes them."""
    tokens = [
        {
            "name": t.name,
            "szDecimals": t.sz_decimals,
            "weiDecimals": t.wei_decimals,
            "index": t.index,
            "tokenId": t.token_id,
            "isCanonical": t is USDC,
            "evmContract": None,
            "fullName": t.full_name,
            "deployerTradingFeeShare": "0.0",
        }
        for t in SPOT_TOKENS
    ]
    universe = [
        {"tokens": [t.index, USDC.index], "name": f"@{i}", "index": i, "isCanonical": False}
        for i, t in enumerate(SPOT_PAIR_BASES)
    ]
    return {"universe": universe, "tokens": tokens}


def perp_dexs() -> list[dict[str, Any] | None]:
    """Like the venue's `perpDexs` info: null for the default DEX, then the HIP-3 DEXes."""
    return [None] + [
        {"name": d.name, "fullName": d.full_name, "deployer": d.deployer,
         "collateralToken": d.collateral.index}
        for d in HIP3_DEXES
    ]  # fmt: skip


def perp_meta(dex: str = PERPS_DEX) -> dict[str, Any]:
    """Answer to `meta` (the markets of one perp DEX); UnknownCurrency for an unknown DEX."""
    assets = PERP_ASSETS.get(dex)
    if assets is None:
        raise UnknownCurrency(f"Unknown perp dex {dex!r}")
    collateral = next((d.collateral for d in HIP3_DEXES if d.name == dex), USDC)
    leverages = sorted({a.max_leverage for a in assets})
    return {
        "universe": [
            {"szDecimals": a.sz_decimals, "name": a.name, "maxLeverage": a.max_leverage,
             "marginTableId": a.max_leverage}
            for a in assets
        ],
        "marginTables": [
            [lev, {"description": "",
                   "marginTiers": [{"lowerBound": "0.0", "maxLeverage": lev}]}]
            for lev in leverages
        ],
        "collateralToken": collateral.index,
    }  # fmt: skip


def perp_asset_ctxs(dex: str = PERPS_DEX) -> list[dict[str, Any]]:
    """The market contexts of `metaAndAssetCtxs`, one per `meta` market: nothing trades here,
    so volumes, open interest and funding are zero and every price is the mark."""
    return [
        {"funding": "0.0", "openInterest": "0.0", "prevDayPx": a.mark_px,
         "dayNtlVlm": "0.0", "premium": "0.0", "oraclePx": a.mark_px, "markPx": a.mark_px,
         "midPx": a.mark_px, "impactPxs": [a.mark_px, a.mark_px], "dayBaseVlm": "0.0"}
        for a in PERP_ASSETS[dex]
    ]  # fmt: skip


def spot_asset_ctxs(ledger: VenueLedger) -> list[dict[str, Any]]:
    """The pair contexts of `spotMetaAndAssetCtxs`; supplies are what the ledger holds."""
    ctxs = []
    for i, base in enumerate(SPOT_PAIR_BASES):
        supply = format_units(ledger.total_supply(base), base.wei_decimals)
        ctxs.append(
            {"prevDayPx": SPOT_PAIR_PX, "dayNtlVlm": "0.0", "markPx": SPOT_PAIR_PX,
             "midPx": SPOT_PAIR_PX, "circulatingSupply": supply, "coin": f"@{i}",
             "totalSupply": supply, "dayBaseVlm": "0.0"}
        )  # fmt: skip
    return ctxs


def clearinghouse_state(ledger: VenueLedger, user: str, dex: str) -> dict[str, Any]:
    """The perps account: a unified account's perp books read 0 (its USDC is on spot)."""
    value = format_units(ledger.withdrawable(user, dex), USDC_DECIMALS)
    summary = {
        "accountValue": value,
        "totalNtlPos": "0.0",
        "totalRawUsd": value,
        "totalMarginUsed": "0.0",
    }
    return {
        "marginSummary": summary,
        "crossMarginSummary": dict(summary),
        "crossMaintenanceMarginUsed": "0.0",
        "withdrawable": value,
        "assetPositions": [],
        "time": ledger.now_ms(),
    }


def spot_state(ledger: VenueLedger, user: str) -> dict[str, Any]:
    held = ledger.balances(user)
    balances = []
    for token in SPOT_TOKENS:
        amount = held.get(token.token_id, 0)
        if amount:
            balances.append(
                {
                    "coin": token.name,
                    "token": token.index,
                    "total": format_units(amount, token.wei_decimals),
                    "hold": "0.0",
                    "entryNtl": "0.0",
                }
            )
    # Nothing is ever held by orders here, so all of a balance is available.
    available = [[b["token"], b["total"]] for b in balances]
    return {"balances": balances, "tokenToAvailableAfterMaintenance": available}


def sub_accounts(ledger: VenueLedger, master: str) -> list[dict[str, Any]] | None:
    """`subAccounts`: null for an account without any, as the public venue answers."""
    subs = ledger.sub_accounts(master)
    if not subs:
        return None
    return [
        {
            "name": s.name,
            "subAccountUser": s.address,
            "master": s.master,
            "clearinghouseState": clearinghouse_state(ledger, s.address, PERPS_DEX),
            "spotState": spot_state(ledger, s.address),
        }
        for s in subs
    ]


def vault_equities(ledger: VenueLedger, user: str) -> list[dict[str, Any]]:
    return [
        {
            "vaultAddress": v.vault,
            "equity": format_units(v.equity, USDC_DECIMALS),
            "lockedUntilTimestamp": v.locked_until_ms,
        }
        for v in ledger.vault_equities(user)
    ]


def ledger_updates(
    ledger: VenueLedger, user: str, start: int, end: int | None
) -> list[dict[str, Any]]:
    return [
        u for u in ledger.updates(user) if u["time"] >= start and (end is None or u["time"] <= end)
    ]


def pre_transfer_check(ledger: VenueLedger, user: str, source: str) -> dict[str, Any]:
    """Answer to `preTransferCheck` of a send from `source` to `user` (the destination), in the
    fields public API references list: `fee` is the destination's activation fee, due while it
    has no account (what a send to it pays besides the amount)."""
    exists = ledger.exists(user)
    fee = 0 if exists else ledger.new_account_fee
    return {
        "fee": format_units(fee, USDC_DECIMALS),
        "isSanctioned": False,
        "userExists": exists,
        "userHasSentTx": ledger.fee_paid(user),
    }


def user_role(ledger: VenueLedger, user: str) -> dict[str, Any]:
    master = ledger.master_of(user)
    if master is not None:
        return {"role": "subAccount", "data": {"master": master}}
    return {"role": "user" if ledger.exists(user) else "missing"}
