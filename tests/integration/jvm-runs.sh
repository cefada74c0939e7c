#!/bin/bash
# jvm-runs.sh: real JVMs in real slices through the daemon, with an external load (a synthetic
# timeline) so that these checks do not depend on the injector: the seed's three cells scaled to
# 2 CPUs ("1"; "0-1" quota 1.0; the same with -XX:-UseContainerSupport) and the ergonomics the
# JVM really chose in each; GC pauses parsed from the run's log; preflight host requirements
# failing and warning end to end; a load that outlives its timeout_s fails the run (timeout).
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
SYNTH="$BUILD/tests/synth-timeline"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-j$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port)

# --- the seed's cells on 2 CPUs ---------------------------------------------------------
post_experiment "$(definition --name seed-2cpu --merge '{"order":"sequential"}' \
        --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
        --load "$(jq -cn --arg c "curl -sf -X POST http://127.0.0.1:$PORT/gc && exec $SYNTH t.bin 3000 1000 1000" \
                '{command: ["/bin/sh", "-c", $c], timeline: "t.bin"}')" \
        --cell 1cpu:1 --cell 2cpu-q1:0-1:1.0 --cell '{"name":"2cpu-q1-nocs","cpus":"0-1","cpu_quota":1.0,"jvm_args":["-XX:-UseContainerSupport"]}' \
        -- java -Xmx128m -XX:+UseParallelGC -jar "$JAR" --port "$PORT")"
check_eq "the seed experiment is accepted" 201 "$HTTP_STATUS"
last=$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID/runs" | jq -r '.runs[-1].id')
wait_for 600 run_finished "$last"
api GET "/v1/experiments/$EXP_ID/runs"
check_eq "all three JVM runs succeed" "succeeded succeeded succeeded" "$(jq -r "[.runs[] | $RUN_OUTCOME_JQ] | join(\" \")" <<<"$BODY")"
jvm_of() { curl -s "$DAEMON_URL/v1/runs/$(jq -r ".runs[$1].id" <<<"$BODY")" | jq -r ".metrics.jvm | \"\\(.ActiveProcessorCount) \\(.ParallelGCThreads) \\(.UseContainerSupport) \\(.gc)\""; }
check_eq "1 CPU: the JVM sees 1 CPU, 1 GC thread" "1 1 true ParallelGC" "$(jvm_of 0)"
check_eq "2 CPUs at quota 1.0: the JVM sees 1 CPU from the quota" "1 1 true ParallelGC" "$(jvm_of 1)"
check_eq "the same without container support: 2 CPUs, 2 GC threads" "2 2 false ParallelGC" "$(jvm_of 2)"
RUN=$(jq -r '.runs[2].id' <<<"$BODY")
api GET "/v1/runs/$RUN"
check_schema "a JVM run" getRun 200
check_match "the run warns that the JVM saw more CPUs than its quota" "the JVM saw 2 CPUs" "$(jq -r '.warnings | join(" | ")' <<<"$BODY")"
check_match "JIT compile time is read from the JVM's counters" '^[0-9.]+$' "$(jq -r .metrics.jit.compile_time_s <<<"$BODY")"
check_match "the JVM's version is recorded" '^17\.' "$(jq -r .metrics.jvm.java_version <<<"$BODY")"
api GET "/v1/runs/$RUN/gc"
check_schema "GC events" getRunGc 200
check_match "the POST /gc pause was parsed from the run's log" 'System.gc' "$(jq -r '[.events[] | select(.kind == "pause") | .cause] | join(" | ")' <<<"$BODY")"
check_eq "pauses and safepoints are both there" "pause,safepoint" "$(jq -r '[.events[].kind] | unique | join(",")' <<<"$BODY")"
check "the pause lies on the timeline's clock, within the run" json_true '.measure_start_ns as $m | [.events[] | select(.kind == "pause") | .start_ns] | all(. > $m - 600000000000 and . < $m + 600000000000)' "$BODY"
# Paged like the timeline: pages of one event, cursor to cursor, give the whole list once.
ALL=$BODY
check_eq "one page holds them all by default: next_cursor is null" null "$(jq .next_cursor <<<"$ALL")"
pages='[]' cursor= n=0
while :; do
        api GET "/v1/runs/$RUN/gc?limit=1${cursor:+&cursor=$cursor}"
        [ "$HTTP_STATUS" = 200 ] && [ "$n" -lt 10000 ] || break
        pages=$(jq -c --argjson p "$pages" '$p + .events' <<<"$BODY")
        cursor=$(jq -r '.next_cursor // empty' <<<"$BODY")
        n=$((n + 1))
        [ -n "$cursor" ] || break
done
check_schema "a page of GC events" getRunGc 200
check_eq "pages of limit=1 give every event once, in order" "$(jq -c .events <<<"$ALL")" "$pages"
check_eq "one page per event" "$(jq '.events | length' <<<"$ALL")" "$n"
api GET "/v1/runs/$RUN/gc?cursor=zz"
check_eq "a bad cursor is 400 naming it" "400 cursor" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/runs/$RUN/gc?limit=0"
check_eq "limit=0 is 400 naming it" "400 limit" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/runs/$RUN/logs/sut?tail=5"
check_eq "the SUT's log tail is served" 200 "$HTTP_STATUS"

# --- preflight: host requirements ---------------------------------------------------------
# These VMs expose no cpufreq, so a governor requirement cannot be verified: a mismatch.
post_experiment "$(definition --name pf-fail --cell a:1 --merge '{"host":{"governor":"performance","on_mismatch":"fail"}}' \
        -- /bin/echo '{"ops_per_s": 1}')"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "on_mismatch fail: the run fails in preflight" "failed preflight" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check_match "the preflight message names the CPU and what it had" "cpu 1" "$(run_field "$RUN" .message)"
check_eq "a preflight failure started nothing" null "$(run_field "$RUN" .exit.sut)"
post_experiment "$(definition --name pf-warn --cell a:1 --merge '{"host":{"governor":"performance","on_mismatch":"warn"}}' \
        -- /bin/echo '{"ops_per_s": 1}')"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "on_mismatch warn: the run goes on" succeeded "$(run_outcome "$RUN")"
check_match "and records the mismatch as a warning" "cpu 1" "$(run_field "$RUN" '.warnings | join(" | ")')"

# --- deadline ------------------------------------------------------------------------------
# 600.PID seconds: a duration no other test on this host sleeps, so the leftover check below
# cannot see another suite's sleep.
post_experiment "$(definition --name deadline --load "{\"command\":[\"/bin/sleep\",\"600.$$\"],\"timeline\":\"t.bin\",\"timeout_s\":2}" \
        -- /bin/sleep "600.$$")"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "a load past its timeout_s: failed/timeout" "failed timeout" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check "the timed-out run left no slice" no_slices_of "$RUN"
check "and no process" not running_cmd "[s]leep 600\\.$$"
finish
