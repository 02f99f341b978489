#!/bin/bash
# Fails when a tracked C++ file (*.cc, *.h) differs from .clang-format's formatting, naming each; prints the command
# that formats them. JSON and JavaScript are excluded by .clang-format itself. Run by tools/test.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (tools/test_setup.sh installs it)"; exit 1; }
total=$(git ls-files '*.cc' '*.h' | wc -l)
# --dry-run --Werror names every unformatted file as "FILE:LINE:COL: error: code should be clang-formatted".
mapfile -t bad < <(git ls-files -z '*.cc' '*.h' | xargs -0 -P 2 -n 25 clang-format --dry-run --Werror 2>&1 |
  sed -nE 's/^([^:]+):[0-9]+:[0-9]+: error: code should be clang-formatted.*/\1/p' | sort -u)
if ((${#bad[@]} > 0)); then
  echo "check_format: ${#bad[@]} of $total C++ files differ from .clang-format:"
  printf '  %s\n' "${bad[@]:0:20}"
  ((${#bad[@]} > 20)) && echo "  ... and $((${#bad[@]} - 20)) more"
  echo "check_format: format them with: git ls-files '*.cc' '*.h' | xargs clang-format -i"
  exit 1
fi
echo "check_format: all $total C++ files follow .clang-format"
