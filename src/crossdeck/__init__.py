"""crossdeck: a keyboard-first terminal wallet companion for cross-chain transfers."""

import os
import sys
import types

from crossdeck.base import code_cache, eth_import_trims, lazy_module, start_gc

# the code dataclasses generate is compiled once, not at every start (code_cache says why)
code_cache.apply()

# no cyclic collection while the process starts (start_gc says why)
start_gc.hold_collector_during_start()

__version__ = "0.1.0"

# httpx imports its own command-line client (`httpx._main`: click, rich.syntax, pygments,
# about 45 ms) whenever those are installed, and textual installs rich and pygments.
# crossdeck never runs that client, so an empty stand-in takes its place before httpx is
# first imported; it only costs a process that imports crossdeck and then calls `httpx.main`.
if "httpx" not in sys.modules:
    _cli = types.ModuleType("httpx._main", "httpx's command-line client, not loaded by crossdeck")
    _cli.__dict__["main"] = lambda: sys.exit("httpx's command-line client is not loaded here")
    sys.modules.setdefault("httpx._main", _cli)

# pydantic looks for plugins (the entry points of every installed distribution, 14 ms) when the
# first model is built. crossdeck uses none, and no plugin should see what a wallet validates;
# a user who set the switch keeps their choice.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
# With every plugin off, pydantic still imports its plugin loader, and with it importlib.metadata
# (email, zipfile, csv: about 25 ms) only to read the switch. The stand-in answers what the loader
# would (no plugins) without that import; a user who turned plugins back on gets the real one.
if os.environ["PYDANTIC_DISABLE_PLUGINS"] in ("__all__", "1", "true"):
    if "pydantic.plugin._loader" not in sys.modules:
        _loader = types.ModuleType("pydantic.plugin._loader", "no pydantic plugins (crossdeck)")
        _loader.__dict__["get_plugins"] = lambda: ()
        sys.modules["pydantic.plugin._loader"] = _loader

# websockets imports importlib.metadata (email, zipfile, csv: ~8 ms) only to read a version it
# also keeps as a constant. Until something uses one of its names, a stand-in holds its place;
# the first use loads the real module, as importing it would have (`lazy_module`).
lazy_module.stand_in("importlib.metadata")

# eth-account is imported without the parts no signature needs (eth_import_trims says which)
eth_import_trims.apply()
