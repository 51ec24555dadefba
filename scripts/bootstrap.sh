#!/usr/bin/env bash
# Installs what crossdeck needs into ./.venv from the lock file: uv (from pip, if missing),
# then the locked Python dependencies. With --tools it also installs the pinned anvil from npm,
# and from apt (when missing) Debian's chromium for the browser-wallet tests and tmux for the
# end-to-end tests, which drive `crossdeck demo` in a real terminal.
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
    # download is never used), the end-to-end tests a private tmux server: install what is
    # missing from apt
    missing=""
    command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
    command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
    if [ -n "$missing" ]; then
        # sudo -n: fail at once rather than wait for a password no one types (CI); `env`
        # passes DEBIAN_FRONTEND through sudo, whose env_reset drops it from its own environment
        SUDO=""
        if [ "$(id -u)" -ne 0 ]; then SUDO="sudo -n"; fi
        if command -v apt-get >/dev/null 2>&1; then
            $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
            # shellcheck disable=SC2086 # one word per package
            $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                --no-install-recommends $missing
        else
            echo "bootstrap: no apt-get to install$missing: the tests that need it will fail" >&2
        fi
    fi
fi
