#!/bin/bash
# Registries are the only lists, enforced: runs tools/check_name_lists.py over the real source tree (found through
# this test's runfiles symlink to the checker), then checks that it catches each kind of hand-written list in a
# scratch tree with a registry of each kind.
set -euo pipefail
checker=$(readlink -f "$1")
root=$(dirname "$(dirname "$checker")")
python3 "$checker" "$root"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/lib/backend/a" "$scratch/lib/backend/b" "$scratch/lib/diagnose/rules" "$scratch/lib/core" \
  "$scratch/lib/traffic" "$scratch/tools/commbench"
printf 'const bool k = RegisterBackend("alpha", F);\n' >"$scratch/lib/backend/a/a.cc"
printf 'inline constexpr char kBackendName[] = "beta";\n' >"$scratch/lib/backend/b/b.h"
printf '  std::string name() const override { return "one_rule"; }\n' >"$scratch/lib/diagnose/rules/one.cc"
printf '  std::string name() const override { return "two_rule"; }\n' >"$scratch/lib/diagnose/rules/two.cc"
printf '    {Collective::kAllreduce, "allreduce"},\n    {Collective::kAllgather, "allgather"},\n' \
  >"$scratch/lib/core/types.cc"
python3 "$checker" "$scratch" >"$scratch/out" || { cat "$scratch/out"; echo "FAIL: a clean scratch tree failed"; exit 1; }

plant() {  # FILE TEXT EXPECTED: the checker must fail and print EXPECTED
  printf '%s\n' "$2" >"$scratch/$1"
  if python3 "$checker" "$scratch" >"$scratch/out"; then echo "FAIL: not caught: $2"; exit 1; fi
  grep -qF "$3" "$scratch/out" || { cat "$scratch/out"; echo "FAIL: expected '$3'"; exit 1; }
  rm "$scratch/$1"
  echo "caught: $2"
}
plant lib/traffic/t.cc '  if (r.backend == "alpha") return 1;' "lib/traffic/t.cc:1: compares with the backend name 'alpha'"
plant tools/commbench/f.cc '  app->add_option("--backends", b, "Backends: alpha, beta");' \
  'tools/commbench/f.cc:1: lists backends by hand: "Backends: alpha, beta"'
plant lib/traffic/l.cc 'const char* const kBackends[] = {"alpha", "beta"};' \
  'lib/traffic/l.cc:1: lists backends by hand: alpha, beta'
plant lib/traffic/r.cc $'  {"one_rule", 1},\n  {"two_rule", 2},' 'a table of rule names (one_rule, two_rule)'
plant lib/traffic/o.cc 'const char kOpNames[] = "allreduce, allgather";' 'lists collectives by hand'
# What may stay: one name as a default, a comment, a reasoned exception, a test.
printf '%s\n' 'std::string backend = "alpha";  // alpha == "beta" in a comment' \
  'if (b == "alpha") x();  // names-ok: a schema field' >"$scratch/lib/traffic/ok.cc"
printf 'EXPECT_EQ(b, "alpha"); // {"alpha", "beta"}\nauto l = {"alpha", "beta"};\n' >"$scratch/lib/traffic/ok_test.cc"
python3 "$checker" "$scratch" >"$scratch/out" || { cat "$scratch/out"; echo "FAIL: an allowed use was flagged"; exit 1; }
echo "allowed uses pass"
