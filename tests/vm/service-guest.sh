#!/bin/bash
# service-guest.sh: runs inside the guest of run-service.sh (systemd as PID 1, slicelab installed
# by `meson install`), as a service started at boot with its output on the serial console. It
# checks what a user of the packaged daemon relies on: socket activation, a throttled run in the
# right cgroups, a stop that leaves nothing behind, and the watchdog restarting a hung daemon
# whose run then reads `interrupted`. Its verdict goes to QEMU's isa-debug-exit port.
# /tests/mode says which layout the guest was booted with: v2, v1 (legacy) or hybrid (v1
# controllers, systemd's own tree on a cgroup2 at unified/); the daemon uses its v1 driver on both.

verdict() {
    echo "GUEST: verdict $1 at uptime $(cut -d' ' -f1 /proc/uptime)s"
    printf "\\$(printf %03o "$1")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
    systemctl poweroff --force --force
}
MODE=$(cat /tests/mode)
state=$(systemctl is-system-running --wait)
echo "GUEST: system $state at uptime $(cut -d' ' -f1 /proc/uptime)s; $(systemctl --version | head -n1); cgroup fs $(stat -fc %T /sys/fs/cgroup)"

# The house's assertion helpers (tests/lib.sh); its daemon helpers are not used here: systemd
# runs the daemon.
SLICELAB_BUILD=/nonexistent SLICELAB_SRC=/tests . /tests/lib.sh || verdict 1
# shellcheck disable=SC2034 # DAEMON_URL and DAEMON_TOKEN are read by tests/lib.sh
DAEMON_URL=http://127.0.0.1:7878
UNIT=slicelabd.service
SPIN=$(command -v slicelab-spin) || { echo "GUEST: slicelab-spin is not installed"; verdict 1; }
JOURNAL_CURSOR=$(journalctl -n0 --show-cursor | sed -n 's/^-- cursor: //p')

case $MODE in
v2)
    check_eq "booted on the unified hierarchy" cgroup2fs "$(stat -fc %T /sys/fs/cgroup)"
    SERVICE_CG=/sys/fs/cgroup/system.slice/$UNIT
    ;;
v1)
    check_eq "booted on the legacy hierarchy (no unified mount)" "tmpfs cgroupfs no" \
        "$(stat -fc %T /sys/fs/cgroup) $(stat -fc %T /sys/fs/cgroup/systemd) $([ -e /sys/fs/cgroup/unified ] && echo yes || echo no)"
    SERVICE_CG=/sys/fs/cgroup/systemd/system.slice/$UNIT
    ;;
hybrid)
    check_eq "booted on the hybrid hierarchy" "tmpfs cgroupfs cgroup2fs" \
        "$(stat -fc %T /sys/fs/cgroup) $(stat -fc %T /sys/fs/cgroup/systemd) $(stat -fc %T /sys/fs/cgroup/unified)"
    SERVICE_CG=/sys/fs/cgroup/unified/system.slice/$UNIT
    ;;
*) echo "GUEST: unknown mode '$MODE'"; verdict 1 ;;
esac

# The daemon's pid too: a kernel report names the task it caught (`[slicelabd:452]`).
section() { echo "# $1 (uptime $(cut -d' ' -f1 /proc/uptime) s, slicelabd pid $(unit_prop MainPID))"; }
unit_prop() { systemctl show -p "$1" --value "$UNIT"; }
# Processes whose command line matches the regex $1 (procps is not in a minimal Debian);
# write it as "[s]licelab" so that grep does not find itself.
procs_with() { grep -ls -- "$1" /proc/[0-9]*/cmdline | cut -d/ -f3; }
# slice_pid SLICE: the first process in a slice (its cpu controller's directory on v1).
slice_pid() {
    case $MODE in
        v2) head -n1 "/sys/fs/cgroup$1/cgroup.procs" 2>/dev/null ;;
        v1 | hybrid) head -n1 "/sys/fs/cgroup/cpu$1/cgroup.procs" 2>/dev/null ;;
    esac
}
# The service is up again with another main process than $1.
restarted() {
    local p
    p=$(unit_prop MainPID)
    [ "$p" != 0 ] && [ "$p" != "$1" ] && [ "$(systemctl is-active $UNIT)" = active ]
}
# measuring_or_over RUN: the run measures with its SUT in its slice (its process then in
# MEASURED_PID), or it ended (failed). One request per poll: under emulation every curl and jq
# costs a good part of a second, and a run that ends by itself can be over by the next request.
measuring_or_over() {
    local state slice
    MEASURED_PID=
    read -r state slice < <(run_field "$1" '"\(.state) \(.slices.sut // "")"')
    case $state in
        measuring) MEASURED_PID=$(slice_pid "$slice"); [ -n "$MEASURED_PID" ] ;;
        succeeded | failed | cancelled | interrupted) return 0 ;;
        *) return 1 ;;
    esac
}
nothing_of_run() { no_slices_of "$1" && ! alive "$2"; }
# long_run NAME: post a run that only ends when stopped; RUN and PID are set once it measures.
long_run() {
    post_experiment "$(definition --name "$1" --cell half:0:0.5 -- "$SPIN" --threads 1 --seconds 3600)"
    RUN=$(first_run "$EXP_ID")
    wait_for 120 measuring_or_over "$RUN"
    PID=$MEASURED_PID
    check_eq "$1: the run measures with its SUT in its slice" "measuring yes" \
        "$(run_field "$RUN" .state) $([ -n "$PID" ] && echo yes || echo no)"
}

