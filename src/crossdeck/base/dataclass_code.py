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

`typing` does the same to every annotation written as text: `ForwardRef` compiles it when it is
made, and with `from __future__ import annotations` every annotation is text. pydantic makes one
per field of every model it defines, and pydantic-core's schema types (TypedDicts) one per key:
some 1,000 compilations before a bridge's first request. `apply` gives `typing` the same kind of
`compile`, its code objects in a shelf of their own (`dataclass_code.cpython-311.typing.marshal`).
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

    def code(self, source: str, mode: str) -> Any:
        """The code object of `source` compiled in `mode`, from the file or compiled now (a
        text that does not compile raises as `compile` does, and is not kept)."""
        if not self.loaded:
            self.load()
        code = self.codes.get(source)
        if code is None:
            # as the callers' own `compile` would: no future flags of this module
            code = compile(source, "<string>", mode, dont_inherit=True)
            self.codes[source] = code
            self.added += 1
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        if isinstance(source, str):
            source = self.code(source, "exec")
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
    `httpx`, ...), and one for annotations (`typing`): a process reads the code of the packages
    it loads, not of every one any crossdeck process ever ran (`--help` defines none and reads
    nothing)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.caches: dict[str, _CodeCache] = {}

    @property
    def added(self) -> int:
        return sum(cache.added for cache in self.caches.values())

    def shelf(self, package: str) -> _CodeCache:
        cache = self.caches.get(package)
        if cache is None:
            tag = sys.implementation.cache_tag
            path = self.directory / f"dataclass_code.{tag}.{package}.marshal"
            cache = self.caches[package] = _CodeCache(path)
        return cache

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        name = globals.get("__name__") if isinstance(globals, dict) else None
        package = name.partition(".")[0] if isinstance(name, str) else ""
        self.shelf(package if package.isidentifier() else "_").exec(source, globals, locals)

    def compile(self, source: Any, filename: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        """`compile` as `typing.ForwardRef` calls it (a text, '<string>', 'eval'): from the
        `typing` shelf, whoever's annotation it is (the text is the whole key); any other call
        is passed on unchanged."""
        if (
            isinstance(source, str)
            and filename == "<string>"
            and mode == "eval"
            and not (args or kwargs)
        ):
            return self.shelf("typing").code(source, "eval")
        return builtins.compile(source, filename, mode, *args, **kwargs)

    def save(self) -> None:
        for cache in self.caches.values():
            cache.save()


def apply() -> None:
    """Give `dataclasses` the cached `exec` and `typing` the cached `compile` (before any
    dataclass or model is defined, so from `crossdeck/__init__.py`); either module is left as
    it is where it does not compile the way this was written against (another Python), or
    when it has its own already (applied before)."""
    import dataclasses
    import typing

    shelves = _Shelves(_DIRECTORY)
    applied = False
    if "exec" not in vars(dataclasses) and hasattr(dataclasses, "_create_fn"):
        dataclasses.exec = shelves.exec  # type: ignore[attr-defined]
        applied = True
    if "compile" not in vars(typing) and hasattr(typing, "ForwardRef"):
        typing.compile = shelves.compile  # type: ignore[attr-defined]
        applied = True
    if applied:
        atexit.register(shelves.save)
