# Arguments, environment, host-side names and store URLs: bytes that are not UTF-8 (or are controls, bidi
# overrides, a newline) in a recorded variable or an output name never lose the run (exit 0, valid JSON with the
# bytes escaped, no temporary file); a 50 KB argument is one error line in every subcommand; a store password
# never shows, whatever its characters or where the shell split it.
echo "# arguments, environment, store URLs"
hostile=($'\xff' $'\xc3' $'\xed\xa0\x80' $'\xf8\x88\x80\x80\x80' $'a\nb' $'\x1b[31mred' $'\xe2\x80\xaeevil' $'\x01\x7f')
labels=(ff truncated surrogate five-byte newline escape bidi controls)
run_sweep() {  # NAME OUT [VAR=VALUE]: a tiny sweep that must end with a valid result
  local name=$1 out=$2 w="$ROOT/w/arg"
  shift 2
  rm -rf "$w" && mkdir -p "$w"
  (cd "$w" && env "$@" timeout 60 "$CB" sweep --no-explain --no-html --backends native --groups 1 --sizes 400 --iters 5 --warmup 0 -q \
    --out "$out" >"$ROOT/out" 2>"$ROOT/err")
  local rc=$? why=""
  if [[ $rc != 0 ]]; then why="exit $rc: $(tail -n 2 "$ROOT/err")"
  elif ! python3 -c 'import json,sys; json.load(open(sys.argv[1], "rb"))' "$w/$out" 2>/dev/null; then why="no valid result"
  elif [[ -n $(find "$w" -name '*.tmp-*') ]]; then why="left $(find "$w" -name '*.tmp-*' | head -n 1)"
  elif grep -qaP '[\x00-\x08\x0b-\x1f]' "$w/$out"; then why="a control byte reached the result raw"
  fi
  rm -rf "$w"
  if [[ -z $why ]]; then ok "$name"; else fail "$name" "$why"; fi
}
for i in "${!hostile[@]}"; do
  for var in NCCL_DEBUG GLOO_SOCKET_IFNAME OMP_NUM_THREADS; do
    run_sweep "sweep with $var ${labels[i]}" r.json "$var=${hostile[i]}"
  done
  [[ ${labels[i]} == newline ]] && continue  # (a newline in a file name is legal, but the shell's $out below)
  run_sweep "sweep --out named ${labels[i]}" "r${hostile[i]}.json" COMMBENCH_PROBE=1
done
long=$(head -c 50000 /dev/zero | tr '\0' a)
for args in "sweep --groups" "sweep --sizes" "sweep --rendezvous" "gate --baseline" "compare $IN/base.json" \
  "report" "export" "history add" "history check" "accept --profile" "traffic --params"; do
  # shellcheck disable=SC2086
  refuse "50 KB argument: $args" -t 20 -- $args "$long"
done
# A store that cannot be reached is exit 3, a malformed one exit 2: either way one line, and the password nowhere
# (stderr, stdout, files), nor the accepted forms masked into nonsense.
PWS=("pw with space" "p'q\"r" "a@b:c/d" "ünï©ødé" "x%40y" $'nl\nline')
for pw in "${PWS[@]}"; do
  for url in "redis://:$pw@127.0.0.1:1" "redis://user:$pw@127.0.0.1:1" ":$pw@127.0.0.1:1" "user:$pw@127.0.0.1:1" \
    "rediss://:$pw@[::1]:1/0" "redis//:$pw@127.0.0.1:1"; do
    name="store URL ${url:0:8}... password '$(printf '%q' "$pw")'"
    w="$ROOT/w/url" && rm -rf "$w" && mkdir -p "$w"
    (cd "$w" && timeout 30 "$CB" sweep --groups 1 --sizes 400 --iters 5 --rendezvous "$url" --rank 0 --world 2 \
      --run-id probe --timeout 2 >"$ROOT/out" 2>"$ROOT/err")
    rc=$? why=""
    if [[ $rc != 2 && $rc != 3 ]]; then why="exit $rc: $(head -n 2 "$ROOT/err")"
    elif [[ $(grep -c '' "$ROOT/err") != 1 ]]; then why="$(grep -c '' "$ROOT/err") lines on stderr: $(head -n 3 "$ROOT/err")"
    else
      for piece in ${pw}; do  # every word of it (a password split by the shell shows no half either)
        [[ ${#piece} -ge 3 ]] && grep -rqaF -- "$piece" "$ROOT/out" "$ROOT/err" "$w" && why="'$piece' shown: $(head -n 1 "$ROOT/err")"
      done
      grep -q 'redis://\*\*\*@\]' "$ROOT/err" && why="the accepted forms were masked: $(head -n 1 "$ROOT/err")"
    fi
    rm -rf "$w"
    if [[ -z $why ]]; then ok "$name"; else fail "$name" "$why"; fi
  done
done