# check_placement RUN PID: where the run's SUT (process PID) and its slice are, with the quota. On
# the long run of the stop section, which measures until stopped: a run that ends by itself can
# be over before a slow emulated guest has looked (its slice then gone).
check_placement() {
    local slice pid=$2
    slice=$(run_field "$1" .slices.sut)
    case $MODE in
    v2)
        check_eq "the SUT slice is in the service's own subtree" "/system.slice/$UNIT/run-$1/sut" "$slice"
        check_eq "the SUT runs in it" "0::$slice" "$(cat "/proc/$pid/cgroup" 2>&1)"
        check_eq "the slice has the quota" "50000 100000" "$(cat "/sys/fs/cgroup$slice/cpu.max" 2>&1)"
        check_eq "the service's subtree holds only the supervisor and the run" "run-$1 supervisor" \
            "$(find "$SERVICE_CG" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tr '\n' ' ' | sed 's/ $//')"
        ;;
    v1 | hybrid)
        check_eq "the SUT slice is under the cgroup root" "/slicelab/run-$1/sut" "$slice"
        check "the SUT runs in it (cpu hierarchy)" grep -q ":cpu[^:]*:$slice\$" "/proc/$pid/cgroup"
        check_eq "the slice has the quota" "50000 100000" \
            "$(cat "/sys/fs/cgroup/cpu$slice/cpu.cfs_quota_us" "/sys/fs/cgroup/cpu$slice/cpu.cfs_period_us" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
        check "systemd still tracks the SUT in the service" grep -q "^1:name=systemd:/system.slice/$UNIT\$" "/proc/$pid/cgroup"
        ;;
    esac
}

section "install as a package's postinst would, start through the socket"
check "sysusers.d makes the slicelab user" bash -c 'systemd-sysusers && getent passwd slicelab >/dev/null'
check "tmpfiles.d entries apply" systemd-tmpfiles --create
check "systemctl start slicelabd.socket" systemctl start slicelabd.socket
check_eq "the socket listens, the service waits for a client" "active inactive" \
    "$(systemctl is-active slicelabd.socket) $(systemctl is-active $UNIT)"
t0=$(date +%s.%N)
api GET /v1/health
check_eq "the first curl activates the daemon and is answered" 200 "$HTTP_STATUS"
echo "# first request answered after $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }") s (activation included)"
check_eq "systemctl is-active slicelabd" active "$(systemctl is-active $UNIT)"
check_eq "the daemon reports this boot's cgroup mode" "$MODE" "$(jq -r .cgroup.mode <<<"$BODY")"
DAEMON_PID=$(unit_prop MainPID)
if [ "$MODE" = v2 ]; then
    check_eq "the daemon moved itself into supervisor/ of its delegated cgroup" \
        "0::/system.slice/$UNIT/supervisor" "$(cat "/proc/$DAEMON_PID/cgroup")"
fi
DAEMON_PID= # systemd's, not lib.sh's to stop
check "the token was made at first start, mode 0600" test "$(stat -c %a /var/lib/slicelab/token)" = 600
# shellcheck disable=SC2034
DAEMON_TOKEN=$(cat /var/lib/slicelab/token)

section "a run under cpu_quota 0.5"
post_experiment "$(definition --name q --cell half:0:0.5 -- "$SPIN" --threads 2 --seconds 8)"
check_eq "POST /v1/experiments with the token" 201 "$HTTP_STATUS"
RUN=$(first_run "$EXP_ID")
wait_for 120 run_finished "$RUN"
check_eq "the run succeeds" succeeded "$(run_outcome "$RUN")"
throttled=$(run_field "$RUN" .metrics.cgroup.nr_throttled)
echo "# nr_throttled $throttled, cpu_usage_s $(run_field "$RUN" .metrics.cgroup.cpu_usage_s)"
check "it was throttled (nr_throttled $throttled > 0)" test "${throttled:-0}" -gt 0 2>/dev/null
check "its slices are gone" no_slices_of "$RUN"
check "journalctl SLICELAB_RUN= tells the run's story" \
    test -n "$(journalctl -q --after-cursor="$JOURNAL_CURSOR" "SLICELAB_RUN=$RUN" -o cat)"

