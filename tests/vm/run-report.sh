#!/bin/bash
# run-report.sh: lib.sh's watch of the guest console, on two busybox guests that never give a
# verdict. In the first the kernel prints a soft lockup's report line (written to /dev/kmsg: a
# real lockup cannot be made to order) and then every CPU's backtrace (sysrq l), and the guest
# waits forever; the second panics (sysrq c) and so ends itself, as a guest whose watchdog
# panics does. Each must end as a failure that names the report and shows the kernel's stack,
# with the guest stopped by the watch or ended by its panic, not by VM_TIMEOUT.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/../lib.sh"
[ "$(id -u)" -eq 0 ] || vm_die "needs root (apt-get, qemu)"

vm_need_packages qemu-system-x86 linux-image-amd64 busybox-static cpio
KVER=$(vm_kernel_version)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slicelab-vm-report.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# guest NAME COMMANDS: boots a busybox initramfs whose init runs COMMANDS after mounting /proc
# and /dev; sets RC (vm_boot's), QEMU_RC, LOG and OUT (what vm_verdict prints).
guest() {
    local name=$1 commands=$2 root=$WORK/$1
    mkdir -p "$root"/{bin,proc,dev}
    cp /bin/busybox "$root/bin/busybox"
    printf '#!/bin/busybox sh\n/bin/busybox --install -s /bin\nmount -t proc proc /proc\nmount -t devtmpfs devtmpfs /dev\n%s\n' \
        "$commands" > "$root/init"
    chmod +x "$root/init"
    vm_pack_initramfs "$root" "$WORK/$name.cpio.gz"
    LOG=$WORK/$name.log
    RC=0
    vm_boot "$LOG" -kernel "/boot/vmlinuz-$KVER" -initrd "$WORK/$name.cpio.gz" -append "$VM_KERNEL_ARGS" \
        2> "$WORK/$name.boot" || RC=$?
    cat "$WORK/$name.boot" >&2
    QEMU_RC=$(sed -n 's/^vm: qemu exit \([0-9]*\) .*/\1/p' "$WORK/$name.boot")
    OUT=$( (vm_verdict "$RC" "$LOG" "$name") 2>&1) || true
    sed "s/^/# $name: /" <<<"$OUT"
}

# report_checks NAME PATTERN: what every guest with a kernel report must show: the failure names
# it, and the output ends with the report line and the kernel's stack after it.
report_checks() {
    check_eq "$1: no verdict" 2 "$RC"
    check "$1: the guest ended before VM_TIMEOUT (qemu exit $QEMU_RC)" test -n "$QEMU_RC" -a "$QEMU_RC" != 124
    check_match "$1: the failure names the report" "FAIL: $1: the guest kernel reported: .*$2" "$OUT"
    check_eq "$1: after the console, the report and a stack" "report: $2; Call Trace: yes" \
        "$(awk -v want="$2" '
            /^guest: / { seen = 0; stack = 0; next }
            /^report: / { if (index($0, want)) seen = 1; else if (seen && /Call Trace:/) stack = 1 }
            END { printf "report: %s; Call Trace: %s", seen ? want : "none", stack ? "yes" : "no" }' <<<"$OUT")"
}

VM_TIMEOUT=600
VM_REPORT_GRACE=10
guest lockup 'cd /proc/sys/kernel
echo "GUEST: softlockup_panic $(cat softlockup_panic), softlockup_all_cpu_backtrace $(cat softlockup_all_cpu_backtrace), panic_on_rcu_stall $(cat panic_on_rcu_stall), panic $(cat panic), printk $(cut -f1 printk)"
echo "<0>watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [init:1]" > /dev/kmsg
echo l > /proc/sysrq-trigger
echo "GUEST: reported; waiting for the host to stop me"
while :; do sleep 3600; done'
report_checks lockup "soft lockup - CPU#0 stuck for 22s"
check "lockup: VM_KERNEL_ARGS took: a lockup or stall panics with every CPU's stack, then resets" \
    grep -q "GUEST: softlockup_panic 1, softlockup_all_cpu_backtrace 1, panic_on_rcu_stall 1, panic -1, printk 5" "$LOG"
check "lockup: the guest ran on after the report, until the watch stopped it" \
    grep -q "waiting for the host to stop me" "$LOG"
check "lockup: the watch stopped the guest" grep -q "^vm: stopping the guest" "$WORK/lockup.boot"

# The panic ends the guest by itself (a reset QEMU turns into an exit), however long that takes
# on a loaded host: the watch must not be what stops it.
VM_REPORT_GRACE=$VM_TIMEOUT
guest panic 'echo c > /proc/sysrq-trigger'
report_checks panic "Kernel panic - not syncing: sysrq triggered crash"
check "panic: the guest ended itself (panic=-1 and -no-reboot), the watch did not stop it" \
    not grep -q "^vm: stopping the guest" "$WORK/panic.boot"

finish
