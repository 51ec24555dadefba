#!/usr/bin/env bash
# The demo command of the README: installs crossdeck, then opens it on a local world.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
exec .venv/bin/crossdeck demo "$@"