section "systemctl stop in the middle of a run"
long_run stop
check_placement "$RUN" "$PID"
systemctl stop $UNIT
check_eq "systemctl stop: the service is inactive, the socket stays" "inactive active" \
    "$(systemctl is-active $UNIT) $(systemctl is-active slicelabd.socket)"
check "no process of the run is left" not alive "$PID"
check "no cgroup of the run is left" no_slices_of "$RUN"
check "no slicelab-spin is left" test -z "$(procs_with '[s]licelab-spin')"
check "systemd removed the service's cgroup" test ! -e "$SERVICE_CG"
if [ "$MODE" != v2 ]; then
    check "the daemon removed its cgroup root" test ! -e /sys/fs/cgroup/cpu/slicelab
fi
api GET "/v1/runs/$RUN"
check_eq "the next client starts it again; the run reads interrupted" "200 interrupted daemon_shutdown" \
    "$HTTP_STATUS $(jq -r '"\(.state) \(.reason)"' <<<"$BODY")"

section "the watchdog: a stopped daemon is restarted, its run interrupted"
mkdir -p /run/systemd/system/$UNIT.d
printf '[Service]\nWatchdogSec=6s\n' > /run/systemd/system/$UNIT.d/50-test-watchdog.conf
systemctl daemon-reload
systemctl restart $UNIT
check_eq "a drop-in sets WatchdogSec=6s" 6s "$(unit_prop WatchdogUSec)"
long_run watchdog
old=$(unit_prop MainPID)
restarts=$(unit_prop NRestarts)
t0=$(date +%s.%N)
kill -STOP "$old"
wait_for 120 restarted "$old"
check_eq "systemd restarted the stopped daemon" "$((restarts + 1)) active" "$(unit_prop NRestarts) $(systemctl is-active $UNIT)"
echo "# SIGSTOP to a new main PID: $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s"
check "because of the watchdog" bash -c "journalctl -q --after-cursor='$JOURNAL_CURSOR' -u $UNIT -o cat | grep -q 'Watchdog timeout'"
check "the hung daemon is gone" not alive "$old"
wait_for 30 nothing_of_run "$RUN" "$PID"
check "its run's process and cgroups are gone" nothing_of_run "$RUN" "$PID"
check_eq "the run it had is interrupted" "interrupted daemon_restart" "$(run_field "$RUN" '"\(.state) \(.reason)"')"

section "--run-as: the runs' processes as the sysusers.d user"
rm /run/systemd/system/$UNIT.d/50-test-watchdog.conf
exec_start=$(systemctl show -p ExecStart --value $UNIT | sed -n 's/.*argv\[\]=\([^;]*\) ;.*/\1/p')
printf '[Service]\nExecStart=\nExecStart=%s --run-as slicelab\n' "$exec_start" \
    > /run/systemd/system/$UNIT.d/50-test-run-as.conf
systemctl daemon-reload
systemctl restart $UNIT
# The SUT reports its own uid as its result: a look at /proc/PID from here races with the end of
# an 8 s run on a slow guest (its process can be gone between two requests).
printf '#!/bin/sh\n"$1" --threads 1 --seconds 8 > /dev/null || exit 1\necho "{\\"ops_per_s\\": $(id -u)}"\n' \
    > /run/slicelab-uid-sut
chmod 0755 /run/slicelab-uid-sut
post_experiment "$(definition --name run-as --cell half:0:0.5 -- /run/slicelab-uid-sut "$SPIN")"
RUN=$(first_run "$EXP_ID")
wait_for 120 run_finished "$RUN"
check_eq "--run-as slicelab: the SUT ran as that user (its result is its uid)" "$(id -u slicelab)" \
    "$(run_field "$RUN" .metrics.ops_per_s)"
check_eq "--run-as slicelab: the run succeeds" succeeded "$(run_outcome "$RUN")"
rm /run/slicelab-uid-sut

section "leave the guest as found"
rm -r /run/systemd/system/$UNIT.d
systemctl daemon-reload
systemctl stop slicelabd.socket $UNIT
check "after the last stop no slicelab process remains" test -z "$(procs_with '[s]licelab')"
check "nor any cgroup of a run or of the daemon" \
    test -z "$(find /sys/fs/cgroup -maxdepth 4 -type d \( -name 'run-*' -o -name slicelab -o -name $UNIT \))"
if [ "$T_FAIL" -gt 0 ]; then
    echo "# the service's journal:"
    journalctl -q --after-cursor="$JOURNAL_CURSOR" -u $UNIT -o short-monotonic | tail -n 60 | sed 's/^/#   /'
fi
finish && verdict 0
verdict 1
