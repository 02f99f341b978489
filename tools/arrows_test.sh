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

# The CLI's rooms stay small (docs/architecture.md): each source in tools/commbench/ is flags, Setup, a call into
# lib/ and the exit codes, at most 150 lines; tests and test-only sources are exempt.
long=$(find "$root/tools/commbench" -maxdepth 1 \( -name '*.cc' -o -name '*.h' \) ! -name '*_test.cc' \
  ! -name 'test_*' -exec awk -v max=150 'FNR == 1 && n > max { print prev ": " n " lines" } { n = FNR; prev = FILENAME }
  END { if (n > max) print prev ": " n " lines" }' {} +)
if [[ -n $long ]]; then echo "FAIL: CLI sources over 150 lines (move the logic into lib/):"; echo "$long"; exit 1; fi
echo "every CLI source is at most 150 lines"
