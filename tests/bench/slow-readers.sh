#!/bin/bash
# tests/bench/slow-readers.sh: what 64 slow CSV readers (curl --limit-rate 1k, from 127.0.0.2)
# cost other clients: the time of GET /v1/health, a report, a POST and a JSON timeline page
# (median of 20 each) without and with the readers, and how long SIGTERM takes with them
# connected. Prints the figures; asserts nothing (tests/chaos/slow-readers.sh checks behaviour).
# Usage: tests/bench/slow-readers.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/../.."
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
. tests/lib.sh
set +u
READERS=64

daemon_start --cgroup-root "slicelab-bench$$" >/dev/null
post_experiment "$(definition --name slow \
        --load "{\"command\":[\"$BUILD/tests/synth-timeline\",\"s.bin\",\"600000\",\"6000\",\"1000\"],\"timeline\":\"s.bin\"}" \
        -- /bin/sleep 600)"
RUN=$(first_run "$EXP_ID")
wait_for 300 run_finished "$RUN"

# median_ms CURL_ARGS...: the median of 20 requests' total times, in ms.
median_ms() {
        for _ in $(seq 20); do curl -s -m 60 -o /dev/null -w '%{time_total}\n' "$@"; done |
                sort -n | sed -n 10p | awk '{ printf "%.1f", $1 * 1000 }'
}
figures() {
        printf '%-10s health %6s ms  report %6s ms  POST %6s ms  page %6s ms\n' "$1" \
                "$(median_ms "$DAEMON_URL/v1/health")" "$(median_ms "$DAEMON_URL/v1/experiments/$EXP_ID/report")" \
                "$(median_ms -H "Authorization: Bearer $DAEMON_TOKEN" -H 'Content-Type: application/json' \
                        --data "$(definition --name b -- /bin/true)" "$DAEMON_URL/v1/experiments")" \
                "$(median_ms "$DAEMON_URL/v1/runs/$RUN/timeline?limit=1000")"
}
figures idle
pids=()
for i in $(seq $READERS); do
        curl -s --interface 127.0.0.2 --limit-rate 1k -H 'Accept: text/csv' -o "$TEST_TMP/r$i" "$DAEMON_URL/v1/runs/$RUN/timeline" &
        pids+=($!)
done
all() { local i; for i in $(seq $READERS); do [ -s "$TEST_TMP/r$i" ] || return 1; done; }
wait_for 120 all
figures "$READERS readers"
start=$(date +%s%N)
kill -TERM "$DAEMON_PID"
daemon_wait_event EXIT 120
echo "SIGTERM to exit with $READERS readers connected: $(( ($(date +%s%N) - start) / 1000000 )) ms ($DAEMON_LAST_EVENT)"
wait "$NL_PID" 2>/dev/null
DAEMON_PID=
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
rm -rf "$TEST_TMP"
