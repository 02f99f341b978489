#!/bin/bash
# Installs what the HTML report's browser test needs, when missing: Chromium, chromedriver and Node.js (the test
# drives chromedriver over HTTP with Node's built-in fetch; no npm package is needed). Idempotent and quiet
# when everything is present. Run as root (or with sudo available). Debian 12.
set -euo pipefail

missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/bin/chromedriver ]] || missing+=(chromium-driver)
if ! command -v node >/dev/null 2>&1; then
  missing+=(nodejs)
elif [[ $(node -p 'Number(process.versions.node.split(".")[0])') -lt 18 ]]; then
  echo "reports/tools/setup.sh: node $(node --version) is too old (need >= 18 for fetch)" >&2
  exit 1
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
echo "reports/tools/setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q "${missing[@]}" >/dev/null ||
  { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q "${missing[@]}" >/dev/null; }
