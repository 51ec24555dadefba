#!/usr/bin/env bash
# Installs what crossdeck needs into ./.venv from the lock file: uv (from pip, if missing),
# then the locked Python dependencies. With --tools it also installs the pinned anvil from npm
# and Debian's chromium (apt) for the browser-wallet tests.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
if [ ! -x .venv/bin/uv ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check uv
fi
# --compile-bytecode: the first start of the app is then as quick as the second (no .pyc to write)
UV_PYTHON=.venv/bin/python .venv/bin/uv sync --locked --compile-bytecode --quiet --python .venv/bin/python

if [ "${1:-}" = "--tools" ]; then
    (cd tools && npm install --no-audit --no-fund --loglevel=error)
    # the browser-wallet tests drive Debian's chromium headless (playwright's own browser
    # download is never used): install it from apt when it is missing
    if ! command -v chromium >/dev/null 2>&1; then
        # sudo -n: fail at once rather than wait for a password no one types (CI); `env`
        # passes DEBIAN_FRONTEND through sudo, whose env_reset drops it from its own environment
        SUDO=""
        if [ "$(id -u)" -ne 0 ]; then SUDO="sudo -n"; fi
        if command -v apt-get >/dev/null 2>&1; then
            $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
            $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                --no-install-recommends chromium
        else
            echo "bootstrap: no chromium and no apt-get: the browser-wallet tests will fail" >&2
        fi
    fi
fi
