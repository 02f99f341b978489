#!/bin/bash
# tools/gpu_check.sh run over a bundle of the real binaries, on whatever this host has: every named step runs under
# its bound and gets a summary line with its exit code; the results are packed for the device tool; a step left
# unnamed does not run. Without a GPU the device tests skip (exit 0) and the GPU sweeps refuse (exit 2).
set -uo pipefail
GPU_CHECK="$(realpath "$1")"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failed=0 passed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

mkdir -p "$T/bundle" "$T/out"
for b in "$2" "$3" "$4" "$5"; do ln -s "$(realpath "$b")" "$T/bundle/$(basename "$b")"; done
cd "$T"
OUT="$T/out" "$GPU_CHECK" run "$T/bundle" "$T/work" 120 env runtime_test nccl_backend_test scenario_b >run.log 2>&1
code=$?
[[ $code -eq 0 ]] && ok || fail "run exited $code: $(tail -n 3 run.log)"
summary="$T/work/summary.txt"
for s in env runtime_test nccl_backend_test scenario_b; do
  grep -q "^$s rc=[0-9]* seconds=[0-9]*$" "$summary" && ok || fail "no summary line for $s: $(cat "$summary")"
done
grep -q "^env rc=0 " "$summary" && [[ -s "$T/work/env.json" ]] && python3 -m json.tool "$T/work/env.json" >/dev/null &&
  ok || fail "env: $(grep '^env' "$summary")"
for s in runtime_test nccl_backend_test; do
  grep -q "^$s rc=0 " "$summary" && grep -q "<testsuites" "$T/work/$s.xml" && ok || fail "$s: $(tail -n 3 "$T/work/$s.log")"
done
if python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["backends"]["nccl"]["available"] else 1)' \
  "$T/work/env.json" 2>/dev/null; then
  echo "note: a GPU is here; scenario_b's exit code not checked"
else
  grep -q "^scenario_b rc=2 " "$summary" && ok || fail "scenario_b without a GPU: $(grep '^scenario_b' "$summary")"
fi
grep -q "^facts\|^fidelity\|^correct\|^gate_aa\|^scenario_a" "$summary" && fail "an unnamed step ran: $(cat "$summary")" || ok
# The listing read whole first: `tar | grep -q` under pipefail fails whenever grep leaves before tar has written all.
listing=$(tar -tzf "$T/out/gpu-results.tar.gz" 2>&1)
grep -q "summary.txt" <<<"$listing" && cmp -s "$T/out/summary.txt" "$summary" && ok ||
  fail "results not packed into \$OUT: $(ls -l "$T/out" 2>&1 | tr '\n' ' '); run.log: $(grep -i 'pack\|tar' run.log | tail -n 3)"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
