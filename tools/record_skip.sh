# Sourced by shell tests that need what this machine may lack (root, network namespaces, Slurm).
# record_skip SUITE CASE WHY: writes the skip where Bazel reads test results (tools/test.sh lists skipped cases by
# name, so a skip is never counted as a pass silently) and says it on stdout.
record_skip() {
  local suite="$1" case="$2" why="$3"
  if [[ -n "${XML_OUTPUT_FILE:-}" ]]; then
    cat >"$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="$suite" tests="1" skipped="1">
<testcase name="$case" status="run" result="skipped" classname="$suite"><skipped message="$why"/></testcase>
</testsuite></testsuites>
XML
  fi
  echo "SKIPPED (recorded): $why"
}
