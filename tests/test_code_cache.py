"""The code dataclasses generate, compiled once and read back (crossdeck.base.code_cache):
a class defined from the cache behaves as one compiled from its text, the file is written only
when bytecode is, and a file that does not read is compiled over."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

import crossdeck  # noqa: F401  (applies the cache to this process's dataclasses)
from crossdeck.base.code_cache import _CodeCache, _Shelves

_DEFINE = """
import dataclasses
from dataclasses import dataclass, field

@dataclass(frozen=True)
class Fill:
    chain_id: int
    hashes: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list, hash=False)
"""


def _define(cache: _CodeCache) -> type:
    namespace: dict[str, object] = {"__name__": "defined_here"}
    sys.modules["defined_here"] = type(sys)("defined_here")  # dataclasses looks its module up
    real = vars(dataclasses).get("exec")
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    try:
        exec(_DEFINE, namespace)
    finally:
        dataclasses.exec = real  # type: ignore[attr-defined]
        del sys.modules["defined_here"]
    fill = namespace["Fill"]
    assert isinstance(fill, type)
    return fill


def test_this_process_defines_dataclasses_through_the_cache() -> None:
    assert getattr(dataclasses.exec, "__self__", None).__class__ is _Shelves  # type: ignore[attr-defined]


def test_a_class_from_the_cache_is_the_class_compiled_from_its_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "codes.marshal"
    first = _CodeCache(path)
    compiled = _define(first)
    assert first.added >= 4  # __init__, __repr__, __eq__, __hash__, __setattr__, __delattr__
    first.save()
    assert path.is_file()

    second = _CodeCache(path)
    second.load()
    cached = _define(second)
    assert second.added == 0  # every method came from the file
    for cls in (compiled, cached):
        one = cls(8453, ("0xab",))
        assert one == cls(8453, ("0xab",)) and one != cls(999)
        assert repr(one) == "Fill(chain_id=8453, hashes=('0xab',), notes=[])"
        assert hash(one) == hash(cls(8453, ("0xab",)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            one.chain_id = 1
        assert cls(1).notes is not cls(1).notes  # the default factory, called per instance


def test_nothing_is_written_when_bytecode_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = _CodeCache(tmp_path / "codes.marshal")
    _define(cache)
    cache.save()
    assert not (tmp_path / "codes.marshal").exists()


def test_a_file_that_does_not_read_is_compiled_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "codes.marshal"
    path.write_bytes(b"\x00not marshal at all")
    cache = _CodeCache(path)
    cache.load()
    assert cache.codes == {}
    assert _define(cache)(1).chain_id == 1
    cache.save()
    again = _CodeCache(path)
    again.load()
    assert len(again.codes) == cache.added


def test_a_new_process_reads_its_dataclasses_from_the_file(tmp_path: Path) -> None:
    """Two starts of a process importing crossdeck: the second compiles nothing of what the
    first wrote (the real file beside crossdeck's bytecode)."""
    code = (
        "import sys, dataclasses, crossdeck.execute.events\n"
        "print(dataclasses.exec.__self__.added)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    second = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    )
    assert second.stdout.strip() == "0"


def test_annotations_compile_through_the_typing_shelf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`typing.ForwardRef` compiles annotations written as text through the cache: the same
    code as `compile` gives, a text that is not an expression refused as before, and a second
    process reads what the first wrote."""
    import typing

    assert getattr(typing.compile, "__self__", None).__class__ is _Shelves  # type: ignore[attr-defined]
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    shelves = _Shelves(tmp_path)
    code = shelves.compile("dict[str, list[int]]", "<string>", "eval")
    assert eval(code) == dict[str, list[int]]
    assert shelves.compile("dict[str, list[int]]", "<string>", "eval") is code
    assert shelves.added == 1
    with pytest.raises(SyntaxError):
        shelves.compile("1 +", "<string>", "eval")
    assert shelves.added == 1  # what does not compile is not kept
    # any other call is `compile`'s own
    assert eval(shelves.compile("2 * 3", "elsewhere.py", "eval")) == 6
    assert shelves.added == 1
    shelves.save()
    again = _Shelves(tmp_path)
    assert again.compile("dict[str, list[int]]", "<string>", "eval") is not None
    assert again.added == 0
    with pytest.raises(SyntaxError, match="Forward reference must be an expression"):
        typing.ForwardRef("1 +")
    assert typing.get_type_hints(_Annotated, localns={"Path": Path}) == {"where": list[Path]}


class _Annotated:
    where: list[Path]


def test_patterns_compile_through_their_shelf(tmp_path: Path) -> None:
    """`re`'s compiler takes what it hands the engine from the shelf for a pattern compiled
    before: the same matches, groups, names and flags, text and bytes apart, in a new process
    as in this one; a pattern that does not compile is refused as before and not kept."""
    import re

    assert re._compiler.compile.__module__ == "crossdeck.base.code_cache"  # type: ignore[attr-defined]
    probe = (
        "import re, sys, crossdeck\n"
        "from crossdeck.base import code_cache\n"
        "code_cache._DIRECTORY = __import__('pathlib').Path(sys.argv[1])\n"
        "re.purge()\n"
        "shelves = code_cache._Shelves(code_cache._DIRECTORY)\n"
        "import re._compiler as c\n"
        "c._sre = c._sre._sre  # undo this process's own wrapping, then wrap into tmp\n"
        "c.compile = code_cache._patterns(shelves, c)\n"
        "text = re.compile(r'(?P<amount>\\d+(?:\\.\\d+)?) (?P<unit>[A-Z]{2,5})', re.I)\n"
        "raw = re.compile(rb'(?P<amount>\\d+) (?P<unit>[A-Z]{2,5})')\n"
        "m, b = text.match('0.5 eth'), raw.match(b'12 USDC')\n"
        "print(m.groupdict(), text.groups, text.flags, b.groupdict(), raw.flags)\n"
        "try:\n"
        "    re.compile('(unclosed')\n"
        "except re.error as e:\n"
        "    print('refused', e.pos)\n"
        "shelves.save()\n"
        "print(shelves.added)\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe, str(tmp_path)],
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},  # bytecode written
            check=True,
            capture_output=True,
            text=True,
        ).stdout.splitlines()
        for _ in range(2)
    ]
    first, second = runs
    assert first[0] == second[0]
    assert first[0].startswith("{'amount': '0.5', 'unit': 'eth'} 2 34 ")
    assert "b'12'" in first[0] and first[1] == second[1] == "refused 0"
    assert int(first[2]) >= 2  # both patterns kept...
    assert second[2] == "0"  # ...and read back: nothing compiled the second time
    assert list(tmp_path.glob("code_cache.*.re-*.marshal"))
    assert not list(tmp_path.glob(".code_cache*"))  # no half-written file left
