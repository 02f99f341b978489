#!/bin/bash
# Builds everything and runs every test, then prints one line CI reads: "N passed, M failed".
# Counts are test targets (each a gtest binary or a script); skipped device tests are listed by the test itself.
set -uo pipefail
cd "$(dirname "$0")/.."
# What only the tests need (tools/setup.sh installed what the build needs).
tools/test_setup.sh || { echo "tools/test.sh: tools/test_setup.sh failed"; echo "0 passed, 1 failed"; exit 1; }

# Compiled objects are shared by every checkout on this machine and with `bazel build`/`bazel run` (.bazelrc names
# the same disk cache), so a fresh clone compiles only what changed since any checkout here last built it; test
# results never come from it: every run of this command runs every test.
cache=${COMMBENCH_BAZEL_CACHE:-$HOME/.cache/commbench/bazel-disk}
mkdir -p "$cache"
# Bazel never shrinks a disk cache: past 10 GiB, entries unwritten for two weeks go, and all of it past 20 GiB.
if (($(du -sk "$cache" | cut -f1) > 10 * 1024 * 1024)); then
  find "$cache" -type f -mtime +14 -delete
  (($(du -sk "$cache" | cut -f1) > 20 * 1024 * 1024)) && find "$cache" -mindepth 1 -delete
fi

# The C++ tree follows .clang-format and the docs' links hold: counted as one test, so that CI fails otherwise.
tools/check_format.sh
format_status=$?
# Every relative link of README.md, docs/ and bench/ reaches a file; README stays short (counted with the format).
python3 tools/check_doc_links.py || format_status=1

log=$(mktemp)
trap 'rm -f "$log"' EXIT
bazel test //... --disk_cache="$cache" --nocache_test_results --test_summary=short --test_output=errors "$@" 2>&1 |
  tee "$log"
status=${PIPESTATUS[0]}

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|FLAKY|INCOMPLETE|NO STATUS)|FAILED TO BUILD' "$log")
# Test cases that skipped themselves (GPU tests without a device, the browser test without Chromium): named, so
# that a green line never hides what did not run.
testlogs=$(bazel info bazel-testlogs 2>/dev/null)
if [[ -d "$testlogs" ]]; then
  skipped=$(grep -rhoE '<testcase name="[^"]+"[^>]*result="skipped"[^>]*classname="[^"]+"' "$testlogs" --include=test.xml |
    sed -E 's/<testcase name="([^"]+)".*classname="([^"]+)"/\2.\1/' | sort -u)
  [[ -n "$skipped" ]] && echo "skipped here ($(echo "$skipped" | wc -l)): $(echo $skipped)"
fi
if [[ $status -ne 0 && $failed -eq 0 ]]; then
  failed=1  # the build itself failed: count it so that CI cannot read green
fi
if [[ $format_status -eq 0 ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
echo "${passed} passed, ${failed} failed"
[[ $status -eq 0 && $failed -eq 0 && $format_status -eq 0 ]]
