#!/bin/bash
# root-lock.sh: one daemon per cgroup root. A second daemon on the same root (and the same port,
# the original accident) refuses to start, naming the root and the holder, before it touches a
# cgroup: the first daemon's running run goes on and succeeds. The root's cgroups removed between
# two runs: the next run succeeds, and the log and the run's warnings say the root was repaired.
. "$SLICELAB_SRC/tests/lib.sh"

CGROOT=slicelab-c$$
SPIN="$BUILD/contrib/workloads/slicelab-spin"
daemon_start --cgroup-root "$CGROOT" || { not_ok "daemon starts"; finish; exit 1; }

spin_run() {
        post_experiment "$(definition --name "$1" --cell a:1 -- "$SPIN" --threads 1 --seconds "$2")"
        RUN=$(first_run "$EXP_ID")
}

# --- two daemons, one root ---------------------------------------------------------------
spin_run first 5
wait_for 30 run_state_is "$RUN" measuring
slice=$(run_field "$RUN" .slices.sut)
sut_pid=$(head -1 "/sys/fs/cgroup/cpu$slice/cgroup.procs" 2>/dev/null)
check "the first daemon's SUT runs" alive "${sut_pid:-0}"

# The same root and the same port: the lock must refuse before the port or a cgroup is tried.
timeout 30 "$SLICELABD" --listen "127.0.0.1:$DAEMON_PORT" --state-dir "$TEST_TMP/state2" \
        --cgroup-root "$CGROOT" >"$TEST_TMP/second.out" 2>&1
check_eq "a second daemon on the same root exits 1" 1 "$?"
second=$(cat "$TEST_TMP/second.out")
check_match "it names the root and the holder's pid" "cgroup root '$CGROOT' is in use by slicelabd pid $DAEMON_PID" "$second"
check "it does not get as far as the cgroups" not grep -q "cgroup: mode" "$TEST_TMP/second.out"
check "the first daemon's SUT is untouched" alive "$sut_pid"
check "the first daemon's slice is untouched" test -d "/sys/fs/cgroup/cpuset$slice"
check_eq "the root's cpuset is untouched" "$(cat /sys/fs/cgroup/cpuset/cpuset.effective_cpus)" \
        "$(cat "/sys/fs/cgroup/cpuset/$CGROOT/cpuset.cpus")"
# A different port too: still refused (the lock is the root's, not the port's).
timeout 30 "$SLICELABD" --listen 127.0.0.1:0 --state-dir "$TEST_TMP/state2" --cgroup-root "$CGROOT" \
        >"$TEST_TMP/second.out" 2>&1
check_eq "on another port it is refused too" 1 "$?"
wait_for 60 run_finished "$RUN"
check_eq "the first daemon's run succeeds" succeeded "$(run_outcome "$RUN")"
api GET /v1/health
check_eq "the first daemon still answers" 200 "$HTTP_STATUS"

# --- the root removed between two runs -----------------------------------------------------
for d in /sys/fs/cgroup/*/"$CGROOT"; do rmdir "$d"; done
check "the root is gone from every hierarchy" test -z "$(ls -d /sys/fs/cgroup/*/"$CGROOT" 2>/dev/null)"
spin_run after-removal 1
wait_for 60 run_finished "$RUN"
check_eq "the next run succeeds" succeeded "$(run_outcome "$RUN")"
check_match "the log says the root was repaired" "run $RUN: the cgroup root /$CGROOT was repaired: recreated /sys/fs/cgroup/" \
        "$(cat "$TEST_TMP/daemon.log")"
check_match "the repair copied the cpuset from the parent" "cpuset.cpus and cpuset.mems of /sys/fs/cgroup/cpuset/$CGROOT copied from /sys/fs/cgroup/cpuset" \
        "$(cat "$TEST_TMP/daemon.log")"
check_match "the run's warnings say so" "was repaired" "$(run_field "$RUN" '.warnings | join(" ")')"

# An emptied cpuset (a bare mkdir by someone) is refilled as well.
for d in /sys/fs/cgroup/*/"$CGROOT"; do rmdir "$d"; done
mkdir "/sys/fs/cgroup/cpuset/$CGROOT"
spin_run empty-cpuset 1
wait_for 60 run_finished "$RUN"
check_eq "a run after the cpuset was emptied succeeds" succeeded "$(run_outcome "$RUN")"
spin_run intact 1
wait_for 60 run_finished "$RUN"
check "an intact root is not reported as repaired" not grep -q "run $RUN: the cgroup root" "$TEST_TMP/daemon.log"

daemon_stop
check_eq "the first daemon stops cleanly" "EXIT 0" "$DAEMON_EXIT"
check "its lock file is gone" test ! -e "/run/slicelab/cgroup-root-$CGROOT.lock"
# Once the holder is gone the root is free again.
daemon_start --cgroup-root "$CGROOT"
check "a daemon starts on the root once it is free" test -n "$DAEMON_PID"
finish
