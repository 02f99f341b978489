#!/bin/bash
# Regenerates the example reports for the reference scenarios (DESIGN.md §4) with the real CLI:
#   A  Gloo pair groups on CPU, G = 1..8 (the user report: 0.39 s at G=1, 2.07 s at G=8 on a 48-core Xeon),
#      as a user runs it, and with --explain so that the A/B points that confirm the cause are in the sweep;
#   B  NCCL per-parameter allreduce with the H2D copy on the default stream vs its own stream (GPU hosts only;
#      skipped with a note elsewhere).
# Each scenario writes reports/examples/<name>.json (the results) and <name>.html (the report); the HTML embeds
# the results, so the pair is committed together.
#
# usage: reports/make_examples.sh [COMMBENCH]   (default: builds //tools/commbench and uses bazel-bin's binary)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=reports/examples
mkdir -p "$OUT"

COMMBENCH="${1:-}"
if [[ -z "$COMMBENCH" ]]; then
  bazel build -c opt //tools/commbench >/dev/null
  COMMBENCH="$(bazel info -c opt bazel-bin 2>/dev/null)/tools/commbench/commbench"
fi
[[ -x "$COMMBENCH" ]] || { echo "make_examples.sh: $COMMBENCH is not an executable" >&2; exit 2; }

scenario() {  # name, then the sweep's flags
  local name="$1"
  shift
  echo "== $name: commbench sweep $*"
  local start=$SECONDS
  "$COMMBENCH" sweep "$@" --out "$OUT/$name.json"
  "$COMMBENCH" report "$OUT/$name.json" -o "$OUT/$name.html"
  echo "   $((SECONDS - start)) s, $(stat -c %s "$OUT/$name.html") bytes"
}

# A, exactly as DESIGN §4 says the product must reproduce it out of the box.
scenario scenario_a --groups 1..8
# A with the confirming A/B runs added by the tool itself (once the CLI has --explain).
if "$COMMBENCH" sweep --help 2>/dev/null | grep -q -- '--explain'; then
  scenario scenario_a_explain --groups 1..8 --explain
else
  echo "== scenario_a_explain skipped: this commbench has no sweep --explain yet"
fi

# B needs NCCL on a GPU.
if "$COMMBENCH" env 2>/dev/null | grep -qi 'nccl'; then
  scenario scenario_b --backend nccl --groups 1..4 --h2d default-stream,own-stream --sync none,device
else
  echo "== scenario_b skipped: no NCCL/GPU on this host (run this script on a GPU host to add it)"
fi
