"""A package's names loaded on first use (PEP 562), for packages whose submodules are costly to
import: `crossdeck.models` (pydantic classes) and `crossdeck.venue` (the client and its /info
models) must not load them for the one name the app's first screen or its /chains read needs.

A package lists each public name's submodule and hands its `globals()`:

    __getattr__, __dir__ = lazy_names(globals(), _SOURCES, __all__)

A name is imported from its submodule when first read and then kept in the package, so the
lookup runs once per name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_names(
    namespace: dict[str, Any], sources: Mapping[str, str], names: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's `__getattr__` and `__dir__`: `sources` maps each name to the submodule
    that defines it, `names` is the package's `__all__`."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__
