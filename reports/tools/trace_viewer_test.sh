#!/bin/bash
# Bazel wrapper for trace_viewer_test.js (see there): `commbench --trace` output opened in speedscope, an offline
# trace viewer from npm. Args: COMMBENCH RECORD_SKIP. Skips (recorded in the test's XML, which tools/test.sh lists
# by name) with one line only when node, Chromium, chromedriver or speedscope is absent: reports/tools/setup.sh
# installs them, speedscope into $SPEEDSCOPE_DIR (/opt/commbench/speedscope).
set -euo pipefail
BIN="$(realpath "$1")"
source "$2"
INDEX="${SPEEDSCOPE_DIR:-/opt/commbench/speedscope}/node_modules/speedscope/dist/release/index.html"
missing=()
command -v node >/dev/null || missing+=(node)
for f in "${CHROMIUM:-/usr/bin/chromium}" "${CHROMEDRIVER:-/usr/bin/chromedriver}"; do
  [[ -x "$f" ]] || missing+=("$f")
done
[[ -f "$INDEX" ]] || missing+=("speedscope ($INDEX)")
if [[ ${#missing[@]} -gt 0 ]]; then
  record_skip TraceViewerTest OpensInSpeedscope \
    "not installed: ${missing[*]}; run reports/tools/setup.sh. The trace viewer test did not run."
  exit 0
fi
cd "${TEST_SRCDIR:-$PWD/..}/commbench"
exec node reports/tools/trace_viewer_test.js --commbench "$BIN" --speedscope "$INDEX"
