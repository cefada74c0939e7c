#!/bin/bash
# disk-bounds.sh: a run is bounded in what it may take from the host. A state dir on a small
# tmpfs (mounted inside the test's temporary dir, unmounted after): the run fails `preflight`
# naming the bytes it needs and the bytes free, and nothing of it is written (no run directory,
# no slice). The load's slice has a memory limit (memory.limit_in_bytes on v1, memory.max on
# v2), shown by the load itself reading its own cgroup. A SUT that prints more than the 64 MiB
# cap keeps its newest output (sut.stdout and sut.stdout.1 together), with a note of the bytes
# dropped.
. "$SLICELAB_SRC/tests/lib.sh"

SYNTH="$BUILD/tests/synth-timeline"
CGROOT=slicelab-d$$
SMALL=${TEST_TMP:?}/small
mkdir -p "$SMALL"
mount -t tmpfs -o size=32m,mode=0755 slicelab-test "$SMALL" || { not_ok "a small tmpfs is mounted"; finish; exit 1; }
cleanup_mount() {
        daemon_stop
        umount "$SMALL" 2>/dev/null
}

# --- no room ---------------------------------------------------------------------------------
DAEMON_STATE=$SMALL/state
daemon_start --cgroup-root "$CGROOT" || { not_ok "daemon starts on a small state dir"; cleanup_mount; finish; exit 1; }
post_experiment "$(definition --name small -- /bin/sh -c 'echo {\"ops_per_s\": 1}')"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "a run that cannot fit fails in preflight" "failed preflight" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check_match "its message names the bytes needed and free" \
        "not enough free space in the state dir .*: the run needs up to [0-9]+ bytes .* and [0-9]+ are free" \
        "$(run_field "$RUN" .message)"
check "nothing of it is written: no run directory" test ! -e "$DAEMON_STATE/runs/$RUN"
check "and no slice" no_slices_of "$RUN"
cleanup_mount
check "the tmpfs is unmounted" not mountpoint -q "$SMALL"

# --- the load slice's memory limit -------------------------------------------------------------
DAEMON_STATE=$TEST_TMP/state
chmod 0755 "$TEST_TMP"
cat >"$TEST_TMP/load.sh" <<SH
#!/bin/sh
# Prints the memory limit of the cgroup it runs in, then writes a small timeline.
v1=\$(awk -F: '\$2 == "memory" { print \$3 }' /proc/self/cgroup)
v2=\$(awk -F: '\$1 == "0" { print \$3 }' /proc/self/cgroup)
if [ -n "\$v1" ] && [ -r "/sys/fs/cgroup/memory\$v1/memory.limit_in_bytes" ]; then
        echo "memory limit \$(cat "/sys/fs/cgroup/memory\$v1/memory.limit_in_bytes")"
elif [ -r "/sys/fs/cgroup\$v2/memory.max" ]; then
        echo "memory limit \$(cat "/sys/fs/cgroup\$v2/memory.max")"
fi
exec "$SYNTH" synthetic.bin 1000 1000 0
SH
chmod 0755 "$TEST_TMP/load.sh"
daemon_start --cgroup-root "$CGROOT" || { not_ok "daemon starts"; finish; exit 1; }
post_experiment "$(definition --name limited \
        --load "$(jq -cn --arg s "$TEST_TMP/load.sh" '{command: ["/bin/sh", $s], timeline: "synthetic.bin"}')" -- /bin/sleep 600)"
RUN=$(first_run "$EXP_ID")
wait_for 120 run_finished "$RUN"
check_eq "the run with an external load succeeds" succeeded "$(run_outcome "$RUN")"
check_eq "the load's slice has a memory limit of 1 GiB" "memory limit 1073741824" \
        "$(grep '^memory limit' "$DAEMON_STATE/runs/$RUN/load.log")"

# --- more output than the cap: the newest is kept ----------------------------------------------
# 12 M numbers are about 89 MB of stdout, then the result line.
post_experiment "$(definition --name chatty -- /bin/sh -c 'seq 1 12000000; echo {\"ops_per_s\": 1}')"
RUN=$(first_run "$EXP_ID")
wait_for 300 run_finished "$RUN"
DIR=$DAEMON_STATE/runs/$RUN
check_eq "a SUT printing past the cap succeeds with its last line" "succeeded 1" "$(run_field "$RUN" '"\(.state) \(.metrics.ops_per_s // .message)"')"
check_eq "its newest output is kept: the last number" 1 "$(grep -c '^12000000$' "$DIR/sut.stdout")"
check "and the older half before it" test "$(tail -1 "$DIR/sut.stdout.1")" -lt "$(head -1 "$DIR/sut.stdout")"
check "the oldest is gone" test "$(head -1 "$DIR/sut.stdout.1")" -gt 1
check_match "a note says how many bytes were dropped" '^\[slicelab: [0-9]+ bytes of older output dropped' "$(tail -1 "$DIR/sut.stdout")"
kept=$(($(stat -c %s "$DIR/sut.stdout") + $(stat -c %s "$DIR/sut.stdout.1")))
check "what is kept stays within the cap (and the note)" test "$kept" -le $((64 * 1024 * 1024 + 512))
check_eq "the combined sut.log keeps the newest too" 1 "$(grep -c '^12000000$' "$DIR/sut.log")"
finish
