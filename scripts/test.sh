#!/usr/bin/env bash
# The test command of the README: installs everything the suite needs, then runs it.
# Extra arguments go to pytest. The suite runs in CROSSDECK_TEST_WORKERS processes (default 2,
# one per core of the CI machine; 0 runs it in this process), a test file to a worker, so a
# module's worlds and fixtures stay in one process.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --tools
export CROSSDECK_ANVIL="$PWD/tools/node_modules/.bin/anvil"
workers=${CROSSDECK_TEST_WORKERS:-2}
if [ "$workers" = "0" ]; then
    exec .venv/bin/python -m pytest "$@"
fi
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile "$@"
