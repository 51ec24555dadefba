#!/usr/bin/env bash
# Installs what crossdeck needs into ./.venv from the lock file: uv (from pip, if missing),
# then the locked Python dependencies. With --tools it also installs the pinned anvil from npm.
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
fi
