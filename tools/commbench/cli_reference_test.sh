#!/bin/bash
# docs/cli.md is what `commbench help --markdown` prints: a flag added, renamed or re-described without
# regenerating it fails here, with the diff and the command that regenerates it.
set -uo pipefail
commbench=$1
committed=$2
printed=$(mktemp)
trap 'rm -f "$printed"' EXIT
if ! "$commbench" help --markdown >"$printed"; then
  echo "FAIL: commbench help --markdown exited $?" >&2
  exit 1
fi
if ! diff -u "$committed" "$printed"; then
  echo "FAIL: docs/cli.md differs from 'commbench help --markdown' (above: - committed, + printed)." >&2
  echo "Regenerate it: bazel run //tools/commbench -- help --markdown > docs/cli.md" >&2
  exit 1
fi
# `commbench help` alone is the top-level help.
if ! "$commbench" help | grep -q '^Usage: commbench \[OPTIONS\] SUBCOMMAND'; then
  echo "FAIL: commbench help does not print the top-level help" >&2
  exit 1
fi
echo PASS
