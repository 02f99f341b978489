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

bad() {  # WORD the error must name, then the arguments
  local word="$1"; shift
  local out err rc
  out="$("$BIN" traffic "$@" 2>/tmp/traffic_err.$$)"; rc=$?
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
[[ $fails -eq 0 ]] && echo "traffic_cli_test: all passed"
exit $((fails > 0))
