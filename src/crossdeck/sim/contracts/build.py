"""Compile the demo world's Vyper contracts into the committed JSON artifacts.

Run `python -m crossdeck.sim.contracts.build` after editing a `.vy` file. Vyper is a dev
dependency: only this script imports it; the running world loads the artifacts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

CONTRACTS_DIR = Path(__file__).resolve().parent
ARTIFACTS_DIR = CONTRACTS_DIR / "artifacts"
CONTRACT_NAMES = ("USDC", "Depository", "Router")


def compile_contract(name: str) -> dict[str, Any]:
    import vyper  # dev dependency, kept out of the runtime import graph

    source_path = CONTRACTS_DIR / f"{name}.vy"
    out = vyper.compile_code(
        source_path.read_text(),
        contract_path=source_path.name,
        output_formats=["abi", "bytecode", "bytecode_runtime"],
    )
    return {
        "contractName": name,
        "compiler": f"vyper {vyper.__version__}",
        "abi": out["abi"],
        "bytecode": out["bytecode"],
        "deployedBytecode": out["bytecode_runtime"],
    }


def render(artifact: dict[str, Any]) -> str:
    """The exact text committed for an artifact: stable key order, one trailing newline."""
    return json.dumps(artifact, indent=2, sort_keys=True) + "\n"


def main() -> int:
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    for name in CONTRACT_NAMES:
        path = ARTIFACTS_DIR / f"{name}.json"
        path.write_text(render(compile_contract(name)))
        print(f"wrote {path.relative_to(CONTRACTS_DIR.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
