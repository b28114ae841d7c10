#!/usr/bin/env bash
# Installs what the tests need, type-checks, and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PATH="$PWD/node_modules/.bin:$PATH"
echo "== typecheck"
tsc --noEmit
echo "== tests"
bun test "$@"
