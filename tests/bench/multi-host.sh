#!/bin/bash
# tests/bench/multi-host.sh: the load from other hosts (issue 25), on one machine. Prints figures;
# asserts nothing. The hosts are network namespaces (tests/peers/netns.sh), each load host's
# daemon in a time namespace whose CLOCK_MONOTONIC is 500 s (host 1) and 2000 s (host 2) ahead
# of the coordinator's; the SUT (slicelab-sut.jar, /work?cpu_us=BENCH_CPU_US) runs on CPU 1 in
# the root namespace, the load hosts' injectors on CPU 0.
#  - the accurate open-loop rate with one load host and with two: the rates of BENCH_RATES are
#    climbed, one run each (uniform arrivals, BENCH_WARMUP_S of warmup, BENCH_MEASURE_S of
#    measure), until a run no longer keeps pace (achieved below 99% of its rate); printed are the
#    highest rate that kept pace and the highest that was accurate (kept pace, every host's lag
#    p99 at most 1 ms, no host saturated), each run with its late requests by cause. On one 2-CPU machine both load namespaces
#    share CPU 0 (and the machine's other work): the two-host figure says the split and merge
#    cost nothing, not that two hosts send twice as much; the scaling claim belongs on real hosts.
#  - the start skew between the two hosts: their first scheduled times in the merged timeline
#    (record flags bits 8-15 = host index + 1) less host 2's uniform phase, beside the error bounds
#    the run reports (metrics.load.hosts[].error_ns). Shifted by the measured offsets, the
#    merged times agree by construction; a time namespace's offset is exact, so the bench also
#    shifts them by the true offsets (500 s, 2000 s): that skew and each measured offset's own
#    error are what the bounds must cover.
# Usage: tests/bench/multi-host.sh [BUILD_DIR]   (default: build). Needs root.
# Environment: BENCH_RATES (default "100 200 500 1000 2000 4000"), BENCH_WARMUP_S (5), BENCH_MEASURE_S (5),
# BENCH_CPU_US (10).
set -u
cd "$(dirname "$0")/../.." || exit 1
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
. tests/lib.sh
. tests/peers/netns.sh

RATES=${BENCH_RATES:-100 200 500 1000 2000 4000}
WARMUP_S=${BENCH_WARMUP_S:-5}
MEASURE_S=${BENCH_MEASURE_S:-5}
CPU_US=${BENCH_CPU_US:-10}
JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
OFFSETS=(0 500 2000)

bench_teardown() { daemon_stop; rm -rf "$TEST_TMP"; }
export NETNS_AFTER_TEARDOWN=bench_teardown
netns_setup 2 || { echo "cannot make the namespaces"; exit 1; }
ME=$(netns_gateway)
ALLOW="10.231.$NETNS_K.*"
peers_share_token 2
for i in 1 2; do
        peer_start "$i" "${OFFSETS[$i]}" --peer-allow "$ALLOW" || { echo "no daemon on host $i"; exit 1; }
done
daemon_start --peer-url-template 'http://{host}:7878' --peer-allow "$ALLOW" \
        --peer-token-file "$TEST_TMP/peer.token" >/dev/null || { echo "the coordinator did not start"; exit 1; }

# experiment NAME RATE NHOSTS: one run, the rate split evenly over NHOSTS hosts.
experiment() {
        local hosts="{\"host\":\"$(netns_addr 1)\",\"cpus\":\"0\"}"
        [ "$3" -eq 2 ] && hosts="$hosts,{\"host\":\"$(netns_addr 2)\",\"cpus\":\"0\"}"
        definition --name "$1" --jvm --ready "{\"tcp\":\"$ME:$PORT\",\"timeout_s\":120}" \
                --load "{\"target\":\"http://$ME:$PORT/work?cpu_us=$CPU_US\",\"rate\":$2,\"arrival\":\"uniform\",\"connections\":16,\"warmup_s\":$WARMUP_S,\"measure_s\":$MEASURE_S,\"hosts\":[$hosts]}" \
                --cell one:1 -- java -Xmx128m -XX:+UseSerialGC -jar "$JAR" --port "$PORT" --bind "$ME"
}

