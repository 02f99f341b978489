# Gate baselines are one-file stores: kept across jobs, often in a restored cache. A link planted at the baseline
# (to a file, to a file that does not exist yet, to a directory) is refused before any repeat runs, for every mode
# that writes it, and its target is untouched.
echo "# gate baselines"
echo precious >"$ROOT/victim"
for target in "$ROOT/victim" "$ROOT/not-yet" "$IN/adir"; do
  for mode in --update-baseline --calibrate; do
    ln -sfn "$target" "$IN/planted.json"
    refuse "gate $mode, baseline a link to ${target##*/}" -m "planted.json" -- \
      gate --baseline "$IN/planted.json" "$mode" --groups 1 --sizes 400 --iters 5 --repeats 2
    [[ $(cat "$ROOT/victim") == precious && ! -e $ROOT/not-yet ]] || fail "gate $mode: link target written" "$(ls -la "$ROOT")"
  done
done
rm -f "$IN/planted.json"
