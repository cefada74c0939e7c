# lib.sh: shared parts of the QEMU guest tests (sourced by run-*.sh): installing what a guest
# needs, copying test binaries with their libraries, booting Debian's kernel under QEMU and
# turning the guest's verdict into an exit code.
#
# A guest reports its verdict through QEMU's isa-debug-exit port (0xf4): writing byte v makes
# QEMU exit with (v << 1) | 1, so 1 = passed and 3 = failed; anything else (a panic, a hang
# ended by the timeout, a guest that never got as far as its test) means no verdict, which
# fails the test: a guest that cannot boot is a failure, never a skip.

VM_TIMEOUT=${VM_TIMEOUT:-900}
VM_SMP=${VM_SMP:-2}
VM_MEM=${VM_MEM:-1024}
VM_CACHE=${SLICELAB_VM_CACHE:-/var/cache/slicelab-vm}
# After a kernel report, how long the host reads on for its stack before it stops the guest.
VM_REPORT_GRACE=${VM_REPORT_GRACE:-30}

# Every guest kernel's command line, after the caller's own arguments. Debian's kernel prints a
# soft lockup's or an RCU stall's stack at the default message level (4), which `quiet` keeps
# off the console (it shows levels below 4): loglevel=5 lets it through, boot stays quiet. A soft
# lockup or an RCU stall then prints every CPU's backtrace and panics; panic=-1 reboots, which
# QEMU's -no-reboot turns into an exit, so a stuck guest ends with its stack instead of waiting
# for VM_TIMEOUT.
VM_KERNEL_ARGS="console=ttyS0 quiet loglevel=5 softlockup_all_cpu_backtrace=1 softlockup_panic=1"
VM_KERNEL_ARGS+=" sysctl.kernel.panic_on_rcu_stall=1 panic=-1"

# The kernel's own lines that say the guest is stuck or broken, matched after the printk
# timestamp (Debian's kernel has CONFIG_PRINTK_TIME) so that what a test prints cannot match;
# anywhere in the line, which may begin with what the guest's userspace left unfinished:
# "watchdog: BUG: soft lockup", "rcu: INFO: rcu_preempt self-detected stall on CPU",
# "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks", "Kernel panic - not syncing", an oops.
VM_KERNEL_REPORT='\[ *[0-9]+\.[0-9]+\] (.*BUG: |.*Kernel panic - not syncing|Oops|general protection fault|rcu: INFO: rcu_[a-z_]+ (self-)?detected stall)'

vm_log() { echo "vm: $*" >&2; }
vm_die() { vm_log "FAIL: $*"; exit 1; }

# Install the Debian packages a guest needs when they are missing (root, Debian's registry).
vm_need_packages() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    vm_log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
        { apt-get update >&2 && apt-get install -y --no-install-recommends "${missing[@]}" >&2; } ||
        vm_die "cannot install ${missing[*]}"
}

# The newest Debian kernel in /boot (VM_KERNEL overrides), printed as its version.
vm_kernel_version() {
    if [ -n "${VM_KERNEL:-}" ]; then echo "$VM_KERNEL"; return; fi
    local k
    k=$(ls -1v /boot/vmlinuz-* 2>/dev/null | tail -n1) || true
    [ -n "$k" ] || vm_die "no kernel in /boot (linux-image-amd64)"
    echo "${k#/boot/vmlinuz-}"
}

# vm_copy_libs ROOT BINARY...: the shared libraries of each binary (from ldd) into ROOT at the
# same absolute paths, unless ROOT already has them.
vm_copy_libs() {
    local root=$1 b lib
    shift
    for b in "$@"; do
        ldd "$b" | grep -o '/[^ ]*' | while read -r lib; do
            [ -e "$root$lib" ] && continue
            mkdir -p "$root$(dirname "$lib")"
            cp -L "$lib" "$root$lib"
        done
    done
}

# vm_watch_console LOG PID: copies the console from stdin into LOG line by line as the guest
# writes it. At the first kernel report (VM_KERNEL_REPORT) it reads on for the stack until the
# console ends (the guest panicked and QEMU exited) or VM_REPORT_GRACE seconds have passed, then
# stops PID; VM_REPORT_LINE is set to that line's number in LOG, 0 without a report.
vm_watch_console() {
    local log=$1 pid=$2 line n=0 deadline=0 left st timed_out=0
    VM_REPORT_LINE=0
    while :; do
        line=
        st=0
        if [ "$VM_REPORT_LINE" -eq 0 ]; then
            IFS= read -r line || st=$?
        else
            left=$((deadline - EPOCHSECONDS))
            [ $left -gt 0 ] || { timed_out=1; break; }
            IFS= read -r -t "$left" line || st=$?
            [ $st -le 128 ] || timed_out=1
        fi
        line=${line%$'\r'}
        [ $st -eq 0 ] || [ -z "$line" ] || printf '%s\n' "$line"
        [ $st -eq 0 ] || break
        printf '%s\n' "$line"
        n=$((n + 1))
        if [ "$VM_REPORT_LINE" -eq 0 ] && [[ $line =~ $VM_KERNEL_REPORT ]]; then
            VM_REPORT_LINE=$n
            deadline=$((EPOCHSECONDS + VM_REPORT_GRACE))
        fi
    done > "$log"
    # Not at the console's end: the guest runs on after its report.
    if [ $timed_out -eq 1 ]; then
        vm_log "stopping the guest $VM_REPORT_GRACE s after its kernel's report"
        kill "$pid" 2>/dev/null || true
    fi
}

