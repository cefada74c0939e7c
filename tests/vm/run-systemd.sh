#!/bin/bash
# run-systemd.sh TEST-BINARY...: boots a debootstrapped Debian 12 (cached) under QEMU with
# systemd as PID 1 on cgroup v2, runs each binary in a transient service with Delegate=yes, and
# checks afterwards that no cgroup exists that was not there before (everything the test made
# lived in the service's own subtree, which systemd removed with the service).
# Exit 0 = passed, 1 = failed. The rootfs is cached in $SLICELAB_VM_CACHE (/var/cache/slicelab-vm).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
[ $# -ge 1 ] || vm_die "usage: $0 TEST-BINARY..."
[ "$(id -u)" -eq 0 ] || vm_die "needs root (apt-get, debootstrap, qemu)"

vm_need_packages qemu-system-x86 linux-image-amd64 debootstrap e2fsprogs busybox-static cpio kmod
KVER=$(vm_kernel_version)

# Libraries of the test binaries come from Debian packages where possible (libc stays the
# rootfs' own); the sanitizer runtimes let an ASan build run too.
INCLUDE=systemd-sysv,udev,dbus,libcgroup2,libcmocka0,libasan8,libubsan1
mkdir -p "$VM_CACHE"
ROOTFS=$VM_CACHE/rootfs-bookworm-$(echo "$INCLUDE" | md5sum | cut -c1-8)
exec 9> "$VM_CACHE/lock"
flock 9 # one guest at a time uses (and writes into) the cached rootfs

vm_debootstrap "$ROOTFS" "$INCLUDE"

# What the guest runs, refreshed on every run.
rm -rf "$ROOTFS/tests"
mkdir -p "$ROOTFS/tests"
for b in "$@"; do cp "$b" "$ROOTFS/tests/"; done
vm_copy_libs "$ROOTFS" "$@"
install -m 0755 /dev/stdin "$ROOTFS/usr/local/sbin/slicelab-vmtest" <<'GUEST'
#!/bin/sh
# Runs in the guest as a service once the system is up; its output goes to the serial console.
verdict() {
    echo "GUEST: verdict $1 at uptime $(cut -d' ' -f1 /proc/uptime)s"
    printf "\\$(printf %03o "$1")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
    systemctl poweroff --force --force
}
state=$(systemctl is-system-running --wait)
echo "GUEST: system $state at uptime $(cut -d' ' -f1 /proc/uptime)s; $(systemctl --version | head -n1); cgroup fs $(stat -fc %T /sys/fs/cgroup)"
[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || { echo "GUEST: not on cgroup v2"; verdict 1; }
fail=0
for t in /tests/*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    find /sys/fs/cgroup -type d | sort > /run/cg-before
    echo "GUEST: running $t in a transient service with Delegate=yes"
    systemd-run --quiet --wait --pipe --unit=slicelab-vmtest-run -p Delegate=yes \
        -E SLICELAB_TEST_EMULATED=1 -E SLICELAB_EXPECT_MODE=v2 -E SLICELAB_EXPECT_DELEGATED=1 "$t"
    rc=$?
    echo "GUEST: $t exit $rc"
    [ $rc -eq 0 ] || fail=1
    find /sys/fs/cgroup -type d | sort > /run/cg-after
    new=$(comm -13 /run/cg-before /run/cg-after)
    if [ -n "$new" ]; then echo "GUEST: cgroups outside the service's subtree remain: $new"; fail=1; fi
done
verdict $fail
GUEST
vm_test_unit "$ROOTFS" "slicelab cgroup tests under systemd" /usr/local/sbin/slicelab-vmtest

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slicelab-vm-systemd.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
rc=0
vm_boot_systemd "$WORK/console.log" "$WORK" "$ROOTFS" "$KVER" systemd.unified_cgroup_hierarchy=1 || rc=$?
vm_verdict $rc "$WORK/console.log" "systemd guest"
