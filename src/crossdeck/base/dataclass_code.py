"""The code `dataclasses` generates, compiled once per machine and kept beside crossdeck's bytecode.

Python 3.11 writes each dataclass's `__init__`, `__repr__`, `__eq__`, `__hash__` and the frozen
`__setattr__`/`__delattr__` as source text and compiles it with `exec` every time the class is
defined: about 0.2 ms a method, 1.6 ms for a frozen dataclass of eight fields on the 2-core
machine the benchmarks run on. A `crossdeck bridge` defines some 150 of them before its first
request (its events, settings, guards, runners, and the libraries' own), a fifth of its CPU
(py-spy, bench/status_socket_bench.py), and the app as many again.

`apply` gives the `dataclasses` module its own `exec` (a module global is found before the
builtin): source text it has compiled before is executed from the code object compiled then,
keyed by the whole text, so a hit runs exactly what compiling that text would give. The code
objects are written, as Python writes a module's bytecode, to crossdeck's `__pycache__`
(marshal, per interpreter and per package defining the classes:
`dataclass_code.cpython-311.crossdeck.marshal`), read when that package's first dataclass is, and
never written when bytecode is not (`PYTHONDONTWRITEBYTECODE`, `-B`) or the directory is not
writable. A file that does not read is ignored and written again whole.
"""

from __future__ import annotations

import atexit
import builtins
import marshal
import os
import sys
from pathlib import Path
from typing import Any

_DIRECTORY = Path(__file__).resolve().parent / "__pycache__"
_MOST = 20_000  # entries a file; past that it starts over (texts no longer seen stay out)


class _CodeCache:
    """One file's code objects, read when first asked for."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.codes: dict[str, Any] = {}
        self.added = 0
        self.loaded = False

    def load(self) -> None:
        self.codes, self.loaded = {**self._read(), **self.codes}, True

    def _read(self) -> dict[str, Any]:
        try:
            codes = marshal.loads(self.path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return {}  # none yet, or unreadable: compiled again and written whole
        return codes if isinstance(codes, dict) else {}

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        if not self.loaded:
            self.load()
        if isinstance(source, str):
            code = self.codes.get(source)
            if code is None:
                # as `exec` of the text in `dataclasses` compiles it: no future flags there
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self.codes[source] = code
                self.added += 1
            source = code
        builtins.exec(source, globals, locals)

    def save(self) -> None:
        if not self.added or sys.dont_write_bytecode:
            return
        # what other processes wrote since this one started is kept (theirs, then ours)
        codes = {**self._read(), **self.codes}
        codes = codes if len(codes) <= _MOST else self.codes
        import tempfile  # (only when there is something to write: ~30 ms with shutil)

        try:
            self.path.parent.mkdir(exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".dataclass_code")
            with os.fdopen(handle, "wb") as out:
                out.write(marshal.dumps(codes))
            os.replace(temporary, self.path)  # whole or not at all, whoever writes last
        except OSError:
            return  # a read-only install compiles at each start, as before


class _Shelves:
    """A file per top-level package whose dataclasses are defined (`crossdeck`, `textual`,
    `httpx`, ...): a process reads the code of the packages it loads, not of every one any
    crossdeck process ever ran (`--help` defines none and reads nothing)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.caches: dict[str, _CodeCache] = {}

    @property
    def added(self) -> int:
        return sum(cache.added for cache in self.caches.values())

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        name = globals.get("__name__") if isinstance(globals, dict) else None
        package = name.partition(".")[0] if isinstance(name, str) else ""
        package = package if package.isidentifier() else "_"
        cache = self.caches.get(package)
        if cache is None:
            tag = sys.implementation.cache_tag
            path = self.directory / f"dataclass_code.{tag}.{package}.marshal"
            cache = self.caches[package] = _CodeCache(path)
        cache.exec(source, globals, locals)

    def save(self) -> None:
        for cache in self.caches.values():
            cache.save()


def apply() -> None:
    """Give `dataclasses` the cached `exec` (before any dataclass is defined, so from
    `crossdeck/__init__.py`); where its generated code is not compiled by `exec` (another
    Python), nothing changes."""
    import dataclasses

    if "exec" in vars(dataclasses) or not hasattr(dataclasses, "_create_fn"):
        return  # applied already, or a `dataclasses` this was not written against
    shelves = _Shelves(_DIRECTORY)
    dataclasses.exec = shelves.exec  # type: ignore[attr-defined]
    atexit.register(shelves.save)
