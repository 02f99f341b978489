#!/bin/bash
# usage: bench/peak_memory.sh COMMBENCH_ARGV...: runs one commbench command (its output to /dev/null, stderr to
# $TMPDIR/peakmon.err) and prints the peak resident memory (VmHWM, polled every 0.2 s) of the driver and of the
# largest rank process.
"$@" >/dev/null 2>"${TMPDIR:-/tmp}/peakmon.err" &
driver=$!
declare -A hwm
while kill -0 $driver 2>/dev/null; do
  for p in $driver $(pgrep -P $driver) ; do
    v=$(awk '/VmHWM/{print $2}' /proc/$p/status 2>/dev/null)
    [[ -n "$v" ]] && (( v > ${hwm[$p]:-0} )) && hwm[$p]=$v
  done
  sleep 0.2
done
wait $driver; rc=$?
w=0; for p in "${!hwm[@]}"; do [[ $p != $driver ]] && (( hwm[$p] > w )) && w=${hwm[$p]}; done
echo "rc=$rc driver_peak_MB=$(( ${hwm[$driver]:-0} / 1024 )) worker_peak_MB=$(( w / 1024 ))"
