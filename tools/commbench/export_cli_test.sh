#!/bin/bash
# The exports of issue 29 as their users read them. MODE:
#   cli         `commbench export` and the three flags on sweep: files written, bad input refused (exit 2, one
#               line, nothing written, before any rank starts), the trace's structure
#   prometheus  promtool check metrics on a real sweep's .prom, then a real prometheus-node-exporter (started and
#               stopped by pid here, on a free port of 127.0.0.1) whose textfile collector serves it back over HTTP
#   pandas      Debian's pandas loads the three CSV kinds; a groupby over groups reproduces the console's growth lines
# Skips with one line only when the Debian package the mode needs is absent (tools/setup.sh installs it).
set -uo pipefail
MODE="$1"
BIN="$(realpath "$2")"
CHECK="$(realpath "$3")"
SKIP="$(realpath "$4")"
ACCEPTED="$(realpath "$5")"  # a real accept result (4 hosts, one link capped): verdicts, hosts, suspects
source "$SKIP"
PY=/usr/bin/python3  # Debian's, with python3-pandas
W="$(mktemp -d "${TEST_TMPDIR:-/tmp}/export-test.XXXXXX")"
NE_PID=""
cleanup() {
  [[ -n "$NE_PID" ]] && kill "$NE_PID" 2>/dev/null && wait "$NE_PID" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
cd "$W"
fails=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

sweep() {  # a small real sweep: Gloo pairs, 1-3 groups, two sizes
  "$BIN" sweep --no-explain --no-html --groups 1..3 --sizes 400,64K --time-budget 0.05 -q "$@"
}

# One line `commbench: error:`, exit 2, and none of the files named after it.
expect_bad() {
  local what="$1"; shift
  local -a files=()
  while [[ "$1" != "--" ]]; do files+=("$1"); shift; done
  shift
  "$@" >out.txt 2>err.txt
  local rc=$?
  local lines; lines=$(wc -l <err.txt)
  if [[ $rc -ne 2 || $lines -ne 1 ]] || ! grep -q '^commbench: error: ' err.txt; then
    fail "$what: rc $rc, stderr: $(cat err.txt)"; return
  fi
  for f in "${files[@]}"; do [[ -e "$f" ]] && { fail "$what: $f was written"; return; }; done
  ok "$what: $(cat err.txt)"
}

run_cli() {
  sweep --out r.json --prom r.prom --csv r.csv --trace r.trace.json >console.txt 2>err.txt || fail "sweep: $(cat err.txt)"
  for f in r.json r.samples.jsonl r.prom r.csv r.trace.json; do [[ -s $f ]] || fail "sweep wrote no $f"; done
  ls r.*.tmp-* 2>/dev/null && fail "temporary files left"
  "$PY" "$CHECK" trace r.trace.json r.json || fail "the sweep's trace"
  # a straggler: rank 2 (group 1) sleeps 5 ms every iteration; its group's lanes must stand out
  "$BIN" sweep --no-explain --no-html --groups 2 --sizes 400 --time-budget 0.1 --test-only-slow-rank 2:5000 -q --out slow.json \
    --trace slow.trace.json >/dev/null 2>err.txt || fail "the straggler sweep: $(cat err.txt)"
  "$PY" "$CHECK" straggler slow.trace.json 1 || fail "the straggler's lane"
  "$BIN" export r.json --prom e.prom --csv e.csv --trace e.trace.json 2>err.txt || fail "export: $(cat err.txt)"
  cmp -s r.prom e.prom && cmp -s r.csv e.csv && cmp -s r.trace.json e.trace.json && ok "export of r.json = the sweep's own exports" ||
    fail "export of r.json differs from what the sweep wrote"
  "$BIN" export r.json --csv rows.csv --csv-samples 2>/dev/null && [[ $(wc -l <rows.csv) -gt 100 ]] && ok "--csv-samples" || fail "--csv-samples"
  # bad input: one line, exit 2, nothing written (sweep: before any rank runs, so no result either)
  expect_bad "export without an export flag" -- "$BIN" export r.json
  expect_bad "--prom not ending in .prom" x.txt -- "$BIN" export r.json --prom x.txt
  expect_bad "--prom a directory" -- "$BIN" export r.json --prom "$W/"
  mkdir d.prom
  expect_bad "--prom an existing directory" -- "$BIN" export r.json --prom d.prom
  expect_bad "--csv into a missing directory" -- "$BIN" export r.json --csv no/such/x.csv
  expect_bad "--csv-repeats without --csv" -- "$BIN" export r.json --csv-repeats
  expect_bad "--csv-repeats with --csv-samples" b.csv -- "$BIN" export r.json --csv b.csv --csv-repeats --csv-samples
  expect_bad "--trace the result itself" -- "$BIN" export r.json --trace r.json
  expect_bad "a missing result" m.csv -- "$BIN" export missing.json --csv m.csv
  echo '{"schema_version": 3' >broken.json
  expect_bad "a truncated result" k.csv -- "$BIN" export broken.json --csv k.csv
  mkdir lone && cp r.json lone/
  expect_bad "a trace without the samples sidecar the result names" t.json -- "$BIN" export lone/r.json --trace t.json
  expect_bad "sweep --prom not ending in .prom" s.json s.txt -- "$BIN" sweep --groups 1 --sizes 400 --out s.json --prom s.txt
  expect_bad "sweep --trace into a missing directory" s.json -- "$BIN" sweep --groups 1 --sizes 400 --out s.json --trace no/t.json
  expect_bad "gate --csv-samples without --csv" g.json -- "$BIN" gate --baseline r.json --out g.json --csv-samples
  # only a regular file is replaced, keeping its mode
  echo old >keep.prom && chmod 640 keep.prom
  "$BIN" export r.json --prom keep.prom 2>/dev/null && [[ $(stat -c %a keep.prom) == 640 ]] && grep -q commbench_info keep.prom &&
    ok "an existing .prom replaced, mode 640 kept" || fail "replacing keep.prom"
}

run_prometheus() {
  local promtool ne
  promtool=$(command -v promtool) || { record_skip export_prometheus promtool "promtool is not installed (apt-get install prometheus; tools/setup.sh)"; exit 0; }
  ne=$(command -v prometheus-node-exporter || command -v node_exporter) ||
    { record_skip export_prometheus node_exporter "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter; tools/setup.sh)"; exit 0; }
  mkdir textfile
  sweep --out r.json --prom textfile/commbench.prom >console.txt 2>err.txt || fail "sweep: $(cat err.txt)"
  "$promtool" check metrics <textfile/commbench.prom >promtool.txt 2>&1
  local rc=$?
  echo "promtool check metrics: exit $rc, output: [$(cat promtool.txt)]"
  [[ $rc -eq 0 && ! -s promtool.txt ]] && ok "promtool check metrics: clean" || fail "promtool check metrics"
  "$BIN" export "$ACCEPTED" --prom accept.prom 2>/dev/null || fail "export of an accept result"
  "$promtool" check metrics <accept.prom >promtool.txt 2>&1
  rc=$?
  echo "promtool check metrics (accept result, $(grep -c '^commbench_acceptance' accept.prom) acceptance series): exit $rc, output: [$(cat promtool.txt)]"
  [[ $rc -eq 0 && ! -s promtool.txt ]] && grep -q '^commbench_acceptance_host_passed{host=' accept.prom && ok "promtool: accept result clean" ||
    fail "promtool check metrics on the accept result"
  # the acceptance verdicts too: a real accept result of the repository
  local port started=0
  for attempt in 1 2 3 4 5; do
    port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$ne" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
      --collector.textfile.directory="$W/textfile" >ne.log 2>&1 &
    NE_PID=$!
    for _ in $(seq 50); do
      "$PY" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=1)" 2>/dev/null && { started=1; break; }
      kill -0 "$NE_PID" 2>/dev/null || break
      sleep 0.1
    done
    [[ $started -eq 1 ]] && break
    kill "$NE_PID" 2>/dev/null; wait "$NE_PID" 2>/dev/null; NE_PID=""
  done
  [[ $started -eq 1 ]] || { fail "node_exporter did not start: $(tail -3 ne.log)"; return; }
  echo "node_exporter pid $NE_PID on 127.0.0.1:$port"
  "$PY" "$CHECK" scrape "$port" textfile/commbench.prom || fail "node_exporter round trip"
  kill "$NE_PID" && wait "$NE_PID" 2>/dev/null; NE_PID=""
}

run_pandas() {
  "$PY" -c 'import pandas' 2>/dev/null ||
    { record_skip export_pandas pandas "Debian's python3-pandas is not installed (apt-get install python3-pandas; tools/setup.sh)"; exit 0; }
  sweep --out r.json --csv points.csv >console.txt 2>err.txt || fail "sweep: $(cat err.txt)"
  "$BIN" export r.json --csv repeats.csv --csv-repeats 2>/dev/null || fail "--csv-repeats"
  "$BIN" export r.json --csv samples.csv --csv-samples 2>/dev/null || fail "--csv-samples"
  "$PY" "$CHECK" pandas points.csv repeats.csv samples.csv console.txt r.json || fail "pandas"
}

"run_$MODE"
echo "$((fails == 0 ? 1 : 0)) passed, $((fails > 0 ? 1 : 0)) failed"
[[ $fails -eq 0 ]]
