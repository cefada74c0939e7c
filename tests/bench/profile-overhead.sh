#!/bin/bash
# tests/bench/profile-overhead.sh: what profile.cpu costs a real SUT: slicelab-sut.jar under the
# built-in injector at its maximum rate (closed loop, cpu_us work per request), the SUT on CPU 1
# and the injector on CPU 0, once without profiling and once with perf at 99 Hz. Prints both
# sides' throughput and p99 from scheduled with their 95% intervals and the ratio profiled /
# plain with its interval (GET /v1/compare: the report's statistics); asserts nothing.
# Goal (issue 28): the ratio's interval includes 1, or the figure says what profiling costs.
# The two sides are two cells of one experiment, twins but for "profile": false on the plain
# one, their iterations interleaved so that the machine's drift falls on both.
# Usage: tests/bench/profile-overhead.sh [BUILD_DIR]   (default: build)
#   BENCH_ITERATIONS (5), BENCH_MEASURE_S (10), BENCH_CPU_US (1000)
set -eu
cd "$(dirname "$0")/../.."
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
. tests/bench/bench-lib.sh
bench_need linux-perf
. tests/lib.sh
set +u
ITERATIONS=${BENCH_ITERATIONS:-5}
MEASURE_S=${BENCH_MEASURE_S:-10}
CPU_US=${BENCH_CPU_US:-1000}
JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
[ -f "$JAR" ] || { echo "profile-overhead: $JAR is missing (ninja -C $BUILD)" >&2; exit 1; }

daemon_start --cgroup-root "slicelab-bench$$" >/dev/null
PORT=$(loopback_port)
post_experiment "$(definition --name profile-overhead --iterations "$ITERATIONS" \
        --merge '{"order":"interleaved","profile":{"cpu":true,"hz":99}}' \
        --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
        --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=$CPU_US\",\"mode\":\"max\",\"connections\":4,\"warmup_s\":5,\"measure_s\":$MEASURE_S,\"cpus\":\"0\"}" \
        --cell '{"name":"plain","cpus":"1","memory_max":"512M","profile":false}' --cell '{"name":"profiled","cpus":"1","memory_max":"512M"}' \
        -- java -Xmx256m -XX:+UseParallelGC -jar "$JAR" --port "$PORT")"
[ "$HTTP_STATUS" = 201 ] || { echo "profile-overhead: experiment refused: $BODY" >&2; exit 1; }
EXP=$EXP_ID
wait_for 7200 experiment_finished "$EXP" || { echo "profile-overhead: $EXP did not finish" >&2; exit 1; }
api GET "/v1/compare?a=$EXP:plain&b=$EXP:profiled"
COMPARE=$BODY
samples=$(curl -s "$DAEMON_URL/v1/experiments/$EXP/runs" | jq -r '.runs[] | select(.cell == "profiled") | .id' | while read -r run; do
        curl -s "$DAEMON_URL/v1/runs/$run" | jq -r '.metrics.profile.samples // 0'
done | awk '{ s += $1; n++ } END { printf "%d samples in %d runs", s, n }')
finish >/dev/null || true

echo "slicelab-sut.jar, /work?cpu_us=$CPU_US at max rate (4 connections), SUT on CPU 1, $ITERATIONS iterations of ${MEASURE_S} s a side"
echo "profiled side: perf -F 99 -g, $samples"
jq -r '.cells[0].metrics as $m |
  def iv: if .ci95 then "\(.mean | . * 100 | round / 100) [\(.ci95.low | . * 100 | round / 100), \(.ci95.high | . * 100 | round / 100)]" else "\(.mean)" end;
  def ratio: "\(.ratio | . * 1000 | round / 1000) [\(.ci95.low | . * 1000 | round / 1000), \(.ci95.high | . * 1000 | round / 1000)]" +
    (if .ci95.low <= 1 and 1 <= .ci95.high then " (includes 1)" else " (excludes 1)" end);
  ["throughput_rps", "latency_us.scheduled.p99"][] as $k |
  "\($k):\n  plain    \($m[$k].a | iv)\n  profiled \($m[$k].b | iv)\n  profiled / plain \($m[$k].ratio | ratio)"' <<<"$COMPARE"
