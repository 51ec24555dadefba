"""The run's end on the Execute screen: what came back (amounts sent and received in units and
USD, fees in words, an explorer link per transaction), as `crossdeck.history.came_back` reads
the final record."""

from __future__ import annotations

from rich.text import Text

from crossdeck.execute import events as ev
from crossdeck.models.fail_reasons import reason_words


def came_back_text(event: ev.Finished) -> Text:
    """The outcome's lines, each on its own line (URLs clickable); empty when unread."""
    text = Text()
    if event.came_back is None:
        return text
    refunded = event.status in ("refund", "fallback")
    for line in event.came_back.lines(refunded):
        label, sep, where = line.partition(": ")
        if sep and where.startswith("https://"):
            text.append(f"\n{label}: ")
            text.append(where, style=f"link {where}")
        else:
            text.append(f"\n{line}")
    return text


def reasons_text(event: ev.Finished) -> Text:
    """Why it failed or its refund did, in words; the bare codes only when no words are known
    for them (a success says nothing here: its outcome is what came back)."""
    text = Text()
    said = [
        reason_words(event.fail_reason),
        reason_words(event.refund_fail_reason, refund=True),
    ]
    if said == [None, None] and event.status != "success":
        text.append(f"\nfailReason {event.fail_reason or 'N/A'} · refundFailReason N/A")
    for label, words in zip(("why", "refund"), said, strict=True):
        text.append(f"\n{label}: {words}" if words else "", style="red")
    return text
