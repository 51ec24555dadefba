#!/usr/bin/env bash
# The test command of the README: installs everything the suite needs, then runs it.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --tools
export CROSSDECK_ANVIL="$PWD/tools/node_modules/.bin/anvil"
exec .venv/bin/python -m pytest "$@"
