#!/bin/bash
# Regenerates the example reports for the reference scenarios (docs/design.md §4) with the real CLI:
#   A  Gloo pair groups on CPU, G = 1..8 (the user report: 0.39 s at G=1, 2.07 s at G=8 on a 48-core Xeon),
#      as a user runs it, and with --explain so that the A/B points that confirm the cause are in the sweep;
#   B  NCCL per-parameter allreduce with the H2D copy on the default stream vs its own stream (GPU hosts only;
#      skipped with a note elsewhere);
#   cpu_quota  native pairs, G = 1..4, 4 and 64 KiB, in a cgroup of half a CPU (a container's CPU limit; root only).
# Each scenario writes reports/examples/<name>.html, the committed report. It embeds the results (all but the raw
# per-iteration samples); the full <name>.json stays beside it, git-ignored (several MB with samples).
#
# usage: reports/make_examples.sh [--rerender] [COMMBENCH]
#   COMMBENCH    the binary (default: builds //tools/commbench -c opt and uses that)
#   --rerender   only re-render the reports from the existing reports/examples/*.json (after a page change)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=reports/examples
mkdir -p "$OUT"

RERENDER=0
if [[ "${1:-}" == "--rerender" ]]; then
  RERENDER=1
  shift
fi
COMMBENCH="${1:-}"
if [[ -z "$COMMBENCH" ]]; then
  bazel build -c opt //tools/commbench >/dev/null
  COMMBENCH="$(bazel info -c opt bazel-bin 2>/dev/null)/tools/commbench/commbench"
fi
[[ -x "$COMMBENCH" ]] || { echo "make_examples.sh: $COMMBENCH is not an executable" >&2; exit 2; }

scenario() {  # name, then the sweep's flags
  local name="$1"
  shift
  if [[ $RERENDER -eq 1 ]]; then
    [[ -f "$OUT/$name.json" ]] || { echo "== $name: no $OUT/$name.json to re-render"; return 0; }
    "$COMMBENCH" report "$OUT/$name.json" -o "$OUT/$name.html"
    return 0
  fi
  echo "== $name: commbench sweep $*"
  local start=$SECONDS
  "$COMMBENCH" sweep "$@" --out "$OUT/$name.json"
  "$COMMBENCH" report "$OUT/$name.json" -o "$OUT/$name.html"
  echo "   $((SECONDS - start)) s, $(stat -c %s "$OUT/$name.html") bytes"
}

# A, exactly as docs/design.md §4 says the product must reproduce it out of the box.
scenario scenario_a --groups 1..8
# A with the confirming A/B runs added by the tool itself (once the CLI has --explain).
if "$COMMBENCH" sweep --help 2>/dev/null | grep -q -- '--explain'; then
  scenario scenario_a_explain --groups 1..8 --explain
else
  echo "== scenario_a_explain skipped: this commbench has no sweep --explain yet"
fi

# A container's CPU limit: the same kind of sweep in a cgroup of half a CPU (needs root and cgroup v1's cpu
# hierarchy, as this repository's VM has; the cgroup is removed after).
CG=/sys/fs/cgroup/cpu/commbench-example-$$
if [[ $RERENDER -eq 1 ]]; then
  scenario cpu_quota
elif [[ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]] && mkdir "$CG" 2>/dev/null; then
  echo 50000 >"$CG/cpu.cfs_quota_us"
  (echo "$BASHPID" >"$CG/cgroup.procs" && scenario cpu_quota --backends native --groups 1..4 --sizes 4K,64K --explain)
  rmdir "$CG"
else
  echo "== cpu_quota skipped: no writable cgroup v1 cpu hierarchy here (needs root)"
fi

# B needs NCCL on a GPU.
# One GPU: groups of one rank each (docs/design.md §3); the input copy on the legacy default stream vs a dedicated one.
if "$COMMBENCH" env 2>/dev/null | grep -Eq '^  nccl .* available$'; then
  scenario scenario_b --backends nccl --group-size 1 --groups 1..4 --sizes 4K,4M,64M \
    --stream legacy-default,dedicated --h2d pinned --explain
else
  echo "== scenario_b skipped: no NCCL/GPU on this host (run this script on a GPU host to add it)"
fi
