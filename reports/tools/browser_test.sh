#!/bin/bash
# Bazel wrapper for browser_test.js (see there), or for another page test named by a first `--script FILE`
# (comparison_browser_test.js). A missing node, chromium or chromedriver is a failure: a test
# that cannot run must not read as passed (reports/tools/setup.sh installs them, and tools/test.sh runs it
# first). Where a machine cannot have a browser, `--test_env=COMMBENCH_ALLOW_NO_BROWSER=1` records a skip
# instead, in the test's XML, which tools/test.sh lists by name.
set -euo pipefail
RUNFILES="${TEST_SRCDIR:-$PWD/..}/commbench"
missing=()
command -v node >/dev/null || missing+=(node)
for bin in "${CHROMIUM:-/usr/bin/chromium}" "${CHROMEDRIVER:-/usr/bin/chromedriver}"; do
  [[ -x "$bin" ]] || missing+=("$bin")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  why="not installed: ${missing[*]}; run reports/tools/setup.sh. The browser checks did not run."
  if [[ "${COMMBENCH_ALLOW_NO_BROWSER:-}" == "1" && -n "${XML_OUTPUT_FILE:-}" ]]; then
    cat >"$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="BrowserTest" tests="1" skipped="1">
<testcase name="AllReportsRender" status="run" result="skipped" classname="BrowserTest"><skipped message="$why"/></testcase>
</testsuite></testsuites>
XML
    echo "SKIPPED (recorded): $why"
    exit 0
  fi
  echo "FAILED: $why"
  echo "0 passed, 1 failed"
  exit 1
fi
SCRIPT=reports/tools/browser_test.js
if [[ "${1:-}" == "--script" ]]; then
  SCRIPT="$2"
  shift 2
fi
cd "$RUNFILES"
exec node "$SCRIPT" "$@"
