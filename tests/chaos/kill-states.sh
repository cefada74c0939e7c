#!/bin/bash
# kill-states.sh: kill -9 of the daemon in each run state (preparing, starting, warmup,
# measuring, collecting). The run's injector dies with the daemon (issue 39), its SUT does not:
# after a restart on the same state dir and root the run is `interrupted`, no process or slice
# of it is left, and the queue goes on: a run queued behind it succeeds. preparing lasts microseconds, so the daemon is stopped in it by a breakpoint on
# cgroup_run_create (after the state is stored, before the slices exist); the other states are
# made long enough to be seen through GET /v1/runs/{id}.
. "$SLICELAB_SRC/tests/lib.sh"
. "$SLICELAB_SRC/tests/chaos/chaos-lib.sh"

CGROOT=slicelab-k$$
JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
SPIN="$BUILD/contrib/workloads/slicelab-spin"
PORT=$(loopback_port)
SLEEP_S=$((4000 + $$ % 1000))
daemon_start --cgroup-root "$CGROOT" || { not_ok "daemon starts"; finish; exit 1; }

# A JVM that ignores SIGTERM (HotSpot leaves an ignored SIGTERM alone), so that collecting,
# which waits up to 10 s for the SUT to exit, lasts long enough to be caught.
# jvm_def NAME WARMUP_S MEASURE_S: that JVM under a load.
jvm_def() {
        definition --name "$1" --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
                --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=50\",\"rate\":50,\"connections\":2,\"warmup_s\":$2,\"measure_s\":$3,\"cpus\":\"0\"}" \
                --cell "$CELL" -- /bin/sh -c "trap '' TERM; exec java -Xmx96m -XX:+UseSerialGC -jar $JAR --port $PORT"
}
# sleep_def NAME [OPTION...]: a SUT that never gets ready.
sleep_def() { definition --name "$1" --ready '{"log":"never printed","timeout_s":120}' "${@:2}" -- /bin/sleep "$SLEEP_S"; }
CELL='{"name":"a","cpus":"1","memory_max":"512M"}'
PATTERNS=("[s]leep $SLEEP_S" "[s]licelab-sut.jar --port $PORT" "[s]licelab-inject --url http://127.0.0.1:$PORT")

# queue_behind: a short run after the victim, to show that the queue goes on after the restart.
queue_behind() {
        post_experiment "$(definition --name behind --cell a:1 -- "$SPIN" --threads 1 --seconds 1)"
        BEHIND=$(first_run "$EXP_ID")
}

# has_injector STATE: the run's injector runs in STATE.
has_injector() { [ "$1" = warmup ] || [ "$1" = measuring ]; }

# after_restart STATE: the checks every state shares, once the daemon was killed in STATE.
after_restart() {
        local state=$1
        # Its load process dies with the daemon (issue 39), at once; its SUT is the restart's.
        if has_injector "$state"; then
                check "[$state] the run's injector died with the daemon, before the restart" \
                        wait_for 30 not running_cmd "${PATTERNS[2]}"
        fi
        check "[$state] the run's slice and processes outlive the daemon until the restart" \
                not nothing_of "$RUN" "${PATTERNS[@]}"
        daemon_restart --cgroup-root "$CGROOT" || { not_ok "[$state] the daemon restarts"; return; }
        check_eq "[$state] the run is interrupted after the restart" "interrupted daemon_restart" \
                "$(run_field "$RUN" '"\(.state) \(.reason)"')"
        check_match "[$state] its history ends with $state, interrupted" "$state interrupted\$" \
                "$(run_field "$RUN" '[.states[].state] | join(" ")')"
        check "[$state] no process or slice of it is left" nothing_of "$RUN" "${PATTERNS[@]}"
        wait_for 60 run_finished "$BEHIND"
        check_eq "[$state] the queue goes on: the run behind it succeeds" succeeded "$(run_outcome "$BEHIND")"
}

# kill_in STATE JSON: post, wait for the state through the API, SIGKILL, restart, check.
kill_in() {
        post_experiment "$2"
        RUN=$(first_run "$EXP_ID")
        queue_behind
        if ! wait_for 120 run_state_is "$RUN" "$1"; then
                not_ok "[$1] the run reaches $1" "it is $(run_field "$RUN" .state): $(run_field "$RUN" .message)"
                return
        fi
        if has_injector "$1"; then
                check "[$1] the run's injector runs" running_cmd "${PATTERNS[2]}"
        fi
        daemon_kill9
        after_restart "$1"
}

# --- preparing: a breakpoint holds the daemon there ----------------------------------------
gdb -p "$DAEMON_PID" -batch -ex 'break cgroup_run_create' -ex 'continue' -ex 'kill' \
        >"$TEST_TMP/gdb.out" 2>&1 &
GDB=$!
wait_for 60 grep -q '^Breakpoint 1 at' "$TEST_TMP/gdb.out"
# The POST is answered once gdb lets the daemon go on; the breakpoint then stops it in preparing.
# Its answer may or may not leave before the breakpoint stops every thread: in the background.
curl -s -m 60 -o /dev/null -H "Authorization: Bearer $DAEMON_TOKEN" -H 'Content-Type: application/json' \
        --data "$(sleep_def "prep-$$")" "$DAEMON_URL/v1/experiments" &
wait "$GDB"
check_match "[preparing] the daemon was stopped in cgroup_run_create and killed" "Breakpoint 1, .*cgroup_run_create" \
        "$(cat "$TEST_TMP/gdb.out")"
daemon_wait_event 'SIGNAL' 30
wait "$NL_PID" 2>/dev/null
DAEMON_PID=
# A group under the root that this daemon's database never saw is not its to remove.
FOREIGN=/sys/fs/cgroup/cpu/$CGROOT/run-foreign$$
mkdir "$FOREIGN"
daemon_restart --cgroup-root "$CGROOT" || { not_ok "[preparing] the daemon restarts"; finish; exit 1; }
check "reconciliation leaves a run group its database does not know" test -d "$FOREIGN"
check "and says so in the log" grep -q "run-foreign$$ under the root is not a run of this daemon's database; left alone" "$TEST_TMP/daemon.log"
rmdir "$FOREIGN"
EXP_ID=$(curl -s "$DAEMON_URL/v1/experiments" | jq -r ".experiments[] | select(.name == \"prep-$$\") | .id")
RUN=$(first_run "$EXP_ID")
check_eq "[preparing] the run is interrupted after the restart" "interrupted daemon_restart" \
        "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check_match "[preparing] its history ends with preparing, interrupted" "preparing interrupted\$" \
        "$(run_field "$RUN" '[.states[].state] | join(" ")')"
check "[preparing] no process or slice of it is left" nothing_of "$RUN" "${PATTERNS[@]}"
queue_behind
wait_for 60 run_finished "$BEHIND"
check_eq "[preparing] the queue goes on: the next run succeeds" succeeded "$(run_outcome "$BEHIND")"

# --- the states the API can see --------------------------------------------------------------
kill_in starting "$(sleep_def start --cell "$CELL")"
kill_in warmup "$(jvm_def warm 60 1)"
kill_in measuring "$(jvm_def measure 0 60)"
kill_in collecting "$(jvm_def collect 0 1)"
finish
