"""Only tui imports textual, checked at run time in a fresh interpreter.

The static layer rules (layers, sim apart from the client, no cycles, textual only in tui) are
import-linter contracts in pyproject.toml, run by .ci/run; this test adds what a static graph
cannot see: that importing every other module really leaves textual unloaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "crossdeck"
# every top-level module and package of crossdeck except tui, found on disk so a new package
# is checked without anyone remembering to list it
NON_UI_PACKAGES = sorted(
    path.stem if path.suffix else path.name
    for path in SRC.iterdir()
    if (path.suffix == ".py" and path.stem != "__init__")
    or (path.is_dir() and (path / "__init__.py").exists() and path.name != "tui")
)


def _modules_of(package_dir: Path) -> list[str]:
    names = []
    for path in sorted(package_dir.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def test_only_tui_imports_textual() -> None:
    modules = []
    for name in NON_UI_PACKAGES:
        target = SRC / name
        if target.is_dir():
            modules += _modules_of(target)
        elif target.with_suffix(".py").exists():
            modules.append(f"crossdeck.{name}")
    assert len(modules) > 5, modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(k for k in sys.modules if k == 'textual' or k.startswith('textual.'))\n"
        "print(len(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0", "a package other than tui imported textual"
