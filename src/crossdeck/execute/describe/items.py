"""A quote's steps in words: each item through its family's describer (`ITEMS` of each family
module, by the item's kind), an item of an unknown kind said to be refused."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from crossdeck.execute.describe.currencies import Currencies
from crossdeck.execute.describe.lines import Line, Section
from crossdeck.models import Step, StepItem

if TYPE_CHECKING:
    from crossdeck.execute.describe.family import ItemDescriber

# every family's describer module (`crossdeck.execute.describe.<name>`); a new family adds its
# module here. They are imported when a quote's steps are first described: a run that only
# signs (`bridge --yes --json`) loads none of the other families' code.
FAMILIES = ("evm", "typed_data", "venue", "solana", "bitcoin")


@functools.cache
def _by_kind() -> dict[str, ItemDescriber]:
    modules = [importlib.import_module(f"crossdeck.execute.describe.{name}") for name in FAMILIES]
    return {kind: describer for family in modules for kind, describer in family.ITEMS.items()}


def item_lines(item: StepItem, currencies: Currencies, *, full: bool = True) -> list[Line]:
    """What executing one step item does, before it is prepared for signing."""
    describer = _by_kind().get(item.kind_of_data)
    if describer is None:
        lines = [Line("unknown", "an item of a kind crossdeck does not know (it is refused)")]
    else:
        lines = describer(item, currencies, full=full)
    if item.check is not None and item.check.endpoint:
        lines.append(Line("progress", f"{item.check.method or 'GET'} {item.check.endpoint}"))
    return lines


def step_section(steps: Sequence[Step], currencies: Currencies, *, full: bool = True) -> Section:
    lines: list[Line] = []
    for number, step in enumerate(steps, start=1):
        what = step.action or step.description or ""
        lines.append(Line(f"{number}. {step.id}", f"{step_words(step)}: {what}".rstrip(": ")))
        for item_number, item in enumerate(step.items, start=1):
            number_text = f"   {number}.{item_number} "
            for at, line in enumerate(item_lines(item, currencies, full=full)):
                head = number_text if at == 0 else " " * len(number_text)
                lines.append(Line(head + line.label, line.value, raw=line.raw, kind=line.kind))
    return Section(f"Steps ({len(steps)})", tuple(lines))


def step_words(step: Step) -> str:
    """What kind of leg a step is: a venue transfer is not a 'deposit' transaction."""
    kinds = {item.kind_of_data for item in step.items}
    if kinds == {"venue_deposit"}:
        return "venue transfer"
    return step.kind or "?"
