"""A module imported for nothing, loaded only when one of its names is used.

Some libraries import a module at their own import and use it only on a path crossdeck never
takes (websockets imports importlib.metadata to read its own version when it is not a release).
`stand_in` puts a module in its place in `sys.modules`: an import of the name finds it and costs
nothing; the first use of any name of it (`module.version`, `from module import version`)
imports the real module, which then takes its place everywhere the import system looks, and
the stand-in passes every later use on to it. Python's `importlib.util.LazyLoader` cannot do
this on 3.11: the import system reads `__spec__` of a module already in `sys.modules`, and that
read loads a lazy one at once.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        return getattr(_real(self.__name__), name)

    def __dir__(self) -> list[str]:
        return dir(_real(self.__name__))


def _real(name: str) -> types.ModuleType:
    module = sys.modules.get(name)
    if isinstance(module, _StandIn):
        del sys.modules[name]  # so that the import below loads the module itself
        try:
            module = importlib.import_module(name)
        except BaseException:
            sys.modules.setdefault(name, _standing[name])
            raise
    assert module is not None
    return module


_standing: dict[str, _StandIn] = {}


def stand_in(name: str) -> None:
    """Hold `name`'s place until one of its names is used (nothing when it is imported
    already, or cannot be found)."""
    if name in sys.modules:
        return
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    module = _StandIn(
        name, "stands in for the module until it is used (crossdeck.base.lazy_module)"
    )
    # what the import system reads of a module it finds in sys.modules, and what a submodule's
    # import needs of its package
    module.__spec__ = spec
    module.__loader__ = spec.loader
    if spec.submodule_search_locations is not None:
        module.__path__ = list(spec.submodule_search_locations)
    _standing[name] = module
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], child, module)
