#!/bin/bash
# interrupt.sh SIGNAL OUT CMD...: runs CMD with the test-only hook
# KILN_TEST_PAUSE_BEFORE_RENAME=basename(OUT), so the write of OUT stops
# with its temporary complete; then sends SIGNAL and prints the exit status
# and how many temporaries of OUT are left beside it.
sig=$1 out=$2
shift 2
dir=$(dirname "$out") name=$(basename "$out")
# The background job truncates $out.err only once it has started; remove
# the last run's file first so the wait below cannot read its stale line.
rm -f "$out.err"
KILN_TEST_PAUSE_BEFORE_RENAME=$name "$@" > /dev/null 2> "$out.err" &
pid=$!
for _ in $(seq 600); do
  grep -qs "paused before renaming" "$out.err" && break
  sleep 0.1
done
echo "paused: $(grep -c "paused before renaming" "$out.err")"
echo "temporaries before: $(ls -a "$dir" | grep -c "^\.$name\.tmp-$pid-")"
kill -s "$sig" "$pid"
wait "$pid"
echo "exit=$?"
echo "temporaries after: $(ls -a "$dir" | grep -c "^\.$name\.tmp-")"
