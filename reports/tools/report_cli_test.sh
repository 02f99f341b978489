#!/bin/bash
# `commbench report`: a good file gives a report; every bad input gives one line on stderr that names the file,
# exit code 2 and no output file. usage: report_cli_test.sh COMMBENCH GOOD_RESULTS.json
set -uo pipefail
COMMBENCH="$1"
GOOD="$2"
T="${TEST_TMPDIR:-$(mktemp -d)}"
passed=0
failed=0

check_bad() {  # name input expected-stderr-fragment
  local name="$1" input="$2" want="$3"
  rm -f "$T/out.html"
  "$COMMBENCH" report "$input" -o "$T/out.html" >"$T/stdout" 2>"$T/stderr"
  local rc=$?
  local lines
  lines=$(wc -l <"$T/stderr")
  if [[ $rc -eq 2 && $lines -eq 1 && ! -e "$T/out.html" ]] && grep -qF -- "$input" "$T/stderr" &&
     grep -qF -- "$want" "$T/stderr"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name: rc=$rc, $lines stderr line(s), output $( [[ -e $T/out.html ]] && echo written || echo absent)"
    cat "$T/stderr"
  fi
}

head -c 3000 "$GOOD" >"$T/truncated.json"
printf '{"schema_version": 1, "points": [1,, 2]}' >"$T/bad.json"
printf '{"schema_version": 99, "points": []}' >"$T/v99.json"
printf '{"points": []}' >"$T/noversion.json"
: >"$T/empty.json"
check_bad missing "$T/does-not-exist.json" "No such file"
check_bad truncated "$T/truncated.json" "looks truncated"
check_bad bad "$T/bad.json" "not valid JSON"
check_bad schema "$T/v99.json" "unsupported schema_version 99"
check_bad noversion "$T/noversion.json" "schema_version: missing"
# Files that parse as JSON but break the schema: one line naming the field, never a rendered page.
python3 - "$GOOD" "$T" <<'PY'
import json, sys
good, t = sys.argv[1], sys.argv[2]
def broken(name, change):
    d = json.load(open(good))
    change(d)
    json.dump(d, open(f"{t}/{name}.json", "w"))
broken("string_time", lambda d: d["points"][1]["time_us"].__setitem__("p50", "fast"))
broken("negative_groups", lambda d: d["points"][0].__setitem__("groups", -2))
broken("no_points", lambda d: d.pop("points"))
PY
check_bad string_time "$T/string_time.json" "points[1].time_us.p50: expected a number, got a string"
check_bad negative_groups "$T/negative_groups.json" "points[0].groups: invalid value -2"
check_bad no_points "$T/no_points.json" "points: missing"
check_bad empty "$T/empty.json" "is empty"
check_bad directory "$T" "is a directory"

# An output path that cannot be written is reported too, and leaves no temp file behind.
"$COMMBENCH" report "$GOOD" -o "$T/no/such/dir/out.html" 2>"$T/stderr"
if [[ $? -eq 2 && $(wc -l <"$T/stderr") -eq 1 && ! -d "$T/no" ]]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL unwritable output"; cat "$T/stderr"; fi

# The good file: exit 0, a complete page, and the default output name next to the input.
cp "$GOOD" "$T/good.json"
if "$COMMBENCH" report "$T/good.json" >"$T/stdout" 2>"$T/stderr" && grep -q '</html>' "$T/good.html" &&
   [[ $(stat -c %s "$T/good.html") -lt 2000000 ]] && ! ls "$T"/good.html.tmp.* >/dev/null 2>&1; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAIL good file"; cat "$T/stderr"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
