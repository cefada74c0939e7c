#!/bin/bash
# housekeeping.sh: the daemon stays off the CPUs it measures. While a SUT without load measures
# on CPU 1, every thread of the daemon is confined to CPU 0 (the SUT keeps CPU 1); afterwards
# they may use every CPU again; with no CPU left over, the run's warnings say so. Queued runs
# count as well, however many are queued ahead of them.
. "$SLICELAB_SRC/tests/lib.sh"

SPIN="$BUILD/contrib/workloads/slicelab-spin"
# threads_on PID LIST: every thread of PID has Cpus_allowed_list LIST (and there is more than one).
threads_on() {
        local f n=0
        for f in /proc/"$1"/task/*/status; do
                [ "$(awk '/^Cpus_allowed_list:/ {print $2}' "$f")" = "$2" ] || return 1
                n=$((n + 1))
        done
        [ "$n" -gt 1 ]
}
thread_lists() {
        awk '/^Cpus_allowed_list:/ {print $2}' /proc/"$1"/task/*/status | sort | uniq -c | tr '\n' ' '
}
ONLINE=$(cat /sys/devices/system/cpu/online)

daemon_start || { not_ok "daemon starts"; finish; exit 1; }
check "idle, the daemon's threads may use every online CPU ($ONLINE)" threads_on "$DAEMON_PID" "$ONLINE"

post_experiment "$(definition --name hk --cell a:1 -- "$SPIN" --threads 1 --seconds 4)"
RUN=$(first_run "$EXP_ID")
wait_for 30 run_state_is "$RUN" measuring
if threads_on "$DAEMON_PID" 0; then ok "while the run measures on CPU 1, every daemon thread is on CPU 0"
else not_ok "while the run measures on CPU 1, every daemon thread is on CPU 0" "got: $(thread_lists "$DAEMON_PID")"; fi
slice=$(run_field "$RUN" .slices.sut)
sut_pid=$(head -1 "/sys/fs/cgroup/cpu$slice/cgroup.procs" 2>/dev/null)
check_eq "the SUT keeps its CPU 1 (it does not inherit the daemon's)" 1 \
        "$(awk '/^Cpus_allowed_list:/ {print $2}' "/proc/${sut_pid:-0}/status" 2>/dev/null)"
check_match "the log says where the daemon's threads went" "the daemon's threads run on CPUs 0$" "$(grep -o "the daemon's threads run on CPUs [0-9,-]*" "$TEST_TMP/daemon.log" | tail -1)"
wait_for 60 run_finished "$RUN"
check_eq "the run succeeds" succeeded "$(run_outcome "$RUN")"
check "it has no housekeeping warning" not json_true '.warnings | any(test("daemon.s own threads"))' "$(curl -s "$DAEMON_URL/v1/runs/$RUN")"
check "after the run, every CPU again" wait_for 10 threads_on "$DAEMON_PID" "$ONLINE"

# Every CPU measured: nothing is left over, and the run says so.
post_experiment "$(definition --name hk-all --cell "a:$ONLINE" -- "$SPIN" --threads 1 --seconds 1)"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "the run on every CPU succeeds" succeeded "$(run_outcome "$RUN")"
check_match "its warnings say no CPU was left for the daemon" "no CPU is left over for the daemon's own threads" \
        "$(run_field "$RUN" '.warnings | join(" ")')"

# Queued runs keep their CPUs too, however many runs are ahead of them: a run measuring on CPU 1,
# 5000 runs queued behind it on CPU 1 (more than one look at the queue read when it was read run
# by run: the look never got past them), then one run on CPU 0: nothing is left over.
post_experiment "$(definition --name hk-hold --cell a:1 -- "$SPIN" --threads 1 --seconds 600)"
HOLD=$EXP_ID
RUN=$(first_run "$HOLD")
wait_for 30 run_state_is "$RUN" measuring
post_experiment "$(definition --name hk-many --iterations 1000 --cells "$(jq -cn '[range(5) | {name: "c\(.)", cpus: "1"}]')" -- /bin/true)"
MANY=$EXP_ID
check "with 5000 runs queued on CPU 1 too, the daemon's threads stay on CPU 0" wait_for 10 threads_on "$DAEMON_PID" 0
post_experiment "$(definition --name hk-last --cell a:0 -- /bin/true)"
LAST=$EXP_ID
if wait_for 10 threads_on "$DAEMON_PID" "$ONLINE"; then ok "a run queued after them on CPU 0 leaves nothing over: every CPU"
else not_ok "a run queued after them on CPU 0 leaves nothing over: every CPU" "got: $(thread_lists "$DAEMON_PID")"; fi
for id in "$LAST" "$MANY" "$HOLD"; do api_auth DELETE "/v1/experiments/$id"; done
wait_for 60 run_finished "$RUN"
daemon_stop

# --housekeeping-cpus: where the administrator says, with a warning in a run it overlaps.
daemon_start --housekeeping-cpus 1 || { not_ok "daemon starts with --housekeeping-cpus"; finish; exit 1; }
post_experiment "$(definition --name hk-fixed --cell a:1 -- "$SPIN" --threads 1 --seconds 2)"
RUN=$(first_run "$EXP_ID")
wait_for 30 run_state_is "$RUN" measuring
if threads_on "$DAEMON_PID" 1; then ok "--housekeeping-cpus 1: every daemon thread is on CPU 1"
else not_ok "--housekeeping-cpus 1: every daemon thread is on CPU 1" "got: $(thread_lists "$DAEMON_PID")"; fi
wait_for 60 run_finished "$RUN"
check_match "a run on those CPUs is warned" "run on CPUs 1 \(--housekeeping-cpus\)" "$(run_field "$RUN" '.warnings | join(" ")')"
finish
