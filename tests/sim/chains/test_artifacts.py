"""The committed contract artifacts are exactly what the committed sources compile to."""

from __future__ import annotations

import subprocess
import sys

import pytest

from crossdeck.sim.chains import load_artifact
from crossdeck.sim.contracts import ARTIFACTS_DIR
from crossdeck.sim.contracts.build import CONTRACT_NAMES, compile_contract, render


@pytest.mark.parametrize("name", CONTRACT_NAMES)
def test_recompiling_reproduces_the_committed_artifact(name: str) -> None:
    committed = (ARTIFACTS_DIR / f"{name}.json").read_text()
    assert render(compile_contract(name)) == committed, (
        f"{name}.vy changed without rebuilding: run python -m crossdeck.sim.contracts.build"
    )


@pytest.mark.parametrize("name", CONTRACT_NAMES)
def test_artifact_has_abi_and_bytecode(name: str) -> None:
    artifact = load_artifact(name)
    assert artifact["bytecode"].startswith("0x") and len(artifact["bytecode"]) > 100
    assert artifact["deployedBytecode"].startswith("0x")
    assert {item.get("name") for item in artifact["abi"]} >= {"owner"}
    artifact["abi"].clear()  # callers get their own copy
    assert load_artifact(name)["abi"]


def test_unknown_artifact_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="known: Depository, Router, USDC"):
        load_artifact("Vault")


def test_runtime_never_imports_vyper() -> None:
    code = (
        "import sys, crossdeck.sim.chains, crossdeck.sim.chains.node, "
        "crossdeck.sim.chains.pyevm_rpc, crossdeck.sim.chains.anvil\n"
        "crossdeck.sim.chains.load_artifact('USDC')\n"
        "print('vyper' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
