#!/usr/bin/env bash
# What the test suite needs from outside npm: redis-server (the Redis tests start their own)
# and Chromium (the MCP Apps browser test; no browser is downloaded). Installed here with
# apt-get when missing and we are root on Debian; otherwise the exact command is printed.
set -uo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
{ command -v chromium >/dev/null 2>&1 || [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; } || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} (apt-get)" >&2
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" && exit 0
fi
echo "the tests need ${missing[*]}: install with  sudo apt-get install -y ${missing[*]}  (Debian/Ubuntu), or set CHROMIUM_PATH to a Chromium binary" >&2
exit 1