# vm_boot LOG QEMU-ARGS...: boots with the console in LOG; returns 0 = passed, 1 = failed,
# 2 = no verdict (call as `vm_boot ... || rc=$?` under set -e). Prints the wall time. A kernel
# report on the console is no verdict, whatever the guest says after it (VM_REPORT_LINE tells
# vm_verdict where it is).
vm_boot() {
    local log=$1 rc start end qemu
    shift
    start=$(date +%s.%N)
    rc=0
    rm -f "$log.fifo"
    mkfifo "$log.fifo" || { vm_log "cannot make the console's fifo $log.fifo"; return 2; }
    timeout "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -m "$VM_MEM" -smp "$VM_SMP" \
        -nographic -no-reboot -nic none -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        "$@" < /dev/null > "$log.fifo" 2>&1 &
    qemu=$!
    vm_watch_console "$log" "$qemu" < "$log.fifo"
    wait "$qemu" || rc=$?
    rm -f "$log.fifo"
    end=$(date +%s.%N)
    vm_log "qemu exit $rc after $(awk "BEGIN { printf \"%.1f\", $end - $start }") s wall"
    if [ "$VM_REPORT_LINE" -gt 0 ]; then
        vm_log "the guest kernel reported: $(sed -n "${VM_REPORT_LINE}p" "$log")"
        return 2
    fi
    case $rc in
        1) return 0 ;;
        3) return 1 ;;
        124) vm_log "timeout after $VM_TIMEOUT s"; return 2 ;;
        *) return 2 ;;
    esac
}

# vm_test_unit ROOTFS DESCRIPTION COMMAND: a unit that runs the guest's tests at boot, with their
# output on the serial console the host reads.
vm_test_unit() {
    local rootfs=$1 description=$2 command=$3
    cat > "$rootfs/etc/systemd/system/slicelab-vmtest.service" <<UNIT
[Unit]
Description=$description
[Service]
Type=simple
ExecStart=$command
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
[Install]
WantedBy=multi-user.target
UNIT
    ln -sf /etc/systemd/system/slicelab-vmtest.service \
        "$rootfs/etc/systemd/system/multi-user.target.wants/slicelab-vmtest.service"
}

# vm_pack_initramfs DIR OUT: DIR as a gzipped cpio initramfs in OUT.
vm_pack_initramfs() {
    (cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) > "$2"
}

# vm_root_initramfs OUT KVER: a busybox initramfs in OUT that loads the three drivers the root
# disk needs (virtio_pci, virtio_blk, ext4, with what they depend on, from the host's
# /lib/modules/KVER) and hands /dev/vda over to systemd. It replaces Debian's generic initrd
# (31 MB, udev and module probing for every device): under emulation that took 8-10 s more per
# boot on an idle host, and more under load.
vm_root_initramfs() {
    local out=$1 kver=$2 dir mod name
    dir=$(mktemp -d "${TMPDIR:-/tmp}/slicelab-vm-initramfs.XXXXXX")
    mkdir -p "$dir"/{bin,proc,sys,dev,newroot,modules}
    cp /bin/busybox "$dir/bin/busybox"
    # In load order, each module after the ones it needs; a compressed one is unpacked here
    # (busybox's insmod takes plain .ko).
    for mod in $(for name in virtio_pci virtio_blk ext4; do modprobe -S "$kver" --show-depends "$name"; done |
        awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
        case $mod in
            *.ko) cp "$mod" "$dir/modules/" ;;
            *.ko.xz) xz -dc "$mod" > "$dir/modules/$(basename "$mod" .xz)" ;;
            *.ko.zst) zstd -qdc "$mod" > "$dir/modules/$(basename "$mod" .zst)" ;;
            *) vm_log "cannot load $mod in the initramfs"; rm -rf "$dir"; return 1 ;;
        esac
        basename "${mod%.xz}" .zst >> "$dir/modules/order"
    done
    [ -s "$dir/modules/order" ] || { vm_log "no modules for $kver (linux-image-amd64, kmod)"; rm -rf "$dir"; return 1; }
    cat > "$dir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do insmod "/modules/$m" || echo "initramfs: insmod $m failed"; done < /modules/order
