#!/bin/bash
# Bazel wrapper for browser_test.js (see there). Skips with a clear message when node, chromium or chromedriver
# is missing; reports/tools/setup.sh installs them.
set -euo pipefail
RUNFILES="${TEST_SRCDIR:-$PWD/..}/commbench"
if ! command -v node >/dev/null; then
  echo "SKIPPED: node is not installed; run reports/tools/setup.sh. The browser checks did not run."
  echo "0 passed, 0 failed"
  exit 0
fi
cd "$RUNFILES"
exec node reports/tools/browser_test.js "$@"
