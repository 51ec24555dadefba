"""eth-account without eth-keyfile and pycryptodome (crossdeck.base.eth_import_trims): a transaction
signature loads neither, gives the signature eth-account gives with them, and a keystore still
works. Typed data and personal messages load no eth-account at all (crossdeck.wallet.typed_data).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

KEY = "0x" + "4c" * 32

# sign typed data and a personal message through crossdeck's signer, then report what loaded
_SIGN = """
import json, sys
from crossdeck.base.secret import Secret
from crossdeck.wallet.signer import Signer
signer = Signer(Secret(sys.argv[1]))
typed = {
    "domain": {"name": "Demo", "version": "1", "chainId": 1,
               "verifyingContract": "0x" + "00" * 20},
    "types": {"Ping": [{"name": "who", "type": "address"}, {"name": "n", "type": "uint256"}]},
    "primaryType": "Ping",
    "message": {"who": signer.address, "n": 7},
}
signed = {
    "typed": signer.sign_typed_data(typed).hex(),
    "message": signer.sign_eip191("hello").hex(),
    "recovered": Signer.recover_typed_data(typed, signer.sign_typed_data(typed)),
    "address": signer.address,
    "eth_stack_after_typed": sorted(m for m in sys.modules if m.split(".")[0] in (
        "eth_account", "eth_abi", "eth_utils", "eth_keys", "eth_hash")),
}
tx = {"to": "0x" + "11" * 20, "value": 1, "gas": 21000, "nonce": 0, "chainId": 8453,
      "maxFeePerGas": 10**9, "maxPriorityFeePerGas": 1}
signed["transaction"] = signer.sign_transaction(tx).raw.hex()
signed["loaded"] = sorted(m for m in sys.modules if m.split(".")[0] in (
    "Crypto", "cffi", "eth_keyfile") and type(sys.modules[m]).__name__ != "_KeyfileStandIn")
print(json.dumps(signed))
"""


def _sign(backend: str | None = None, preamble: str = "") -> dict:
    """`_SIGN` in a fresh process; ETH_HASH_BACKEND set to `backend`, or unset."""
    env = {k: v for k, v in os.environ.items() if k != "ETH_HASH_BACKEND"}
    if backend is not None:
        env["ETH_HASH_BACKEND"] = backend
    done = subprocess.run(
        [sys.executable, "-c", preamble + _SIGN, KEY],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict = json.loads(done.stdout)
    return result


def test_a_signature_loads_neither_keyfile_nor_pycryptodome() -> None:
    result = _sign()
    assert result["eth_stack_after_typed"] == []
    assert result["loaded"] == []
    assert result["recovered"] == result["address"]


def test_the_signatures_are_those_of_eth_account_with_everything_loaded() -> None:
    trimmed = _sign()
    # eth-keyfile and pycryptodome's keccak imported before crossdeck: no trim applies
    untrimmed = _sign("pycryptodome", preamble="import eth_keyfile, eth_account\n")
    assert "eth_keyfile.keyfile" in untrimmed["loaded"]
    assert any(m.startswith("Crypto") for m in untrimmed["loaded"])
    assert (trimmed["typed"], trimmed["message"]) == (untrimmed["typed"], untrimmed["message"])
    assert trimmed["transaction"] == untrimmed["transaction"]
    assert len(bytes.fromhex(trimmed["typed"])) == 65


def test_a_keystore_still_encrypts_and_decrypts_through_eth_account() -> None:
    code = (
        "import sys\n"
        "import crossdeck\n"
        "from eth_account import Account\n"
        "assert type(sys.modules['eth_keyfile']).__name__ == '_KeyfileStandIn'\n"
        "box = Account.encrypt(sys.argv[1], 'pass', kdf='pbkdf2', iterations=2)\n"
        "print(type(sys.modules['eth_keyfile']).__name__, box['crypto']['kdf'])\n"
        "print('0x' + bytes(Account.decrypt(box, 'pass')).hex())\n"
        "import eth_keyfile\n"
        "print(eth_keyfile.load_keyfile.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, KEY], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["module", "pbkdf2", KEY, "eth_keyfile.keyfile"]


def test_a_backend_the_user_chose_is_kept() -> None:
    code = "import os, crossdeck\nprint(os.environ['ETH_HASH_BACKEND'])\n"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "ETH_HASH_BACKEND": "pycryptodome"},
    )
    assert done.stdout.strip() == "pycryptodome"


# a `crossdeck` process that prints, when it exits, which modules of the eth stack it loaded
_CROSSDECK_REPORTING_IMPORTS = """
import atexit, json, sys
def report():
    loaded = sorted({m.split(".")[0] for m in sys.modules} & {
        "eth_account", "eth_abi", "eth_utils", "eth_keys", "eth_hash", "web3", "parsimonious"})
    sys.stderr.write("ETH-STACK " + json.dumps(loaded) + "\\n")
atexit.register(report)
from crossdeck.cli import main
sys.argv = ["crossdeck", *sys.argv[1:]]
sys.exit(main())
"""


def test_a_venue_withdrawal_through_the_cli_loads_no_eth_stack(world: Any, tmp_path: Path) -> None:
    world_file = tmp_path / "world.json"
    world_file.write_text(json.dumps(world.info))
    (tmp_path / "config.toml").write_text(f'data_dir = "{tmp_path / "data"}"\n')
    done = subprocess.run(
        [sys.executable, "-c", _CROSSDECK_REPORTING_IMPORTS,
         "--world", str(world_file), "bridge", "--yes", "--json",
         "--origin-chain", "1337", "--origin-currency", "0x" + "0" * 32,
         "--destination-chain", "8453", "--destination-currency", world.chains[8453].usdc,
         "--amount-human", "2"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "CROSSDECK_CONFIG": str(tmp_path / "config.toml")},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1])["status"] == "success"
    [report] = [line for line in done.stderr.splitlines() if line.startswith("ETH-STACK ")]
    assert json.loads(report.removeprefix("ETH-STACK ")) == []
