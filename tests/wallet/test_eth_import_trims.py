"""eth-account without eth-keyfile and pycryptodome (crossdeck.eth_import_trims): a signature
loads neither, gives the signature eth-account gives with them, and a keystore still works."""

from __future__ import annotations

import json
import os
import subprocess
import sys

KEY = "0x" + "4c" * 32

# sign typed data and a personal message through crossdeck's signer, then report what loaded
_SIGN = """
import json, sys
from pydantic import SecretStr
from crossdeck.wallet.signer import Signer
signer = Signer(SecretStr(sys.argv[1]))
typed = {
    "domain": {"name": "Demo", "version": "1", "chainId": 1,
               "verifyingContract": "0x" + "00" * 20},
    "types": {"Ping": [{"name": "who", "type": "address"}, {"name": "n", "type": "uint256"}]},
    "primaryType": "Ping",
    "message": {"who": signer.address, "n": 7},
}
print(json.dumps({
    "typed": signer.sign_typed_data(typed).hex(),
    "message": signer.sign_eip191("hello").hex(),
    "recovered": Signer.recover_typed_data(typed, signer.sign_typed_data(typed)),
    "address": signer.address,
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("Crypto", "cffi", "eth_keyfile")
                     and type(sys.modules[m]).__name__ != "_KeyfileStandIn"),
}))
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
    assert result["loaded"] == []
    assert result["recovered"] == result["address"]


def test_the_signatures_are_those_of_eth_account_with_everything_loaded() -> None:
    trimmed = _sign()
    # eth-keyfile and pycryptodome's keccak imported before crossdeck: no trim applies
    untrimmed = _sign("pycryptodome", preamble="import eth_keyfile, eth_account\n")
    assert "eth_keyfile.keyfile" in untrimmed["loaded"]
    assert any(m.startswith("Crypto") for m in untrimmed["loaded"])
    assert (trimmed["typed"], trimmed["message"]) == (untrimmed["typed"], untrimmed["message"])
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
