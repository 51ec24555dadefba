"""What Python compiles at every start from the same text, compiled once per machine and kept
beside crossdeck's bytecode: the methods `dataclasses` generates, the annotations `typing`
compiles, and the programs `re` compiles its patterns to.

- Python 3.11 writes each dataclass's `__init__`, `__repr__`, `__eq__`, `__hash__` and the
  frozen `__setattr__`/`__delattr__` as source text and compiles it with `exec` every time the
  class is defined: about 0.2 ms a method, 1.6 ms for a frozen dataclass of eight fields on the
  2-core machine the benchmarks run on. A `crossdeck bridge` defines some 150 of them before its
  first request (its events, settings, guards, runners, and the libraries' own), and the app as
  many again.
- `typing.ForwardRef` compiles every annotation written as text when it is made, and with
  `from __future__ import annotations` every annotation is text: pydantic makes one per field of
  every model it defines, pydantic-core's schema types (TypedDicts) one per key, some 1,200
  compilations before a bridge's first request.
- `re` parses each pattern and compiles it to the program its C engine runs, in Python: the
  stdlib and the libraries compile some 160 patterns as they are imported, ~40 ms of a bridge.

`apply` gives `dataclasses` its own `exec` and `typing` its own `compile` (a module global is
found before the builtin), and wraps `re`'s compiler: text compiled before is taken from what
compiling it gave then, keyed by the whole text (for a pattern, with its flags), so a hit runs
exactly what compiling that text would give. They are written, as Python writes a module's
bytecode, to crossdeck's `__pycache__` (marshal, per interpreter and per shelf:
`code_cache.cpython-311.crossdeck.marshal` for crossdeck's dataclasses, `...typing.marshal`,
`...re-<version>-<engine magic>.marshal`, the engine's programs being its version's own), read
when a shelf is first asked, and never written when bytecode is not (`PYTHONDONTWRITEBYTECODE`,
`-B`) or the directory is not writable. A file that does not read is ignored and written again
whole.
"""

from __future__ import annotations

import atexit
import builtins
import marshal
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

_DIRECTORY = Path(__file__).resolve().parent / "__pycache__"
_MOST = 20_000  # entries a file; past that it starts over (texts no longer seen stay out)


class _CodeCache:
    """One file's entries, read when first asked for."""

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

    def get(self, key: str) -> Any:
        if not self.loaded:
            self.load()
        return self.codes.get(key)

    def put(self, key: str, value: Any) -> None:
        self.codes[key] = value
        self.added += 1

    def code(self, source: str, mode: str) -> Any:
        """The code object of `source` compiled in `mode`, from the file or compiled now (a
        text that does not compile raises as `compile` does, and is not kept)."""
        code = self.get(source)
        if code is None:
            # as the callers' own `compile` would: no future flags of this module
            code = compile(source, "<string>", mode, dont_inherit=True)
            self.put(source, code)
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
        try:
            data = marshal.dumps(codes)
        except ValueError:
            return  # (what `put` was given is plain data: never, but never half a file)
        import tempfile  # (only when there is something to write: ~30 ms with shutil)

        try:
            self.path.parent.mkdir(exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".code_cache")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, self.path)  # whole or not at all, whoever writes last
        except OSError:
            return  # a read-only install compiles at each start, as before


class _Shelves:
    """A file per top-level package whose dataclasses are defined (`crossdeck`, `textual`,
    `httpx`, ...), one for annotations (`typing`) and one for patterns: a process reads the
    code of the packages it loads, not of every one any crossdeck process ever ran (`--help`
    defines none and reads nothing)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.caches: dict[str, _CodeCache] = {}

    @property
    def added(self) -> int:
        return sum(cache.added for cache in self.caches.values())

    def shelf(self, name: str) -> _CodeCache:
        cache = self.caches.get(name)
        if cache is None:
            tag = sys.implementation.cache_tag
            path = self.directory / f"code_cache.{tag}.{name}.marshal"
            cache = self.caches[name] = _CodeCache(path)
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


class _EngineArguments:
    """Stands in for `_sre` in `re._compiler`: passes everything through, and keeps, per
    thread, what its last `compile` was given (the program the engine is built from)."""

    def __init__(self, sre: Any) -> None:
        self._sre = sre
        self.last = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sre, name)

    def compile(self, *args: Any) -> Any:
        self.last.args = args
        return self._sre.compile(*args)


def _patterns(shelves: _Shelves, compiler: Any) -> Callable[..., Any]:
    """`re._compiler.compile`, with what it hands the engine for a pattern and its flags
    taken from the shelf when that pattern was compiled before."""
    original: Callable[..., Any] = compiler.compile
    engine = _EngineArguments(compiler._sre)
    compiler._sre = engine
    debug = int(compiler.SRE_FLAG_DEBUG)
    version = f"{sys.version_info[0]}.{sys.version_info[1]}.{sys.version_info[2]}"
    shelf = shelves.shelf(f"re-{version}-{int(compiler.MAGIC)}")

    def compile(p: Any, flags: int = 0) -> Any:
        if not isinstance(p, (str, bytes)) or int(flags) & debug:
            return original(p, flags)  # a parsed pattern (re.Scanner), or one to print
        key = f"{int(flags)}:{p!r}"  # the repr tells text from bytes
        arguments = shelf.get(key)
        if arguments is not None:
            return engine._sre.compile(*arguments)
        engine.last.args = None
        compiled = original(p, flags)
        arguments = engine.last.args
        if arguments is not None and arguments[0] is p:
            shelf.put(key, _plain(arguments))
        return compiled

    return compile


def _plain(value: Any) -> Any:
    """`value` in types marshal writes: the program's opcodes are named ints (`_constants`),
    kept as the ints they are."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def apply() -> None:
    """Give `dataclasses` the cached `exec`, `typing` the cached `compile` and `re` the cached
    compiler (before any dataclass or model is defined, so from `crossdeck/__init__.py`); each
    module is left as it is where it does not compile the way this was written against
    (another Python), or when it has its own already (applied before)."""
    import dataclasses
    import re
    import typing

    shelves = _Shelves(_DIRECTORY)
    applied = False
    if "exec" not in vars(dataclasses) and hasattr(dataclasses, "_create_fn"):
        dataclasses.exec = shelves.exec  # type: ignore[attr-defined]
        applied = True
    if "compile" not in vars(typing) and hasattr(typing, "ForwardRef"):
        typing.compile = shelves.compile  # type: ignore[attr-defined]
        applied = True
    compiler = getattr(re, "_compiler", None)
    if (
        compiler is not None
        and callable(getattr(compiler, "compile", None))
        and hasattr(getattr(compiler, "_sre", None), "compile")
        and hasattr(compiler, "MAGIC")
        and hasattr(compiler, "SRE_FLAG_DEBUG")
        and not isinstance(compiler._sre, _EngineArguments)
    ):
        compiler.compile = _patterns(shelves, compiler)
        applied = True
    if applied:
        atexit.register(shelves.save)
