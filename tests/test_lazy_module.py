"""A module imported for nothing is loaded at its first use (crossdeck.base.lazy_module): an
import of the name runs none of its code, any use of one of its names runs it once and gets
the real thing, and a package's submodules still import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
from crossdeck.base import lazy_module

lazy_module.stand_in("heavy")
import heavy                                   # the library's import: nothing runs
import heavy                                   # (twice, as a second library would)
print("ran", getattr(sys, "heavy_ran", 0))
from heavy import answer                        # the first use runs it, once
print(answer(), heavy.answer(), sys.heavy_ran)
import heavy.part                               # a submodule of the package
print(heavy.part.WHAT, sys.modules["heavy"].__name__, type(sys.modules["heavy"]).__name__)
lazy_module.stand_in("heavy")                   # already imported: left alone
lazy_module.stand_in("no_such_module_here")     # not found: nothing held
print("no_such_module_here" in sys.modules)
"""


def test_a_stand_in_loads_the_module_at_its_first_use(tmp_path: Path) -> None:
    package = tmp_path / "heavy"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import sys\nsys.heavy_ran = getattr(sys, 'heavy_ran', 0) + 1\n"
        "def answer():\n    return 42\n"
    )
    (package / "part.py").write_text("WHAT = 'part'\n")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.splitlines() == [
        "ran 0",
        "42 42 1",
        "part heavy module",
        "False",
    ]


def test_crossdeck_holds_importlib_metadata_until_it_is_used() -> None:
    probe = (
        "import sys, crossdeck, websockets\n"
        "print(type(sys.modules['importlib.metadata']).__name__, 'zipfile' in sys.modules)\n"
        "from importlib.metadata import version\n"
        "print(version('websockets') == websockets.__version__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.splitlines() == ["_StandIn False", "True"]
