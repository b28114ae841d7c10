#!/usr/bin/env bash
# Installs what the service needs and runs it locally (the embedded one-machine default).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec node_modules/.bin/bun run entrypoints/local.ts
