#!/bin/bash
# tests/bench/merge.sh: merging load hosts' timelines after a run spread over peers, 3 peers x
# 1 M records by default (goal: at most 0.5 s on the 2-core build machine): the inputs are
# synth-timeline's, in scheduled order as slicelab-inject writes them, read from the page cache
# (the coordinator merges files it has just fetched). Prints figures; asserts nothing.
# Usage: tests/bench/merge.sh [BUILD_DIR] [RECORDS] [PEERS]
set -eu
cd "$(dirname "$0")/../.."
BUILD=$(cd "${1:-build}" && pwd)
RECORDS=${2:-1000000}
PEERS=${3:-3}
ninja -C "$BUILD" tests/bench-merge tests/synth-timeline >/dev/null
. tests/bench/bench-lib.sh
bench_setup slicelab-bench-merge
inputs=()
for i in $(seq 1 "$PEERS"); do
        "$BUILD/tests/synth-timeline" "$dir/peer$i.bin" "$RECORDS" 10000 0 ordered
        inputs+=("$dir/peer$i.bin")
done
echo "$PEERS peers x $RECORDS records ($(du -sh "$dir" | cut -f1) of timelines), goal <= 0.5 s:"
"$BUILD/tests/bench-merge" "$dir/merged.bin" "${inputs[@]}"
