#!/bin/bash
# A whole run survives what the host and the user hand it (issue 47): bytes that are not UTF-8 in a variable and in
# the --out name are recorded escaped (\xNN), the result is valid JSON, exit 0, no temporary file left; a Redis
# password with a space (quoted, or split by the shell) never reaches the result, the HTML report, the samples,
# stdout or stderr. Prints `N passed, M failed` last.
set -uo pipefail
BIN="$(realpath "$1")"
passed=0
failed=0
check() {  # check NAME COMMAND...: one counted check
  local name="$1"
  shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name"; fi
}
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/hostile-bytes.XXXXXX")"
trap 'kill "${redis_pid:-}" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 1

# 1. NCCL_DEBUG=$'\xff' and a Latin-1 output name ("café.json" in ISO-8859-1), with an HTML report.
out=$'caf\xe9.json'
NCCL_DEBUG=$'\xff' NCCL_SOCKET_IFNAME=$'eth\xc3' "$BIN" sweep --no-explain --backends native --groups 1..2 --sizes 4K --iters 30 \
  --out "$T/$out" --html "$T/r.html" >stdout1 2>stderr1
rc=$?
check "sweep exit 0 (got $rc): $(tail -3 stderr1)" test "$rc" -eq 0
check "result written" test -s "$T/$out"
check "valid JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1], "rb"))' "$T/$out"
py() { python3 -c "import json, sys; d = json.load(open(sys.argv[1], 'rb')); $1" "$T/$out"; }
check "NCCL_DEBUG escaped" py 'assert d["environment"]["variables"]["NCCL_DEBUG"] == "\\xff", d["environment"]["variables"]'
check "truncated sequence escaped" py 'assert d["environment"]["variables"]["NCCL_SOCKET_IFNAME"] == "eth\\xc3"'
check "command records the name escaped" py 'assert "caf\\xe9.json" in d["command"], d["command"]'
check "samples sidecar named" py 'assert d["points"][0]["samples_us"]["file"] == "caf\\xe9.samples.jsonl"'
check "no temporary files" test -z "$(find "$T" -name '*.tmp-*')"
check "HTML written" test -s "$T/r.html"
"$BIN" report "$T/$out" -o "$T/again.html" >/dev/null 2>stderr2
rc=$?
check "report reads it back (exit $rc): $(cat stderr2)" test "$rc" -eq 0

# 2. A Redis store whose password holds a space: two ranks started by hand, quoted; then the shell's split.
if command -v redis-server >/dev/null; then
  port=$((20000 + RANDOM % 20000))
  pw1='Zq7xq'
  pw2='s3cr3tWord'
  redis-server --port "$port" --bind 127.0.0.1 --requirepass "$pw1 $pw2" --save '' --appendonly no \
    >redis.log 2>&1 &
  redis_pid=$!
  for _ in $(seq 50); do
    redis-cli -p "$port" -a "$pw1 $pw2" --no-auth-warning ping 2>/dev/null | grep -q PONG && break
    sleep 0.1
  done
  pids=()
  for r in 1 0; do
    timeout 120 "$BIN" sweep --backends native --groups 1 --sizes 4K --iters 20 --out "$T/redis.json" \
      --html "$T/redis.html" --rendezvous "redis://:$pw1 $pw2@127.0.0.1:$port" --world 2 --rank "$r" \
      --run-id "t$$" >"stdout_r$r" 2>"stderr_r$r" &
    pids+=($!)
  done
  rcs=""
  for p in "${pids[@]}"; do
    wait "$p"
    rcs+="$? "
  done
  check "redis sweep exit 0 0 (got $rcs): $(tail -2 stderr_r0)" test "$rcs" = "0 0 "
  check "redis result valid JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/redis.json"
  check "command names the store, masked" grep -q "redis://\*\*\*@127.0.0.1:$port" "$T/redis.json"
  for f in redis.json redis.samples.jsonl redis.html stdout_r0 stdout_r1 stderr_r0 stderr_r1; do
    check "no password in $f" bash -c "! grep -aq -e '$pw1' -e '$pw2' '$T/$f'"
  done
  # The shell split the value: the parser refuses the stray piece, and its error line shows none of the password.
  "$BIN" sweep --backends native --out "$T/split.json" --rendezvous "redis://:$pw1" "$pw2@127.0.0.1:$port" \
    --world 2 --rank 0 --run-id x >stdout_split 2>stderr_split
  rc=$?
  check "split value: exit 2 (got $rc)" test "$rc" -eq 2
  check "split value: one error line" test "$(grep -c '^commbench: error: ' stderr_split)" -eq 1
  check "split value: no password in stderr: $(cat stderr_split)" bash -c "! grep -aq -e '$pw1' -e '$pw2' stderr_split"
  # Scheme-less and mistyped store URLs are refused without the password.
  for url in ":$pw2@127.0.0.1:$port" "u:$pw2@h" "rediss://:$pw1 $pw2@h" "redis://:$pw1 $pw2@h:99999"; do
    "$BIN" sweep --backends native --out "$T/bad.json" --rendezvous "$url" --world 2 --rank 0 --run-id x \
      >/dev/null 2>stderr_bad
    rc=$?
    check "'$url': exit 2 (got $rc)" test "$rc" -eq 2
    check "'$url': no password: $(cat stderr_bad)" bash -c "! grep -aq -e '$pw1' -e '$pw2' stderr_bad"
  done
else
  echo "SKIP: no redis-server"
fi

# 3. A 50 KB and a 120 KB argument: every subcommand used to overflow the stack in the redaction regex.
big="$(head -c 51200 /dev/zero | tr '\0' 'a')"
"$BIN" env "$big" >/dev/null 2>stderr_big
rc=$?
check "50 KB argument to env: exit 2 (got $rc)" test "$rc" -eq 2
"$BIN" sweep --backends "redis://:$big@h" --out "$T/big.json" >/dev/null 2>stderr_big
rc=$?
check "50 KB URL-like value: exit 2 (got $rc)" test "$rc" -eq 2
# Linux takes one argument of at most 128 KiB (MAX_ARG_STRLEN); lib/core/redact_test.cc runs 5 MB ones.
huge="redis://:$(head -c 120000 /dev/zero | tr '\0' 'p')"
"$BIN" sweep --backends native --out "$T/huge.json" --rendezvous "$huge" --world 2 --rank 0 --run-id x \
  >/dev/null 2>stderr_huge
rc=$?
check "120 KB store URL: exit 2 (got $rc)" test "$rc" -eq 2
check "120 KB store URL: password not echoed" bash -c "! grep -aq pppppppp stderr_huge"

echo "$passed passed, $failed failed"
exit $((failed > 0))
