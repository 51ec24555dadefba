"""The two layer rules of the design, checked in fresh interpreters."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

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


CLIENT_SIDE = {"models", "api", "venue", "wallet", "execute", "track", "tui", "config"}


@pytest.mark.parametrize("path", sorted((SRC / "sim").rglob("*.py")), ids=str)
def test_sim_never_imports_the_client(path: Path) -> None:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "crossdeck":
                assert len(parts) > 1 and parts[1] == "sim", f"{path} imports {name}"
