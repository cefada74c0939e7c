#!/bin/bash
# tests/bench/results.sh: how fast results move. Prints figures; asserts nothing.
#  - ingest: a 1.44 M-record timeline (the seed's 6000/s x 240 s) loaded, sorted, measured and
#    stored at collect (records/s, from the daemon's own log line)
#  - CSV streaming of all of it (records/s and MB/s)
#  - timeline page latency, 10k records per page (p50/p99 over 200 pages)
#  - report latency for an experiment of 30 runs (p50/p99 over 100 requests)
# Goals on the 2-core build machine: ingest >= 1 M records/s, stream >= 2 M records/s,
# page p99 <= 20 ms. Usage: tests/bench/results.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/../.."
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
. tests/lib.sh
set +u

N=1440000
daemon_start --cgroup-root "slicelab-bench$$" >/dev/null
post_experiment "$(definition --name bench \
        --load "{\"command\":[\"$BUILD/tests/synth-timeline\",\"t.bin\",\"$N\",\"6000\",\"0\"],\"timeline\":\"t.bin\"}" -- /bin/sleep 600)"
RUN=$(first_run "$EXP_ID")
wait_for 600 run_finished "$RUN"
echo "ingest:    $(grep -o "timeline of $N records .*" "$TEST_TMP/daemon.log" | tail -1)"

# Streaming: best of three.
best=999
for _ in 1 2 3; do
        t=$(curl -s -H 'Accept: text/csv' -o "$TEST_TMP/t.csv" -w '%{time_total}' "$DAEMON_URL/v1/runs/$RUN/timeline")
        best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
done
bytes=$(stat -c %s "$TEST_TMP/t.csv")
awk -v t="$best" -v n="$N" -v b="$bytes" 'BEGIN { printf "stream:    %d records as CSV in %.3f s: %.2f M records/s, %.0f MB/s\n", n, t, n / t / 1e6, b / t / 1e6 }'

percentiles() { sort -n | awk '{ v[NR] = $1 } END { p50 = v[int(NR * 0.5 + 0.999)]; p99 = v[int(NR * 0.99 + 0.999)]; printf "p50 %.1f ms, p99 %.1f ms (n=%d)\n", p50 * 1000, p99 * 1000, NR }'; }
for i in $(seq 0 199); do
        curl -s -o /dev/null -w '%{time_total}\n' "$DAEMON_URL/v1/runs/$RUN/timeline?limit=10000&cursor=$(printf %x $((i * 7000)))"
done | percentiles | sed 's/^/page 10k: /'

post_experiment "$(definition --name report30 --iterations 10 --cell a --cell b --cell c -- /bin/echo '{"ops_per_s": 5}')"
last=$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID/runs" | jq -r '.runs[-1].id')
wait_for 300 run_finished "$last"
for _ in $(seq 1 100); do
        curl -s -o /dev/null -w '%{time_total}\n' "$DAEMON_URL/v1/experiments/$EXP_ID/report?baseline=a"
done | percentiles | sed 's/^/report 30 runs: /'
finish >/dev/null || true
