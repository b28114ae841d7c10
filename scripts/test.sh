#!/usr/bin/env bash
# Installs what the tests need, type-checks, and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PATH="$PWD/node_modules/.bin:$PATH"
echo "== format and lint (biome)"
biome check .
echo "== unused files and exports (knip, knip.json)"
knip --no-progress
echo "== nix (parse only, when nix is installed)"
bash scripts/check-nix.sh
echo "== typecheck"
# The two projects at once, one a core: neither waits on the other, and the suite waits on both.
tsc --noEmit &
server=$!
tsc --noEmit -p ui/tsconfig.json &
ui=$!
status=0
wait "$server" || status=$?
wait "$ui" || status=$?
if [ "$status" -ne 0 ]; then exit "$status"; fi
echo "== tests"
# Suites that start real processes (nats-server, claude, opencode) need more than the 5 s default;
# bun 1.4 does not read a test timeout from bunfig.toml, so it is set here. The files run in four
# worker processes (each file in a fresh global), twice the cores of the machines this runs on:
# most of a file's time is spent waiting on the processes it starts (nats-server, the services,
# chromium), so four files overlap those waits where two left a core idle (bench/suite-cpu.ts
# measured 1.2 of 2 cores busy with two workers; 310 s with two, 175 s with four, on one idle
# machine). The slowest files start first (test/timings.json, refreshed by
# `bun run bench/suite-cpu.ts --refresh-timings`), so no long file starts last and runs on alone.
bun test --timeout 60000 --parallel=4 --timings test/timings.json "$@"
