#!/usr/bin/env bash
# Parses flake.nix and nix/*.nix with nix-instantiate when it is installed
# (a syntax check only: evaluating the flake needs nixpkgs from the network).
# Without nix it says so and succeeds.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nix-instantiate >/dev/null 2>&1; then
  echo "check-nix: nix-instantiate is not installed; skipping the Nix parse check"
  exit 0
fi

shopt -s nullglob
status=0
for file in flake.nix nix/*.nix; do
  if ! nix-instantiate --parse "$file" >/dev/null; then
    echo "check-nix: $file does not parse" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "check-nix: flake.nix and nix/*.nix parse"
exit "$status"
