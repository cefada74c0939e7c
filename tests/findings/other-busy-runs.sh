#!/bin/bash
# other-busy-runs.sh: cpu.other_busy_share (other work on a cell's CPUs during measure) from real
# runs of slicelab-sut.jar on CPU 1 at 1500 requests/s x 200 us, the load on CPU 0. At that rate
# the requests come 6 per 4 ms tick (HZ=250): /proc/stat's busy fields, tick samples, read such a
# quiet cell as 46% other work or exactly 0 by the phase alone (issue 27), so (a) quiet runs
# read near 0; (b) with a loop of this test's pinned to CPU 1 (taskset), spinning 3 ms in 10, the
# figure is near that loop's own share of the CPU (its /proc/PID/schedstat run time over the same
# wall time), and the interference finding names the cell.
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
daemon_start --cgroup-root "slicelab-ob$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port)
# This script's own polling (curl, jq) stays off the cell's CPU: it is not the work measured.
taskset -cp 0 $$ >/dev/null
SPIN_PID=
cleanup_spin() { [ -n "$SPIN_PID" ] && kill "$SPIN_PID" 2>/dev/null && wait "$SPIN_PID" 2>/dev/null; SPIN_PID=; }
trap cleanup_spin EXIT

experiment() { # NAME ITERATIONS
        post_experiment "$(definition --name "$1" --iterations "$2" \
                --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
                --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=200\",\"rate\":1500,\"connections\":4,
                         \"warmup_s\":2,\"measure_s\":5,\"cpus\":\"0\"}" \
                --cell c:1 -- java -Xmx128m -jar "$JAR" --port "$PORT")"
        check_eq "($1) accepted" 201 "$HTTP_STATUS"
        wait_for 600 experiment_finished "$EXP_ID" || not_finished "$EXP_ID"
}
# shares ID: each run's "other_busy_share outcome" (null for a run without it), one per line.
shares() {
        curl -s "$DAEMON_URL/v1/experiments/$1/runs" | jq -r '.runs[].id' | while read -r run; do
                echo "$(run_field "$run" .metrics.cpu.other_busy_share) $(run_outcome "$run")"
        done
}
outcomes() { cut -d' ' -f2- <<<"$1" | xargs; }
# on_cpu PID: its run time in ns (schedstat's first field: measured, not sampled).
on_cpu() { cut -d' ' -f1 "/proc/$1/schedstat"; }

# --- (a) quiet ---------------------------------------------------------------------------------
experiment quiet 3
QUIET=$(shares "$EXP_ID")
echo "# quiet runs (other_busy_share outcome): $(tr '\n' ';' <<<"$QUIET")"
check_eq "(a) the quiet runs succeeded" "succeeded succeeded succeeded" "$(outcomes "$QUIET")"
check "(a) every quiet run reads near 0 (below 0.1), not 0.46 by the tick's phase" \
        awk '$1 == "null" || $1 >= 0.1 { bad = 1 } END { exit bad || NR != 3 }' <<<"$QUIET"

# --- (b) a loop on the cell's CPU ---------------------------------------------------------------
taskset -c 1 python3 -c '
import time
while True:
    end = time.monotonic() + 0.003
    while time.monotonic() < end:
        pass
    time.sleep(0.007)' &
SPIN_PID=$!
T0=$(date +%s%N)
C0=$(on_cpu "$SPIN_PID")
experiment busy 1
C1=$(on_cpu "$SPIN_PID")
T1=$(date +%s%N)
cleanup_spin
LOOP=$(awk -v c="$((C1 - C0))" -v t="$((T1 - T0))" 'BEGIN { printf "%.3f", c / t }')
BUSY=$(shares "$EXP_ID")
echo "# the loop's share of CPU 1: $LOOP; the busy run (other_busy_share outcome): $BUSY"
check_eq "(b) the run with the loop succeeded" succeeded "$(outcomes "$BUSY")"
check "(b) the loop took a real share of CPU 1 (above 0.15)" awk -v l="$LOOP" 'BEGIN { exit !(l > 0.15) }'
check "(b) other_busy_share is near the loop's share (within 0.1)" \
        awk -v l="$LOOP" '{ d = $1 - l; if (d < 0) d = -d; exit !($1 != "null" && d < 0.1) }' <<<"$BUSY"
api GET "/v1/experiments/$EXP_ID/findings"
check "(b) the interference finding names the cell" json_true \
        '[.findings[] | select(.kind == "interference" and (.cells | index("c")))] | length >= 1' "$BODY"

finish
