#!/bin/bash
# package-guest.sh: runs inside the guest of run-package.sh (Debian 12, systemd as PID 1, no
# network), as a service started at boot with its output on the serial console. What a lab host
# relies on from the packages: `apt-get install ./…deb` makes the user and starts the daemon,
# the client runs an experiment, an upgrade keeps it and restarts the daemon, and a purge leaves
# nothing behind. Its verdict goes to QEMU's isa-debug-exit port.

verdict() {
    echo "GUEST: verdict $1 at uptime $(cut -d' ' -f1 /proc/uptime)s"
    printf "\\$(printf %03o "$1")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
    systemctl poweroff --force --force
}
state=$(systemctl is-system-running --wait)
echo "GUEST: system $state at uptime $(cut -d' ' -f1 /proc/uptime)s; $(systemctl --version | head -n1)"
read -r V1 V2 < /tests/versions
UNITS=(slicelabd.socket slicelabd.service)
section() { echo "# $1 (uptime $(cut -d' ' -f1 /proc/uptime) s)"; }
# apt-get install of the three packages in DIR; the guest has no package lists nor network, so
# every dependency must be installed already (no Recommends: slicelab-sut needs a JRE).
install_from() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        "$1"/slicelabd_*.deb "$1"/slicelab-inject_*.deb "$1"/slicelab_*.deb 2>&1 | sed 's/^/#   /'
    [ "${PIPESTATUS[0]}" -eq 0 ]
}
installed_version() { dpkg-query -W -f '${Version}' slicelabd 2>/dev/null; }
main_pid() { systemctl show -p MainPID --value slicelabd.service; }

user_before=$(getent passwd slicelab || echo none)
section "apt-get install ./slicelabd_$V1 ./slicelab-inject_$V1 ./slicelab_$V1"
install_from /tests/v1
install_rc=$?
user_after=$(getent passwd slicelab | cut -d: -f1,6)
# Sourced only now: tests/lib.sh makes the slicelab user when it is missing.
SLICELAB_BUILD=/nonexistent SLICELAB_SRC=/tests . /tests/lib.sh || verdict 1
check_eq "the packages install" "0 $V1" "$install_rc $(installed_version)"
check_eq "no slicelab user before, sysusers.d made it" "none slicelab:/var/lib/slicelab/runs" \
    "$user_before $user_after"
check_eq "the socket and the service are enabled" "enabled enabled" \
    "$(systemctl is-enabled "${UNITS[@]}" | tr '\n' ' ' | sed 's/ $//')"
check_eq "and started" "active active" "$(systemctl is-active "${UNITS[@]}" | tr '\n' ' ' | sed 's/ $//')"
check "slicelab health answers through the socket" slicelab health
check "/etc/slicelab/slicelabd.conf is a conffile" grep -qx /etc/slicelab/slicelabd.conf /var/lib/dpkg/info/slicelabd.conffiles

section "one experiment with the client"
definition --name package --cell half:0:0.5 -- /usr/bin/slicelab-spin --threads 1 --seconds 4 > /tmp/spin.json
EXP=$(slicelab submit /tmp/spin.json)
check "slicelab submit prints the experiment's id" test -n "$EXP"
slicelab wait "$EXP" | tail -n 3 | sed 's/^/#   /'
check_eq "slicelab wait: the experiment succeeded" succeeded "$(slicelab --json status "$EXP" | jq -r .status)"
RUNS_BEFORE=$(slicelab --json runs "$EXP" | jq -c '[.runs[] | {id, state}]')
echo "# runs: $RUNS_BEFORE"
PID_BEFORE=$(main_pid)

section "apt-get install ./…_$V2: the upgrade"
install_from /tests/v2
upgrade_rc=$?
check_eq "the packages upgrade" "0 $V2" "$upgrade_rc $(installed_version)"
check_eq "the socket and the service are active" "active active" \
    "$(systemctl is-active "${UNITS[@]}" | tr '\n' ' ' | sed 's/ $//')"
PID_AFTER=$(main_pid)
check "the daemon was restarted (main pid $PID_BEFORE, then $PID_AFTER)" \
    test "$PID_AFTER" != 0 -a "$PID_AFTER" != "$PID_BEFORE"
check_eq "the experiment is still there, with its runs" "succeeded $RUNS_BEFORE" \
    "$(slicelab --json status "$EXP" | jq -r .status) $(slicelab --json runs "$EXP" | jq -c '[.runs[] | {id, state}]')"

section "apt-get purge"
DEBIAN_FRONTEND=noninteractive apt-get purge -y slicelabd slicelab-inject slicelab 2>&1 | sed 's/^/#   /'
check_eq "apt-get purge succeeds, no package is left" "0 " \
    "${PIPESTATUS[0]} $(dpkg-query -W -f '${Package} ${Status}\n' 'slicelab*' 2>/dev/null | grep -v ' not-installed$')"
check "the state dir is gone" test ! -e /var/lib/slicelab
check "the configuration is gone" test ! -e /etc/slicelab
check_eq "the user and its group are gone" "" "$(getent passwd slicelab; getent group slicelab)"
check_eq "no unit file or enablement link is left" "" \
    "$(find /etc/systemd /lib/systemd /usr/lib/systemd /var/lib/systemd/deb-systemd-helper-enabled -name 'slicelabd*' 2>/dev/null)"
check_eq "systemd knows no slicelabd unit" "" "$(systemctl list-units --all --plain --no-legend 'slicelabd*')"
check "no slicelab process is left" test -z "$(grep -ls '[s]licelab' /proc/[0-9]*/cmdline)"
check_eq "no cgroup of the daemon or of a run is left" "" \
    "$(find /sys/fs/cgroup -maxdepth 4 -type d \( -name 'run-*' -o -name slicelab -o -name 'slicelabd*' \) 2>/dev/null)"
check "nor /run/slicelab" test ! -e /run/slicelab
finish && verdict 0
verdict 1
