#!/bin/bash
# Installs what the browser tests need, when missing: Chromium, chromedriver and Node.js (the tests drive
# chromedriver over HTTP with Node's built-in fetch), and the offline trace viewer speedscope from npm into
# $SPEEDSCOPE_DIR (trace_viewer_test opens `--trace` output in it; Perfetto's UI is not on npm). Idempotent and
# quiet when everything is present. Run as root (or with sudo available). Debian 12.
set -euo pipefail

SPEEDSCOPE_VERSION=1.25.0
SPEEDSCOPE_DIR=${SPEEDSCOPE_DIR:-/opt/commbench/speedscope}

missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/bin/chromedriver ]] || missing+=(chromium-driver)
if ! command -v node >/dev/null 2>&1; then
  missing+=(nodejs)
elif [[ $(node -p 'Number(process.versions.node.split(".")[0])') -lt 18 ]]; then
  echo "reports/tools/setup.sh: node $(node --version) is too old (need >= 18 for fetch)" >&2
  exit 1
fi

SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "reports/tools/setup.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q "${missing[@]}" >/dev/null ||
    { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

# The pinned version, checked by its package.json, so a different one already there is replaced.
installed=$(node -p "require('$SPEEDSCOPE_DIR/node_modules/speedscope/package.json').version" 2>/dev/null || true)
if [[ "$installed" != "$SPEEDSCOPE_VERSION" ]]; then
  command -v npm >/dev/null 2>&1 || {
    $SUDO apt-get install -y -q npm >/dev/null ||
      { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q npm >/dev/null; }
  }
  echo "reports/tools/setup.sh: installing speedscope@$SPEEDSCOPE_VERSION into $SPEEDSCOPE_DIR"
  $SUDO mkdir -p "$SPEEDSCOPE_DIR"
  # Without the registry the suite still runs: trace_viewer_test then records its skip, naming this step.
  $SUDO npm install --prefix "$SPEEDSCOPE_DIR" --no-audit --no-fund --no-save --silent \
    "speedscope@$SPEEDSCOPE_VERSION" >/dev/null ||
    echo "reports/tools/setup.sh: npm could not install speedscope@$SPEEDSCOPE_VERSION; trace_viewer_test will skip" >&2
fi