# The disk's node appears once virtio_blk has probed it, which may finish after insmod returns.
tries=0
until mount -t ext4 -o rw /dev/vda /newroot 2>/dev/null; do
    tries=$((tries + 1))
    [ $tries -lt 100 ] || { echo "initramfs: cannot mount /dev/vda"; poweroff -f; }
    sleep 0.1
done
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
INIT
    chmod +x "$dir/init"
    vm_pack_initramfs "$dir" "$out"
    rm -rf "$dir"
}

# vm_boot_systemd LOG WORKDIR ROOTFS KVER KERNEL-ARGS: ROOTFS as an ext4 image in WORKDIR, booted
# with kernel KVER from /boot and systemd as PID 1; returns as vm_boot.
vm_boot_systemd() {
    local log=$1 work=$2 rootfs=$3 kver=$4 args=$5
    mkfs.ext4 -q -F -L root -d "$rootfs" "$work/rootfs.img" 2G || { vm_log "mkfs.ext4 failed"; return 2; }
    vm_root_initramfs "$work/initramfs.cpio.gz" "$kver" || { vm_log "no initramfs"; return 2; }
    vm_boot "$log" -kernel "/boot/vmlinuz-$kver" -initrd "$work/initramfs.cpio.gz" \
        -drive file="$work/rootfs.img",format=raw,if=virtio \
        -append "root=/dev/vda rw $args $VM_KERNEL_ARGS"
}

# vm_verdict RC LOG NAME: print the console and exit with the test's result.
vm_verdict() {
    local rc=$1 log=$2 name=$3
    sed 's/^/guest: /' "$log"
    if [ "${VM_REPORT_LINE:-0}" -gt 0 ]; then
        # Again at the end, where a reader of the test's output looks first: the report, the
        # lines before it and the stacks after it (up to 300 lines).
        vm_log "the guest kernel's report (console line $VM_REPORT_LINE) and what followed it:"
        sed -n "$((VM_REPORT_LINE > 10 ? VM_REPORT_LINE - 10 : 1)),$((VM_REPORT_LINE + 300))p" "$log" |
            sed 's/^/report: /'
        vm_die "$name: the guest kernel reported: $(sed -n "${VM_REPORT_LINE}p" "$log")"
    fi
    case $rc in
        0) vm_log "$name: PASS"; exit 0 ;;
        1) vm_die "$name: a test in the guest failed" ;;
        *) vm_die "$name: the guest gave no verdict (did it boot?)" ;;
    esac
}

# vm_debootstrap ROOTFS INCLUDE: a minimal bookworm with systemd in ROOTFS, made once from the
# mirror this machine's apt uses (built aside and renamed, so an interrupted build is redone).
vm_debootstrap() {
    local rootfs=$1 include=$2 mirror
    [ -x "$rootfs/lib/systemd/systemd" ] && return 0
    mirror=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
        sed -n 's/^URIs: *//p; s/^deb  *\(\[[^]]*\] *\)\{0,1\}\([^ ]*\) .*/\2/p' |
        grep -v security | head -n1 || true)
    [ -n "$mirror" ] || vm_die "no apt mirror found in the apt sources"
    vm_log "debootstrap bookworm from $mirror into $rootfs (once)"
    rm -rf "$rootfs.tmp"
    debootstrap --variant=minbase --include="$include" bookworm "$rootfs.tmp" "$mirror" >&2 ||
        vm_die "debootstrap failed"
    echo slicelab-vm > "$rootfs.tmp/etc/hostname"
    echo "/dev/vda / ext4 rw,relatime 0 1" > "$rootfs.tmp/etc/fstab"
    ln -sf /dev/null "$rootfs.tmp/etc/systemd/system/serial-getty@ttyS0.service"
    mv "$rootfs.tmp" "$rootfs"
}

# vm_service_rootfs ROOT: a copy in ROOT of the Debian 12 rootfs the service guests boot (cached).
# The daemon's libraries come from Debian's packages, as on a user's machine; the sanitizer
# runtimes let an ASan build run too. Its own cache key, so run-systemd.sh's rootfs stays as it is.
vm_service_rootfs() {
    local root=$1 include cached
    include=systemd-sysv,udev,dbus,libmicrohttpd12,libcjson1,libsqlite3-0,libcgroup2,curl,jq,libasan8,libubsan1
    mkdir -p "$VM_CACHE"
    cached=$VM_CACHE/rootfs-service-bookworm-$(echo "$include" | md5sum | cut -c1-8)
    (
        flock 8 # one builder; the cached tree is only read afterwards
        vm_debootstrap "$cached" "$include"
    ) 8> "$cached.lock"
    cp -a "$cached" "$root"
}
