#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian machine with Node 20 and npm:
# the Debian packages (nats-server for the queue, chromium for the UI tests) and the
# pinned npm packages, Bun among them. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v nats-server >/dev/null 2>&1 || need_apt+=(nats-server)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install: missing ${need_apt[*]}; run as root or install them with apt-get" >&2
    exit 1
  fi
  echo "install: apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Installs what the lockfile pins. Not `npm ci`: opencode-ai lists optional binaries for
# every platform, the registry here serves only linux-x64's, and npm ci refuses a lockfile
# without the others, where npm install skips them. --no-save leaves the lockfile as it is.
# A stamp of the lockfile's hash skips the step when nothing changed.
stamp=node_modules/.install-stamp
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  npm install --no-save --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
