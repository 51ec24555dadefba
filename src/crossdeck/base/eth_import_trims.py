"""What eth-account's import loads that a signature does not need, left out (issue 15).

crossdeck's own signatures no longer load eth-account (transactions: crossdeck.wallet.tx_encoding,
typed data and personal messages: crossdeck.wallet.typed_data). What still imports it (a keystore
import, the world's chains) is spared two parts that serve nothing crossdeck signs or hashes:

- eth-account imports eth-keyfile (keystore JSON files) for `Account.encrypt` / `decrypt`, and
  eth-keyfile imports pycryptodome's AES, scrypt and cffi's C parser. crossdeck reads a keystore
  only in `crossdeck wallet import --keystore`. `defer_keyfile` puts stand-ins for `eth_keyfile`
  and `eth_keyfile.keyfile` in `sys.modules` before eth-account is imported: they hold the names
  eth-account takes from them (the two functions, which call the real ones, and `KDFType`, the
  same `Literal`); any other name loads the real package, which then replaces them.
- eth-hash picks pycryptodome's keccak when it is installed (it is, for the keyring's encrypted
  file), which loads cffi and parses C declarations at import. safe-pysha3's keccak, installed
  with eth-tester's py-evm extra on CPython, is one C extension. `prefer_c_keccak` names it in
  `ETH_HASH_BACKEND`, eth-hash's own switch, unless the user set that switch.

Together about 40 ms of every process that imports eth-account (`python -X importtime`).
`apply` runs both; it is called from `crossdeck/__init__.py`, so it precedes any import of
eth-account by crossdeck.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types
from typing import Any, Literal

_KEYFILE = "eth_keyfile"
_KEYFILE_MODULE = "eth_keyfile.keyfile"
_BACKEND_SWITCH = "ETH_HASH_BACKEND"


class _KeyfileStandIn(types.ModuleType):
    """A stand-in for eth-keyfile (or its `keyfile` module) until something needs the real one."""

    def __getattr__(self, name: str) -> Any:  # a name the stand-in does not hold
        if name.startswith("__"):
            # the import system asks modules for `__path__` and the like: a stand-in has none
            raise AttributeError(name)
        real = _real_keyfile()
        return getattr(real if self.__name__ == _KEYFILE else real.keyfile, name)


def _real_keyfile() -> types.ModuleType:
    """The real eth-keyfile, imported now if a stand-in still holds its place."""
    for name in (_KEYFILE, _KEYFILE_MODULE):
        if isinstance(sys.modules.get(name), _KeyfileStandIn):
            del sys.modules[name]
    return importlib.import_module(_KEYFILE)


def _create_keyfile_json(*args: Any, **kwargs: Any) -> Any:
    return _real_keyfile().create_keyfile_json(*args, **kwargs)


def _decode_keyfile_json(*args: Any, **kwargs: Any) -> Any:
    return _real_keyfile().decode_keyfile_json(*args, **kwargs)


def defer_keyfile() -> None:
    """Stand-ins for eth-keyfile until a keystore is read or written (nothing, when eth-keyfile
    or eth-account is already imported)."""
    if any(name in sys.modules for name in (_KEYFILE, _KEYFILE_MODULE, "eth_account")):
        return
    package = _KeyfileStandIn(_KEYFILE, "eth-keyfile, imported when a keystore is first used")
    module = _KeyfileStandIn(_KEYFILE_MODULE, "eth-keyfile's keyfile module, imported on use")
    module.__dict__["KDFType"] = Literal["pbkdf2", "scrypt"]  # eth-keyfile's own alias
    package.__dict__.update(
        keyfile=module,
        create_keyfile_json=_create_keyfile_json,
        decode_keyfile_json=_decode_keyfile_json,
    )
    sys.modules[_KEYFILE] = package
    sys.modules[_KEYFILE_MODULE] = module


def prefer_c_keccak() -> None:
    """eth-hash's keccak from safe-pysha3 when it is installed and no backend was chosen."""
    if _BACKEND_SWITCH not in os.environ and importlib.util.find_spec("sha3") is not None:
        os.environ[_BACKEND_SWITCH] = "pysha3"


def apply() -> None:
    defer_keyfile()
    prefer_c_keccak()
