"""Signatures (authorize, permits, any signed POST) through the journalled template: the typed
data or message is described, signed, checked to recover to the wallet, journalled, then
POSTed; an answer that carries steps appends them to the run. Resumed, the same signature is
posted again, and a refusal is taken as done when the first post evidently took effect."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import httpx

from crossdeck.api.errors import ServiceError
from crossdeck.execute import describe
from crossdeck.execute.crash import crash_point
from crossdeck.execute.errors import ExecutionError
from crossdeck.execute.events import ItemSkipped, Posted, RunEvent, SignKind, SignRequest
from crossdeck.execute.guards import NONCE_MAPPING, require
from crossdeck.execute.items import Item, ItemRunner, Prepared, Run
from crossdeck.execute.journal import ItemRecord
from crossdeck.models import Step
from crossdeck.models.quote_v3 import read_steps
from crossdeck.wallet.signer import recover_eip191, recover_typed_data

ALREADY_MAPPED = "NONCE_ALREADY_MAPPED"


class SignatureRunner(ItemRunner):
    async def prepare(self, item: Item) -> Prepared:
        data = item.data.as_signature()
        assert data.sign is not None and data.post is not None and data.post.endpoint
        results = self.shop.item_guards(item)
        require(results)
        sign, step = data.sign, item.step
        body = copy.deepcopy(data.post.body or {})
        kind: SignKind
        if sign.signature_kind == "eip712":
            typed = sign.typed_data()
            if sign.primary_type == NONCE_MAPPING:
                # 4.4 chain id override: the domain and the body change together
                typed["domain"]["chainId"] = item.run.signing_chain_id
                body["signatureChainId"] = item.run.signing_chain_id
            title = describe.signature_title(sign.primary_type, step.id)
            # with the run's currencies an EIP-3009 authorisation says its value in units
            currencies = describe.Currencies(item.run.quote, self.shop.chains)
            lines = describe.typed_data_lines(typed, currencies)
            payload = typed
            kind = "typed_data"
        else:
            message = sign.message or ""
            title = describe.signature_title(None, step.id)
            lines = describe.message_lines(message)
            payload = {"message": message}
            kind = "message"
        lines += describe.post_lines(data.post.endpoint, body, data.post.method)
        request = SignRequest(
            kind=kind,
            step_id=step.id,
            item_index=item.item_index,
            title=title,
            lines=tuple(lines),
            payload=payload,
            guards=tuple(results),
            chain_id=_int_or_none(payload.get("domain", {}).get("chainId")),
        )
        return Prepared(
            request,
            intent={"kind": "signature"},
            detail={"endpoint": data.post.endpoint, "body": body},
        )

    async def sign(self, prepared: Prepared) -> dict[str, Any]:
        signer, payload = self.shop.parts.signer, prepared.request.payload
        words = prepared.request.describe().splitlines()
        if prepared.request.kind == "typed_data":
            raw = await signer.sign_typed_data(payload, words)
            recovered = recover_typed_data(payload, raw)
        else:
            raw = await signer.sign_message(payload["message"], words)
            recovered = recover_eip191(payload["message"], raw)
        if recovered != signer.address:  # a broken or foreign signer must not post garbage
            raise ExecutionError(
                f"the signature recovers to {recovered}, not {signer.address}; nothing was posted",
                hint=f"sign as {signer.address} ({signer.source.words()})",
            )
        detail = prepared.detail
        endpoint, body = detail["endpoint"], detail["body"]
        return {"signed": {"endpoint": endpoint, "body": body, "signature": "0x" + raw.hex()}}

    def send(
        self, item: Item, prepared: Prepared, signed: dict[str, Any]
    ) -> AsyncIterator[RunEvent]:
        return self._post(item, signed["signed"], again=False)

    def finish(self, item: Item, record: ItemRecord) -> AsyncIterator[RunEvent]:
        assert record.signed is not None
        return self._post(item, record.signed, again=True)

    async def _post(
        self, item: Item, signed: dict[str, Any], again: bool
    ) -> AsyncIterator[RunEvent]:
        run, step = item.run, item.step
        endpoint = signed["endpoint"]
        try:
            response = await self.shop.parts.service.post_signed(
                endpoint, signed["body"], signed["signature"]
            )
        except ServiceError as exc:
            if not again or not await self._took_effect(run, exc):
                raise
            yield ItemSkipped(
                step.id,
                item.item_index,
                f"{endpoint} already has this signature ({exc.error_code or exc.status}); "
                "not posted again",
            )
            response = {}
        else:
            if _is_authorize(endpoint):
                crash_point("after-authorize", step.id)
        appended = self._append_steps(run, response)
        self.journal.record(*item.key, "done", response=response)
        self.shop.acted(run)
        yield Posted(
            endpoint,
            step.id,
            item.item_index,
            tuple(str(s.id) for s in appended),
            tuple(s.to_wire() for s in appended),
        )

    async def _took_effect(self, run: Run, exc: ServiceError) -> bool:
        """A re-posted signature was refused: is that because the first post took effect?"""
        data = exc.error_data if isinstance(exc.error_data, dict) else {}
        if exc.error_code == ALREADY_MAPPED:
            return str(data.get("requestId", "")).lower() == run.request_id.lower()
        # refused for another reason: did the deposit the signature authorized happen?
        return await self.shop.deposit_seen(run)

    def _append_steps(self, run: Run, response: dict[str, Any]) -> tuple[Step, ...]:
        """Append the steps a POST answer carries to the run's quote (and the journal's)."""
        extra = response.get("steps") if isinstance(response, dict) else None
        if not isinstance(extra, list) or not extra:
            return ()
        # either shape: /execute/permits/v2 answers with v3's flat steps (the one reader)
        steps = read_steps([s for s in extra if isinstance(s, dict)], run.request_id)
        run.quote.steps.extend(steps)
        self.journal.update_quote(run.request_id, run.quote.to_wire())
        return tuple(steps)


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _is_authorize(endpoint: str) -> bool:
    return httpx.URL(endpoint).path.rstrip("/").endswith("/authorize")