# run_one RATE NHOSTS: prints the run's line and sets RUN, PACE and ACCURATE. Each run's SUT
# gets a port no SUT listens on, so that a previous one still going away is never the target.
run_one() {
        PORT=$(loopback_port)
        post_experiment "$(experiment "bench-$2-$1" "$1" "$2")"
        RUN=$(first_run "$EXP_ID")
        ACCURATE=no PACE=no
        if [ -z "$RUN" ] || [ "$RUN" = null ] || ! wait_for 300 run_finished "$RUN"; then
                echo "  $1/s: no run ($(jq -c . <<<"$BODY" 2>/dev/null | head -c 200))"
                return
        fi
        curl -s "$DAEMON_URL/v1/runs/$RUN" >"$TEST_TMP/run.json"
        jq -r --argjson rate "$1" '
                if .state != "succeeded" then "  \($rate)/s: \(.state) \(.reason): \(.message)"
                else .metrics.load.hosts as $h | ([$h[].achieved_rps] | add) as $a
                | ([$h[].lag_p99_us] | max) as $lag
                | ($a >= 0.99 * $rate and $lag <= 1000 and ([$h[].saturated] | any | not)) as $ok
                | "  \($rate)/s: achieved \($a * 10 | round / 10)/s, lag p99 (worst host) \($lag) us, late \([$h[].late // {} | to_entries[] | select(.value | type == "number") | "\(.key) \(.value)"] | join(", ")), saturated \([$h[].saturated]) -> \(if $ok then "accurate" else "not accurate" end)"
                end' "$TEST_TMP/run.json"
        [ "$(jq -r .state "$TEST_TMP/run.json")" = succeeded ] || return
        [ "$2" -eq 2 ] && cp "$TEST_TMP/run.json" "$TEST_TMP/skew-run.json" && SKEW_RUN=$RUN && SKEW_RATE=$1
        jq -e --argjson rate "$1" '([.metrics.load.hosts[].achieved_rps] | add) >= 0.99 * $rate' \
                "$TEST_TMP/run.json" >/dev/null || return
        PACE=yes
        jq -e '[.metrics.load.hosts[] | .lag_p99_us <= 1000 and .saturated == false] | all' "$TEST_TMP/run.json" >/dev/null &&
                ACCURATE=yes
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (other work shares them)"
declare -A BEST=([1]=none [2]=none) KEPT=([1]=none [2]=none)
for n in 1 2; do
        echo "open loop, $n load host(s), SUT /work?cpu_us=$CPU_US on CPU 1, injectors on CPU 0:"
        for rate in $RATES; do
                run_one "$rate" "$n"
                [ "$PACE" = yes ] || break
                KEPT[$n]=$rate
                [ "$ACCURATE" = yes ] && BEST[$n]=$rate
        done
done
echo "open-loop rate, one load host: accurate ${BEST[1]}/s, kept pace ${KEPT[1]}/s; two load hosts: accurate ${BEST[2]}/s, kept pace ${KEPT[2]}/s" \
        "(both namespaces share this machine's CPU 0: no scaling claim here)"

if [ -n "${SKEW_RUN:-}" ]; then
        python3 - "$DAEMON_STATE/runs/$SKEW_RUN/timeline.bin" "$TEST_TMP/skew-run.json" "$SKEW_RATE" "${OFFSETS[1]}" "${OFFSETS[2]}" <<'EOF'
import json, struct, sys
path, run_path, rate, true1, true2 = sys.argv[1:6]
hosts = json.load(open(run_path))["metrics"]["load"]["hosts"]
data = open(path, "rb").read()
first = {}
for off in range(32, len(data), 40):
    s, flags = struct.unpack_from("<q", data, off)[0], struct.unpack_from("<I", data, off + 36)[0]
    first.setdefault(flags >> 8 & 0xff, s)
phase = 1e9 / float(rate)  # host 2's uniform schedule is one period of the total rate after host 1's
measured = [int(h["offset_ns"]) for h in hosts]
truth = [int(true1) * 10**9, int(true2) * 10**9]
bounds = [int(h["error_ns"]) for h in hosts]
skew = first[2] - first[1] - phase
true_starts = [first[i + 1] + measured[i] - truth[i] for i in range(2)]
true_skew = true_starts[1] - true_starts[0] - phase
print("start skew at %s/s: %.0f ns in the merged timeline (measured offsets; 0 by construction), %.0f ns on the true offsets;"
      " offsets' own errors %s ns; error bounds %s ns (sum %d)"
      % (rate, skew, true_skew, [m - t for m, t in zip(measured, truth)], bounds, sum(bounds)))
EOF
else
        echo "start skew: no succeeded two-host run to read it from"
fi
netns_teardown
