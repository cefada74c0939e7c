#!/bin/bash
# inject-runs.sh: the whole path with slicelab-inject: a JVM run with warmup and measure
# succeeds end to end, its SUT and injector each in their slice with the cell's limits (seen
# from /proc/PID/cgroup while running), with latency from scheduled, from submit and lag; a
# load target that refuses fails the run as load_failed; a cancel mid-measure stops both and
# leaves nothing.
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-i$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port)
# sut_def OPTION...: a definition (tests/lib.sh) whose SUT is slicelab-sut.jar on $PORT.
sut_def() {
        definition "$@" --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
                -- java -Xmx128m -XX:+UseSerialGC -jar "$JAR" --port "$PORT"
}

# slice_pids RUN KIND: the pids in the run's slice (v1 cpu hierarchy).
slice_pids() { cat "/sys/fs/cgroup/cpu$(run_field "$1" ".slices.$2")/cgroup.procs" 2>/dev/null; }
comm_of() { cat "/proc/$1/comm" 2>/dev/null; }

# --- end to end ----------------------------------------------------------------------------
post_experiment "$(sut_def --name e2e \
        --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=100&alloc_kb=16\",\"rate\":200,\"connections\":4,\"warmup_s\":2,\"measure_s\":5,\"cpus\":\"0\"}" \
        --cell '{"name":"one","cpus":"1","memory_max":"512M"}')"
RUN=$(first_run "$EXP_ID")
wait_for 120 run_state_is "$RUN" measuring
sut_comms=$(for p in $(slice_pids "$RUN" sut); do comm_of "$p"; done | sort -u | tr '\n' ' ')
load_comms=$(for p in $(slice_pids "$RUN" load); do comm_of "$p"; done | sort -u | tr '\n' ' ')
check_match "the JVM runs in the SUT slice" "java" "$sut_comms"
check_match "the injector runs in the load slice" "slicelab-inject" "$load_comms"
inj=$(pgrep -f "[s]licelab-inject --url http://127.0.0.1:$PORT" | head -1)
check_match "the injector's /proc/PID/cgroup names its load slice" "run-$RUN/load" "$(cat "/proc/$inj/cgroup" 2>/dev/null)"
check_eq "the injector is on the load's cpus" 0 "$(taskset -pc "$inj" 2>/dev/null | sed 's/.*: //')"
slice=$(run_field "$RUN" .slices.sut)
check_eq "the SUT slice has the cell's cpuset" 1 "$(cat "/sys/fs/cgroup/cpuset$slice/cpuset.cpus")"
check_eq "the SUT slice has the cell's memory limit" $((512 << 20)) "$(cat "/sys/fs/cgroup/memory$slice/memory.limit_in_bytes")"
wait_for 120 run_finished "$RUN"
api GET "/v1/runs/$RUN"
check_eq "the JVM run with the injector succeeds" succeeded "$(jq -r "$RUN_OUTCOME_JQ" <<<"$BODY")"
check_schema "the run" getRun 200
check_eq "the history went through warmup and measuring" "queued preparing starting warmup measuring collecting succeeded" \
        "$(jq -r '[.states[].state] | join(" ")' <<<"$BODY")"
# The run's steady state (issue 36): its 7 s of load as a series per second, classified, the
# segments covering it in order, the measure window from 2 s.
echo "# steady state: $(jq -c '.metrics.steady_state | del(.segments)' <<<"$BODY")"
check "the run's series per second is classified, its segments in order" json_true \
        '.metrics.steady_state | .metric == "latency_us.scheduled.p50" and .intervals >= 5 and
         (.class | IN("flat", "warmup", "slowdown", "no steady state")) and .measure_start_s == 2 and
         .segments[0].start_s == 0 and ([.segments[] | .end_s > .start_s] | all) and
         ((.class == "no steady state") == (.start_s == null))' "$BODY"
req=$(jq -r .metrics.requests <<<"$BODY")
check "about 1000 measured requests (200/s for 5 s): $req" test "$req" -ge 980 -a "$req" -le 1020
check_match "latency from scheduled, from submit and lag are all there" '^[0-9.]+ [0-9.]+ [0-9.]+$' \
        "$(jq -r '.metrics.latency_us | "\(.scheduled.p99) \(.submit.p99) \(.lag.p99)"' <<<"$BODY")"
check "p99 from scheduled is never below p99 from submit" json_true '.metrics.latency_us | .scheduled.p99 >= .submit.p99' "$BODY"
check_match "the injector's saturation is reported" '^(true|false)$' "$(jq -r .metrics.load.saturated <<<"$BODY")"
check "the injector's late requests are reported, split into the server's and its own" json_true \
        '.metrics.load.late | .threshold_us == 1000 and .requests >= 0 and .server + .stalled + .injector == .requests and .stall_max_ms <= .stalls_ms' "$BODY"
check "no slice is left" no_slices_of "$RUN"
check "no JVM or injector is left" not running_cmd "[-]-port $PORT"

# --- a load target that refuses ------------------------------------------------------------
post_experiment "$(sut_def --name refused \
        --load '{"target":"http://127.0.0.1:1/work","rate":100,"connections":2,"warmup_s":0,"measure_s":2}' --cell one:1)"
RUN=$(first_run "$EXP_ID")
wait_for 120 run_finished "$RUN"
check_eq "a target that refuses: failed/load_failed" "failed load_failed" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check_match "the message says no request got an answer" "none of the .* measured requests got an answer" "$(run_field "$RUN" .message)"
check "the refused run left no slice" no_slices_of "$RUN"

# --- cancel in the middle of measuring -----------------------------------------------------
post_experiment "$(sut_def --name cancel \
        --load "{\"target\":\"http://127.0.0.1:$PORT/work\",\"rate\":100,\"connections\":2,\"warmup_s\":1,\"measure_s\":600}" --cell one:1)"
RUN=$(first_run "$EXP_ID")
wait_for 120 run_state_is "$RUN" measuring
api_auth DELETE "/v1/experiments/$EXP_ID"
check_eq "cancel mid-measure is 202" 202 "$HTTP_STATUS"
wait_for 60 run_finished "$RUN"
check_eq "the run is cancelled" "cancelled cancelled" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check "the cancelled run left no slice" no_slices_of "$RUN"
check "the cancelled run left no JVM or injector" not running_cmd "[-]-port $PORT"
finish
