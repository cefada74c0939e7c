#!/bin/bash
# tests/bench/sequential.sh: what a stop rule saves (issue 37) on the demo's seed cells, scaled to
# this host as contrib/demo.sh scales them (a JVM on the last CPU vs all CPUs at a quota of half,
# with and without container support; short phases, closed-loop load). First the demo's fixed 3
# iterations: the noise finding's count of iterations per cell a 3% decision would need. Then
# the same cells under `iterations: {"min": 3, "max": MAX}` with a stop rule on p99 and throughput
# at 5%: the rounds it used, its decisions, and the wall time of each. Prints figures; asserts
# nothing. Usage: tests/bench/sequential.sh [BUILD_DIR] [MAX]   (default: build 12)
set -eu
cd "$(dirname "$0")/../.."
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
MAX=${2:-12}
. tests/bench/bench-lib.sh
. tests/lib.sh
set +u
JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
daemon_start --cgroup-root "slicelab-bench$$" >/dev/null
N=$(nproc)
LOAD="0"; A="$((N - 1))"; B="0-$((N - 1))"; Q=$(awk -v n="$N" 'BEGIN { printf "%.1f", n / 2 }')
PORT=$(loopback_port)
base=$(jq -c --arg jar "$JAR" --arg load "$LOAD" --arg a "$A" --arg b "$B" --argjson q "$Q" --arg port "$PORT" '
        .sut.command |= map(if endswith("slicelab-sut.jar") then $jar else . end)
        | .sut.command[-1] = $port | .sut.ready.http = "http://127.0.0.1:\($port)/health"
        | .load.target = "http://127.0.0.1:\($port)/work?cpu_us=200&alloc_kb=64"
        | .load.cpus = $load | .cells[0].cpus = $a | .cells[1].cpus = $b | .cells[1].cpu_quota = $q
        | .cells[2].cpus = $b | .cells[2].cpu_quota = $q
        | .load.warmup_s = 5 | .load.measure_s = 10 | .load.mode = "max" | del(.load.rate) | del(.load.arrival)
        | .load.connections = 8 | .sut.command[1] = "-Xms256m" | .sut.command[2] = "-Xmx256m" | .sut.memory_max = "1G"
        | del(.host) | del(.description)' contrib/examples/quota-vs-cpuset.json)

# timed DEFINITION: runs it to its end; sets EXP_ID and SECONDS_TAKEN.
timed() {
        local start=$SECONDS
        post_experiment "$1"
        wait_for 7200 experiment_finished "$EXP_ID" || { echo "experiment $EXP_ID did not finish"; exit 1; }
        SECONDS_TAKEN=$((SECONDS - start))
}

timed "$(jq -c '.iterations = 3' <<<"$base")"
echo "fixed, 3 iterations: $SECONDS_TAKEN s (load average $(cut -d' ' -f1 /proc/loadavg))"
curl -s "$DAEMON_URL/v1/experiments/$EXP_ID/findings" |
        jq -r '.findings[] | select(.kind == "noise" or .kind == "difference") | "  \(.kind): \(.claim | .[0:260])"'

timed "$(jq -c --argjson max "$MAX" '.iterations = {"min": 3, "max": $max}
        | .stop = {"metrics": ["latency_us.scheduled.p99", "throughput_rps"], "difference_pct": 5}' <<<"$base")"
seq=$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID/report" | jq -c .sequential)
echo "stop rule, 3 to $MAX rounds: $(jq -r '"\(.state) after \(.rounds) rounds"' <<<"$seq"), $SECONDS_TAKEN s (load average $(cut -d' ' -f1 /proc/loadavg))"
jq -r '.comparisons[] | "  \(.cell) vs \(.baseline) \(.metric): \(.decision)\(if .round then " at round \(.round)" else "" end), ratio \(.ratio // "-"), interval \(if .interval then "\(.interval.low)-\(.interval.high)" else "none yet" end)"' <<<"$seq"
daemon_stop
rm -rf "$TEST_TMP"
