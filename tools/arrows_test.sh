#!/bin/bash
# The layer rule, enforced: runs tools/check_arrows.py over the real source tree (found through this test's
# runfiles symlink to tools/arrows.txt), then checks that the checker itself catches a planted upward include.
set -euo pipefail
list=$(readlink -f "$1")
root=$(dirname "$(dirname "$list")")
checker="$root/tools/check_arrows.py"
python3 "$checker" "$root"

# The checker must fail on an upward arrow: a copy of the list and one planted file in a scratch tree.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/tools" "$scratch/lib/core" "$scratch/lib/report"
cp "$list" "$scratch/tools/arrows.txt"
printf '#include "lib/report/html.h"\n' > "$scratch/lib/core/planted.h"
if python3 "$checker" "$scratch" > "$scratch/out"; then
  echo "FAIL: an include of lib/report from lib/core was not caught"; exit 1
fi
grep -q "lib/core/planted.h:1: core -> report is not an allowed arrow" "$scratch/out" || { cat "$scratch/out"; exit 1; }
echo "a planted upward include is caught"
