"""How a followed request's news reads on the command line: its reasons in words (from the
one table, `crossdeck.models.fail_reasons`) and where its statuses come from."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from crossdeck.track.tracked import Problem


def reason_lines(fail_reason: str | None, refund_fail_reason: str | None) -> list[str]:
    """The reasons in words, the raw codes beside them (`crossdeck.models.fail_reasons`)."""
    from crossdeck.models.fail_reasons import reason_words

    lines = []
    if (why := reason_words(fail_reason)) is not None:
        lines.append(f"  why: {why}")
    if (refund := reason_words(refund_fail_reason, refund=True)) is not None:
        lines.append(f"  refund: {refund}")
    return lines


def tracking_note(problem: Problem) -> None:
    """Where the run's statuses come from when that changes (the status socket down, polling
    standing in; live again) and what the socket sent that changed nothing: on stderr."""
    if problem.request_id is None:
        click.echo(f"note: {problem.message}", err=True)
