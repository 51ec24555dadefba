"""What a family's describer module gives the step lists: for each kind of step item it knows
(`StepItem.kind_of_data`), a function saying in lines what executing one such item does. A new
family (Bitcoin next) is a module with its own `ITEMS`, listed once in `describe/items.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from crossdeck.execute.describe.currencies import Currencies
    from crossdeck.execute.describe.lines import Line
    from crossdeck.models import StepItem


class ItemDescriber(Protocol):
    """One step item in lines, before it is prepared for signing (`full`: whole addresses;
    False for a table row)."""

    def __call__(self, item: StepItem, currencies: Currencies, *, full: bool) -> list[Line]: ...
