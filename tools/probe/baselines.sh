# Gate baselines are one-file stores: kept across jobs, often in a restored cache. A link planted at the baseline
# (to a file, to a file that does not exist yet, to a directory, a device, a FIFO, another link) is refused before
# any repeat runs, for every mode that writes it, and its target is untouched. A baseline that is not a regular
# file is refused for every mode that reads it.
echo "# gate baselines"
echo precious >"$ROOT/victim"
ln -sfn "$ROOT/victim" "$ROOT/victim-link"
for target in "$ROOT/victim" "$ROOT/not-yet" "$IN/adir" /dev/null "$IN/fifo" "$ROOT/victim-link"; do
  for mode in --update-baseline --calibrate; do
    ln -sfn "$target" "$IN/planted.json"
    refuse "gate $mode, baseline a link to ${target##*/}" -m "planted.json" -- \
      gate --baseline "$IN/planted.json" "$mode" --groups 1 --sizes 400 --iters 5 --repeats 2
    [[ $(cat "$ROOT/victim") == precious && ! -e $ROOT/not-yet ]] || fail "gate $mode: link target written" "$(ls -la "$ROOT")"
  done
done
rm -f "$IN/planted.json" "$ROOT/victim-link"
for kind in fifo adir /dev/zero /dev/null; do
  path=$kind
  [[ $kind == /* ]] || path="$IN/$kind"
  for mode in "" --update-baseline --calibrate; do
    # shellcheck disable=SC2086
    refuse "gate ${mode:-(compare)} with the baseline ${kind##*/}" -t 10 -- gate --baseline "$path" $mode --groups 1 \
      --sizes 400 --iters 5 --repeats 2
  done
done
