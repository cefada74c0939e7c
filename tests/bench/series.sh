#!/bin/bash
# tests/bench/series.sh: GET /v1/series end to end on a real daemon over a store of N finished
# experiments (default 1000) of one label, 3 runs each, whose throughput moves by +5%, -10% and
# +10% at N/4, N/2 and 3N/4 (2% CoV noise per run): the change points found and the time of the
# request (goal: at most 200 ms for 1000 experiments), best and median of 5, with the defaults.
# Prints figures; asserts nothing. Usage: tests/bench/series.sh [BUILD_DIR] [N]
set -eu
cd "$(dirname "$0")/../.."
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
N=${2:-1000}
ninja -C "$SLICELAB_BUILD" tests/bench-series-fill slicelabd tests/notify-listen >/dev/null
. tests/lib.sh
set +u
DAEMON_STATE=$TEST_TMP/state
mkdir -p "$DAEMON_STATE"
t0=$(date +%s.%N)
"$BUILD/tests/bench-series-fill" "$DAEMON_STATE/slicelab.db" "$N"
printf 'store filled: %d experiments in %.1f s\n' "$N" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
daemon_start --cgroup-root "slicelab-bench$$" >/dev/null
URL="$DAEMON_URL/v1/series?label=app=bench&cell=B&metric=throughput_rps"
curl -s "$URL" | jq -r '"experiments: \(.experiments | length); change points (alpha \(.parameters.alpha), min segment \(.parameters.min_segment)): " + ([.change_points[] | "after #\(.before.index) \(.shift * 100 | round)%"] | join(", "))'
times=$(for i in 1 2 3 4 5; do curl -s -o /dev/null -w '%{time_total}\n' "$URL"; done | sort -n)
printf 'GET /v1/series over %d experiments: best %.0f ms, median %.0f ms (goal: at most 200 ms for 1000)\n' "$N" \
        "$(echo "$times" | head -1 | awk '{ print $1 * 1000 }')" "$(echo "$times" | sed -n 3p | awk '{ print $1 * 1000 }')"
finish >/dev/null || true
