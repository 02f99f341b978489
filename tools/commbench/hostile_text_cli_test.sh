#!/bin/bash
# Text from commits and result files leaves `history check` escaped (docs/design.md §10): a history whose commits
# hold a newline with a forged "::error::" workflow command, terminal escapes (ESC [ and the 8-bit CSI), a bidi
# override and XML-forbidden controls prints no console line that starts with "::" and no ESC or C1 byte; its
# JUnit is well-formed XML (xmllint) and valid against reports/junit.xsd; its markdown summary carries no raw HTML
# and no line starting with "::"; its HTML page carries no raw bidi control.
# usage: hostile_text_cli_test.sh COMMBENCH REAL_SWEEP.json JUNIT_XSD
set -uo pipefail
B="$(realpath "$1")"
REAL="$(realpath "$2")"
XSD="$(realpath "$3")"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
expect() {  # name command...
  local name="$1"
  shift
  if "$@"; then ok; else bad "$name"; fi
}
# No line of FILE starts (after blanks) with "::", and FILE has no ESC, no raw C1 control, no raw bidi control.
clean_console() {
  python3 - "$1" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
text = data.decode("utf-8", "strict")
bad = [l for l in text.split("\n") if l.lstrip(" \t").startswith("::")]
bad += ["ESC"] if "\x1b" in text else []
bad += ["C1"] if re.search("[\x80-\x9f]", text) else []
bad += ["bidi"] if re.search("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", text) else []
bad += ["control"] if re.search("[\x00-\x08\x0b-\x1f\x7f]", text) else []
if bad:
    print(bad)
    sys.exit(1)
PY
}

# A history of 24 runs with a planted 15 % step from run 20, so that check reports the change and its commits.
python3 - "$REAL" <<'PY'
import json, random, sys
real = json.load(open(sys.argv[1]))
rng = random.Random(5)
for i in range(24):
    j = json.loads(json.dumps(real))
    j["schema_version"] = 3
    for p in j["points"]:
        t = p["time_us"]["p50"] * (1.15 if i >= 20 else 1)
        r = [t * (1 + rng.gauss(0, 0.02)) for _ in range(3)]
        p["repeats"] = {"n": 3, "p50_us": r, "mean_us": r}
    json.dump(j, open("step-%02d.json" % i, "w"))
PY
HOSTILE=$'c\n::error::forged\x1b[31mred\xc2\x9b31m\xe2\x80\xaecod\x01\x0b<script>|x|'
for i in $(seq -w 0 23); do
  "$B" history add h "step-$i.json" --commit "$HOSTILE$i" --time "2026-11-01T08:${i}:00Z" >add.txt 2>err.txt
  [[ $? == 0 ]] || bad "add $i: $(cat err.txt)"
  clean_console add.txt || bad "history add $i prints the commit raw"
done
ok
"$B" history check h --junit j.xml --summary s.md --html h.html >out.txt 2>err.txt
rc=$?
[[ $rc == 1 ]] && ok || bad "history check: exit $rc, expected 1: $(cat err.txt)"
grep -q 'forged' out.txt && ok || bad "the commit is not in the text at all: $(cat out.txt)"
expect "history check text: no :: line, ESC, C1, bidi or control" clean_console out.txt
expect "stderr too" clean_console err.txt
xmllint --noout j.xml 2>xml.txt && ok || bad "JUnit is not well-formed: $(cat xml.txt)"
xmllint --noout --schema "$XSD" j.xml 2>xsd.txt && ok || bad "JUnit is not valid against junit.xsd: $(cat xsd.txt)"
grep -q 'forged' j.xml && ok || bad "the commit is not in the JUnit"
expect "summary: no :: line, ESC, C1, bidi or control" clean_console s.md
grep -q '<script' s.md && bad "raw HTML in the summary" || ok
python3 -c "
import sys, re
t = open('h.html', encoding='utf-8').read()
sys.exit(1 if re.search('[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]', t) else 0)" && ok || bad "raw bidi control in h.html"
grep -qi 'u202e' h.html && ok || bad "the bidi control is not in h.html as an escape"
echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
