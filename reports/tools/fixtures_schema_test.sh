#!/bin/bash
# The acceptance fixtures against reports/result.schema.json: the browser test's acceptance pages must show what
# `commbench accept` writes (lib/accept/outputs.cc), so a change to $defs/acceptance has to reach them too.
# usage: fixtures_schema_test.sh VALIDATE_SCHEMA.py SCHEMA RESULT...
set -euo pipefail
validator="$1" schema="$2"
shift 2
python3 "$validator" "$schema" "$@"
echo "$# fixture(s) follow the schema"
