"""POST /transactions/deposit-address/reindex: look at a deposit address again.

The public service's monitor of a deposit address watches only the currency the quote named; a
different currency sent there is not noticed until this endpoint asks for it: every currency
the solver accepts on the chain (or only ``currency``) is checked and what is found is handled
(here: the wrong currency is refunded to the request's ``refundTo``). Body ``{chainId,
depositAddress, targetChainId?, currency?}``; answer ``{message, triggeredCurrencies:
[{currency, symbol, balance}], checkedCurrencies, failedCurrencies}`` as the public reference
shows. A deposit address the service never issued on that chain is 404; a strict address is
400 (strict addresses are bound to one order: no wrong-token recovery).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from crossdeck.sim.service.errors import invalid, not_found
from crossdeck.sim.service.state import ServiceState

ADDRESS_CHARS = 42


async def reindex_deposit_address(state: ServiceState, body: Any) -> web.Response:
    if not isinstance(body, dict):
        raise invalid("the body must be a JSON object")
    chain_id, address = body.get("chainId"), body.get("depositAddress")
    if isinstance(chain_id, bool) or not isinstance(chain_id, int) or chain_id <= 0:
        raise invalid("chainId must be a positive integer")
    if not isinstance(address, str) or len(address) != ADDRESS_CHARS:
        raise invalid("depositAddress must be an address")
    target = body.get("targetChainId", chain_id)
    if isinstance(target, bool) or not isinstance(target, int) or target <= 0:
        raise invalid("targetChainId must be a positive integer")
    currency = body.get("currency")
    if currency is not None and not isinstance(currency, str):
        raise invalid("currency must be an address")
    requests = [r for r in state.by_deposit_address(address) if r.origin_chain_id == chain_id]
    if not requests:
        raise not_found(f"no deposit address {address} on chain {chain_id}")
    if requests[0].deposit_address is not None and requests[0].deposit_address.type == "strict":
        raise invalid("a strict deposit address is bound to its order and cannot be reindexed")
    if state.reindexer is None:
        return web.json_response({"message": "Reindex unavailable"}, status=503)
    triggered, checked = await state.reindexer(target, address, currency)
    return web.json_response(
        {
            "message": "Reindex triggered" if triggered else "Nothing to reindex",
            "triggeredCurrencies": triggered,
            "checkedCurrencies": checked,
            "failedCurrencies": 0,
        }
    )
