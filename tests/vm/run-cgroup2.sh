#!/bin/bash
# run-cgroup2.sh TEST-BINARY...: boots Debian's kernel under QEMU with a busybox initramfs on a
# pure cgroup v2 hierarchy (no v1 controllers, no systemd), runs each binary as root (they must
# pass on v2), then checks that no cgroup is left behind. Exit 0 = passed, 1 = failed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
[ $# -ge 1 ] || vm_die "usage: $0 TEST-BINARY..."
[ "$(id -u)" -eq 0 ] || vm_die "needs root (apt-get, qemu)"

vm_need_packages qemu-system-x86 linux-image-amd64 busybox-static cpio
KVER=$(vm_kernel_version)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slicelab-vm-cgroup2.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/initramfs
mkdir -p "$ROOT"/{bin,proc,sys,dev,tmp,tests}
cp /bin/busybox "$ROOT/bin/busybox"
for b in "$@"; do cp "$b" "$ROOT/tests/"; done
vm_copy_libs "$ROOT" "$@"

cat > "$ROOT/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
verdict() {
    echo "GUEST: verdict $1 at uptime $(cut -d' ' -f1 /proc/uptime)s"
    printf "\\$(printf %03o "$1")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
    poweroff -f
}
echo "GUEST: kernel $(uname -r), controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
grep -q '^cgroup ' /proc/mounts && { echo "GUEST: v1 hierarchies are mounted"; verdict 1; }
fail=0
for t in /tests/*; do
    echo "GUEST: running $t"
    SLICELAB_TEST_EMULATED=1 SLICELAB_EXPECT_MODE=v2 SLICELAB_EXPECT_DELEGATED=0 "$t"
    rc=$?
    echo "GUEST: $t exit $rc"
    [ $rc -eq 0 ] || fail=1
done
left=$(find /sys/fs/cgroup -mindepth 1 -type d)
if [ -n "$left" ]; then echo "GUEST: cgroups left behind: $left"; fail=1; fi
verdict $fail
INIT
chmod +x "$ROOT/init"
vm_pack_initramfs "$ROOT" "$WORK/initramfs.cpio.gz"

rc=0
vm_boot "$WORK/console.log" -kernel "/boot/vmlinuz-$KVER" -initrd "$WORK/initramfs.cpio.gz" \
    -append "cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1 $VM_KERNEL_ARGS" || rc=$?
vm_verdict $rc "$WORK/console.log" "cgroup v2 guest"
