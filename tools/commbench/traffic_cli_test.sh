#!/bin/bash
# `commbench traffic` as a user runs it: the DDP answer for 1.3B bf16 params on 8 ranks (ring: 2(n-1)/n of the
# gradients per rank, exactly), and bad input refused with one line naming the value, exit 2, nothing on stdout.
set -uo pipefail
BIN="$(realpath "$1")"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

out="$("$BIN" traffic --params 1.3B --dtype bf16 --bucket 25M --world 8 --algo ring)" || fail "exit $?"
grep -q "each rank sends    4.55 GB (4,550,000,000 B) per step = 1.750 x the gradients" <<<"$out" || fail "$out"
grep -q "99 x 26.21 MB (26,214,400 B) (ring) + 1 x 4.77 MB" <<<"$out" || fail "buckets: $out"
out="$("$BIN" traffic --params 1.3B --bucket 25M --world 8 --backend gloo --algo ring_chunked)" || fail "gloo exit $?"
grep -q "x the gradients" <<<"$out" || fail "gloo: $out"

# --measure: the bucket sizes run here (3 local ranks, small buckets). Every rank's measured step must be the model
# within 0.5 % (native tcp writes payload bare); Gloo's halving-doubling on 3 ranks (binary blocks): two ranks send
# 6 MB, one 4 MB.
measured() {  # the x-model columns (sent, received) of the per-rank rows, one line per rank
  awk '/^per step/ {on = 1; next} on && $1 ~ /^[0-9]+$/ {print $1, $6, $11}' <<<"$1"
}
out="$("$BIN" traffic --params 3M --bucket 1M --world 3 --measure --time-budget 0.05 2>/dev/null)" || fail "measure exit $?"
rows="$(measured "$out")"
[[ "$(wc -l <<<"$rows")" -eq 3 ]] || fail "measure rows: $out"
awk '{ if ($2 < 0.995 || $2 > 1.005 || $3 < 0.995 || $3 > 1.005) bad = 1 } END { exit bad }' <<<"$rows" ||
  fail "measured far from the model: $out"
grep -q "5 x 1.049 MB  *ring" <<<"$out" || fail "measure buckets: $out"
out="$("$BIN" traffic --params 2M --bucket 1M --world 3 --backend gloo --algo halving_doubling --measure \
  --time-budget 0.05 2>/dev/null)" || fail "gloo measure exit $?"
grep -q "f16" <<<"$out" || fail "gloo bf16 runs as f16: $out"
# The model column says which rank sends less; the measured sends carry Gloo's framing (under 0.1 % here).
[[ "$(awk '/^per step/ {on = 1; next} on && $1 ~ /^[0-9]+$/ {print $4}' <<<"$out" | tr '\n' ' ')" == \
   "6.000 6.000 4.000 " ]] || fail "gloo modelled step: $out"
awk '/^per step/ {on = 1; next} on && $1 ~ /^[0-9]+$/ { if ($6 < 1 || $6 > 1.002) bad = 1 } END { exit bad }' \
  <<<"$out" || fail "gloo measured sends: $out"

# --measure with ranks that someone else started (SPMD: a launcher, here --rank by hand), meeting at --rendezvous:
# every rank runs, rank 0 alone prints the model and the measured table, every rank exits 0.
store="$(mktemp -d "${TEST_TMPDIR:-/tmp}/traffic-spmd.XXXXXX")"
pids=()
for r in 0 1 2; do
  timeout 120 "$BIN" traffic --params 3M --bucket 1M --world 3 --measure --time-budget 0.05 --rank $r \
    --rendezvous "file:$store" --run-id spmd-test >"$store/out$r" 2>"$store/err$r" &
  pids+=($!)
done
for r in 0 1 2; do wait "${pids[$r]}" || fail "SPMD rank $r exit $?: $(cat "$store/err$r")"; done
out="$(cat "$store/out0")"
rows="$(measured "$out")"
[[ "$(wc -l <<<"$rows")" -eq 3 ]] || fail "SPMD rows: $out"
awk '{ if ($2 < 0.995 || $2 > 1.005 || $3 < 0.995 || $3 > 1.005) bad = 1 } END { exit bad }' <<<"$rows" ||
  fail "SPMD measured far from the model: $out"
grep -q "^measured: 3 SPMD ranks (--rank), native-tcp" <<<"$out" || fail "SPMD label: $out"
[[ ! -s "$store/out1" && ! -s "$store/out2" ]] || fail "SPMD ranks 1, 2 printed: $(cat "$store/out1" "$store/out2")"
rm -rf "$store"

PRE=()  # what bad() runs the binary under (a launcher's variables)
bad() {  # WORD the error must name, then the arguments
  local word="$1"; shift
  local out err rc
  out="$("${PRE[@]}" "$BIN" traffic "$@" 2>/tmp/traffic_err.$$)"; rc=$?
  err="$(cat /tmp/traffic_err.$$)"; rm -f /tmp/traffic_err.$$
  [[ $rc -eq 2 ]] || fail "$* exited $rc"
  [[ -z "$out" ]] || fail "$* wrote to stdout: $out"
  [[ "$(wc -l <<<"$err")" -eq 1 && "$err" == "commbench: error: "*"$word"* ]] || fail "$*: $err"
}
bad "'1.3X'" --params 1.3X --world 8
bad "'-3'" --params -3 --world 8
bad "--world 0" --params 1B --world 0
bad "--bucket 0" --params 1B --world 8 --bucket 0
bad "'f8'" --params 1B --world 8 --dtype f8
bad "'foo'" --params 1B --world 8 --backend foo
bad "'twoshot'" --params 1B --world 8 --backend gloo --algo twoshot
bad "'udp'" --params 1B --world 8 --transport udp
bad "--params" --world 8
bad "--measure" --params 1B --world 8 --out x.json
bad "'foo'" --params 1M --world 3 --measure --launcher foo
bad "limit of 128" --params 1M --world 300 --measure
bad "--time-budget" --params 1M --world 3 --measure --time-budget 0
bad "--measure" --params 1M --world 3 --rendezvous file:/tmp
bad "--launcher srun" --params 1M --world 3 --measure --launcher srun --rendezvous file:/tmp
bad "no --rendezvous" --params 1M --world 3 --measure --rank 0
# Started by srun as one of 3 ranks: without --rendezvous each would run its own 3-rank sweep; with a --world other
# than the launcher's, the step would be measured on the wrong ranks.
PRE=(env SLURM_PROCID=0 SLURM_NTASKS=3 SLURM_JOB_ID=34)
bad "no --rendezvous" --params 1M --world 3 --measure
bad "started 3 ranks" --params 1M --world 4 --measure --rendezvous file:/tmp
PRE=()
[[ $fails -eq 0 ]] && echo "traffic_cli_test: all passed"
exit $((fails > 0))
