#!/bin/bash
# run-service.sh MODE BUILD-DIR: slicelabd as a systemd service, the way a package installs it.
# `meson install` of BUILD-DIR is staged into a copy of a debootstrapped Debian 12 (cached, with
# the daemon's runtime libraries, curl and jq from Debian's packages), then:
#   v2      boots it under QEMU with systemd as PID 1 on the unified hierarchy and runs
#           service-guest.sh there (socket activation, a throttled run in the service's own
#           subtree, stop, watchdog restart);
#   v1      the same on the legacy hierarchy;
#   hybrid  the same on systemd's hybrid layout (v1 controllers, its own tree on cgroup2);
#   verify  no boot: `systemd-analyze verify` of every installed unit against that rootfs
#           (its own systemd 252 units, the installed binaries and man pages) must print nothing.
# Exit 0 = passed, 1 = failed. A guest that gives no verdict fails (lib.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
[ $# -eq 2 ] || vm_die "usage: $0 v2|v1|hybrid|verify BUILD-DIR"
MODE=$1
BUILD=$(cd "$2" && pwd)
case $MODE in v2 | v1 | hybrid | verify) ;; *) vm_die "unknown mode '$MODE' (v2, v1, hybrid or verify)" ;; esac
[ "$(id -u)" -eq 0 ] || vm_die "needs root (apt-get, debootstrap, qemu)"

vm_need_packages qemu-system-x86 linux-image-amd64 debootstrap e2fsprogs busybox-static cpio kmod systemd man-db
KVER=$(vm_kernel_version)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slicelab-vm-service.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root
vm_service_rootfs "$ROOT"

# The install, as `meson install` lays it out; tar keeps the rootfs' merged-/usr symlinks
# (/lib -> usr/lib) where the install has real directories.
meson install -C "$BUILD" --no-rebuild --quiet --destdir "$WORK/stage" >&2 ||
    vm_die "meson install of $BUILD failed"
tar -C "$WORK/stage" -cf - . | tar -C "$ROOT" -xf - --keep-directory-symlink
mapfile -t BINARIES < <(find "$WORK/stage" -type f -perm -u+x)
[ ${#BINARIES[@]} -ge 3 ] || vm_die "the install has fewer than 3 executables (${BINARIES[*]:-none})"
vm_copy_libs "$ROOT" "${BINARIES[@]}" # only what the packages lack (an ASan build's runtime)
UNITS=()
for u in slicelabd.service slicelabd.socket; do
    f=$(cd "$WORK/stage" && find . -path "*/systemd/system/$u" | head -n1)
    [ -n "$f" ] || vm_die "the install has no $u"
    UNITS+=("${f#.}")
done

if [ "$MODE" = verify ]; then
    # verify resolves ExecStart= and dependencies inside --root; Documentation=man: pages are
    # looked up with the host's man, pointed at the rootfs' man directories.
    manpath=$(cd "$WORK/stage" && find . -type d -path '*/share/man' | sed "s|^\.|$ROOT|" | paste -sd:)
    out=$(MANPATH="$manpath" systemd-analyze verify --root="$ROOT" --man=yes "${UNITS[@]}" 2>&1) && rc=0 || rc=$?
    printf '%s\n' "$out" | sed '/^$/d; s/^/verify: /' >&2
    [ $rc -eq 0 ] && [ -z "$out" ] || vm_die "systemd-analyze verify of ${UNITS[*]}: exit $rc, output above"
    vm_log "systemd-analyze verify of ${UNITS[*]}: clean"
    # The man pages the units point to render without a warning.
    mapfile -t PAGES < <(find "$WORK/stage" -type f -path '*/share/man/man*/*')
    [ ${#PAGES[@]} -ge 2 ] || vm_die "the install has ${#PAGES[@]} man pages, not 2"
    for page in "${PAGES[@]}"; do
        out=$(groff -man -ww -z -Tutf8 "$page" 2>&1)
        [ -z "$out" ] || vm_die "groff warns about ${page#"$WORK/stage"}: $out"
    done
    vm_log "man pages ${PAGES[*]#"$WORK/stage"}: no warnings"
    exit 0
fi

mkdir -p "$ROOT/tests"
cp "$HERE/service-guest.sh" "$HERE/../lib.sh" "$ROOT/tests/"
echo "$MODE" > "$ROOT/tests/mode"
vm_test_unit "$ROOT" "slicelab service tests" "/bin/bash /tests/service-guest.sh"

# systemd 252 boots the legacy layout with these two (SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1 is
# only asked for from systemd 256 on); with the first alone it boots the hybrid layout.
case $MODE in
    v2) CGROUP_ARGS="systemd.unified_cgroup_hierarchy=1" ;;
    v1) CGROUP_ARGS="systemd.unified_cgroup_hierarchy=0 systemd.legacy_systemd_cgroup_controller=1" ;;
    hybrid) CGROUP_ARGS="systemd.unified_cgroup_hierarchy=0" ;;
esac
rc=0
vm_boot_systemd "$WORK/console.log" "$WORK" "$ROOT" "$KVER" "$CGROUP_ARGS" || rc=$?
vm_verdict $rc "$WORK/console.log" "slicelabd service on cgroup $MODE"
