"""Venue actions (a sendAsset transfer out of the venue) through the journalled template: the
typed data is built from the quote's action and checked against the domain the quote names,
signed, journalled with its nonce, then posted to the venue's /exchange. Resumed, the same
signed action is posted again; a refusal is taken as done when the venue or the service shows
the first post went through."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from crossdeck.execute import describe
from crossdeck.execute.crash import crash_point
from crossdeck.execute.errors import ExecutionError
from crossdeck.execute.events import ItemSkipped, RunEvent, SignRequest, VenueSubmitted
from crossdeck.execute.guards import built_domain_guard, require
from crossdeck.execute.items import Item, ItemRunner, Prepared, Run
from crossdeck.execute.journal import ItemRecord
from crossdeck.models import VenueDepositData
from crossdeck.models.venue import VenueSignature
from crossdeck.venue.errors import VenueError
from crossdeck.venue.fee import SendFee, read_send_fee
from crossdeck.venue.signing import build_send_asset_typed_data, split_signature
from crossdeck.wallet.signer import recover_typed_data

DUPLICATE_NONCE = "duplicate nonce"


class VenueRunner(ItemRunner):
    async def prepare(self, item: Item) -> Prepared:
        data = item.data.as_venue_deposit()
        assert data.action is not None and data.eip712_types and data.eip712_primary_type
        results = self.shop.item_guards(item)
        signing_chain_id = item.run.signing_chain_id
        typed = build_send_asset_typed_data(
            data.action.to_wire(), data.eip712_types, data.eip712_primary_type, signing_chain_id
        )
        assert data.sign_domain_name is not None
        results.append(built_domain_guard(typed, data.sign_domain_name, item.where))
        require(results)
        lines = describe.venue_lines(typed, data, await self._send_fee(data))
        request = SignRequest(
            kind="venue_action",
            step_id=item.step.id,
            item_index=item.item_index,
            title=describe.venue_title(data),
            lines=tuple(lines),
            payload=typed,
            guards=tuple(results),
            chain_id=signing_chain_id,
        )
        assert data.nonce is not None
        return Prepared(request, intent={"kind": "venue_deposit", "venue_nonce": data.nonce})

    async def _send_fee(self, data: VenueDepositData) -> SendFee | None:
        """The venue's first-send fee on this send (None: back into the signer's own books),
        so the confirm says what leaves the account in total."""
        user = self.shop.parts.signer.address
        destination = data.action.destination if data.action else None
        if destination is not None and destination.lower() == user.lower():
            return None
        return await read_send_fee(self.shop.parts.venue, user, destination)

    async def sign(self, prepared: Prepared) -> dict[str, Any]:
        typed, signer = prepared.request.payload, self.shop.parts.signer
        raw = await signer.sign_typed_data(typed, prepared.request.describe().splitlines())
        recovered = recover_typed_data(typed, raw)
        if recovered != signer.address:  # the venue would move another account's funds
            raise ExecutionError(
                f"the signature recovers to {recovered}, not {signer.address}; nothing was "
                "posted to the venue",
                hint=f"sign as {signer.address} ({signer.source.words()})",
            )
        signature = split_signature(raw)
        nonce = prepared.intent["venue_nonce"]
        return {
            "signed": {"action": typed["message"], "nonce": nonce, "signature": signature.to_wire()}
        }

    def send(
        self, item: Item, prepared: Prepared, signed: dict[str, Any]
    ) -> AsyncIterator[RunEvent]:
        return self._submit(item, signed["signed"], again=False)

    def finish(self, item: Item, record: ItemRecord) -> AsyncIterator[RunEvent]:
        assert record.signed is not None
        return self._submit(item, record.signed, again=True)

    async def _submit(
        self, item: Item, signed: dict[str, Any], again: bool
    ) -> AsyncIterator[RunEvent]:
        run = item.run
        nonce = int(signed["nonce"])
        try:
            await self.shop.parts.venue.exchange(
                signed["action"], nonce, VenueSignature.model_validate(signed["signature"])
            )
        except VenueError as exc:
            if not again:
                raise
            if not await self._took_effect(run, exc):
                # the refusal is of this post; the first one, before the interruption, may
                # still have gone through, so "nothing was transferred" would not be true
                exc.hint = (
                    "this transfer was posted before; the service has not seen it yet, so it "
                    f"may have gone through: check `crossdeck status --v3 {run.request_id}` first"
                )
                raise
            yield ItemSkipped(
                item.step.id,
                item.item_index,
                f"the venue already applied the transfer with nonce {nonce}; not sent again",
            )
        else:
            crash_point("after-send", item.step.id)
        self.journal.record(*item.key, "sent", venue_nonce=nonce)
        self.journal.record(*item.key, "done")
        self.shop.acted(run)
        yield VenueSubmitted(nonce, item.step.id, item.item_index)

    async def _took_effect(self, run: Run, exc: VenueError) -> bool:
        """A re-posted sendAsset was refused: is that because the first post went through?"""
        if DUPLICATE_NONCE in str(exc.response).lower():
            return True  # the venue consumes a nonce only when the send succeeds
        # The venue forgets nonces once they are too old to be accepted anyway ("more than
        # N h in the past"), so after a long pause only the service can say: it maps the
        # send to the request by nonce and lists it once seen.
        return await self.shop.deposit_seen(run)
