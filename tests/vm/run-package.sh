#!/bin/bash
# run-package.sh SRC-DIR: the Debian packages (debian/), as a lab host gets them. From a clean
# copy of the checkout (its tracked and unignored files, no build directory), builds them with
# `dpkg-buildpackage -us -uc -b`, checks them with lintian (no error), and rebuilds them with a
# changelog entry of a higher version; then boots the service guest's Debian 12 (run-service.sh)
# under QEMU with systemd as PID 1 and runs package-guest.sh there: install, one experiment with
# the client, upgrade, purge. The guest has no network: it installs the packages whose
# dependencies its rootfs has (slicelabd, slicelab-inject, slicelab), not slicelab-sut (a JRE).
# Exit 0 = passed, 1 = failed. A guest that gives no verdict fails (lib.sh).
set -euo pipefail
# Three rounds of dpkg's maintainer scripts (systemctl, deb-systemd-helper) under emulation:
# 13 minutes of guest on a host with a load of 18 (2 CPUs), so more room than lib.sh's default.
VM_TIMEOUT=${VM_TIMEOUT:-1500}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
[ $# -eq 1 ] || vm_die "usage: $0 SRC-DIR"
SRC=$(cd "$1" && pwd)
[ "$(id -u)" -eq 0 ] || vm_die "needs root (apt-get, debootstrap, qemu)"

vm_need_packages qemu-system-x86 linux-image-amd64 debootstrap e2fsprogs busybox-static cpio kmod dpkg-dev debhelper lintian
KVER=$(vm_kernel_version)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slicelab-vm-package.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
step_start=$SECONDS
step() { vm_log "$1: $((SECONDS - step_start)) s"; step_start=$SECONDS; }

# The checkout as a clone would have it, but with what is not committed yet: the build tree and
# everything .gitignore names stay out.
mkdir "$WORK/src"
git -C "$SRC" ls-files -z --cached --others --exclude-standard |
    (cd "$SRC" && tar --null -T - --ignore-failed-read -cf -) | tar -C "$WORK/src" -xf -
[ -f "$WORK/src/debian/control" ] || vm_die "no debian/control in the copy of $SRC"

# build DIR: dpkg-buildpackage in the copy, its packages moved to DIR. Without -nc first (a
# clean build); the rebuild reuses the compiled tree, as only the changelog changed.
build() {
    local dir=$1
    shift
    (cd "$WORK/src" && dpkg-buildpackage -us -uc -b "$@") > "$WORK/build.log" 2>&1 ||
        { tail -n 40 "$WORK/build.log" >&2; vm_die "dpkg-buildpackage $* failed (log above)"; }
    mkdir "$dir"
    mv "$WORK"/*.deb "$WORK"/*.changes "$WORK"/*.buildinfo "$dir/"
}
build "$WORK/v1"
step "dpkg-buildpackage -us -uc -b"
version=$(cd "$WORK/src" && dpkg-parsechangelog -S Version)
upstream=$(meson introspect --projectinfo "$SRC/meson.build" | jq -r .version)
[ "${version%-*}" = "$upstream" ] || vm_die "debian/changelog's $version is not meson.build's $upstream"

lintian_out=$(lintian "$WORK"/v1/*.changes 2>&1) || true
printf '%s\n' "$lintian_out" | sed 's/^/lintian: /' >&2
if grep -q '^E:' <<<"$lintian_out"; then vm_die "lintian reports errors (above)"; fi
step "lintian"

# The examples the client package ships name the jar where slicelab-sut puts it.
mkdir "$WORK/unpacked"
for deb in "$WORK"/v1/slicelab_*.deb "$WORK"/v1/slicelab-sut_*.deb; do dpkg-deb -x "$deb" "$WORK/unpacked"; done
examples=("$WORK"/unpacked/usr/share/slicelab/examples/*.json)
[ -e "${examples[0]}" ] || vm_die "the slicelab package has no examples in /usr/share/slicelab/examples"
for ex in "${examples[@]}"; do
    for jar in $(jq -r '.. | strings | select(endswith(".jar"))' "$ex"); do
        [ -f "$WORK/unpacked$jar" ] || vm_die "${ex##*/} names $jar, which no package installs"
    done
done
vm_log "the examples name the jar slicelab-sut installs"

# The upgrade: the same source one Debian revision on, as a maintainer's `dch -i` would make it.
next="${version%-*}-$((${version##*-} + 1))"
{
    printf 'slicelab (%s) unstable; urgency=medium\n\n  * Rebuilt to test the upgrade.\n\n' "$next"
    printf ' -- %s  %s\n\n' "$(cd "$WORK/src" && dpkg-parsechangelog -S Maintainer)" "$(date -R)"
    cat "$WORK/src/debian/changelog"
} > "$WORK/changelog" && mv "$WORK/changelog" "$WORK/src/debian/changelog"
rm "$WORK/src/debian/files" # the first build's list, which its clean step would have removed
build "$WORK/v2" -nc
step "rebuild at $next"

ROOT=$WORK/root
vm_service_rootfs "$ROOT"
mkdir -p "$ROOT/tests"
cp "$HERE/package-guest.sh" "$HERE/../lib.sh" "$ROOT/tests/"
for v in v1 v2; do
    mkdir "$ROOT/tests/$v"
    cp "$WORK/$v"/slicelabd_*.deb "$WORK/$v"/slicelab-inject_*.deb "$WORK/$v"/slicelab_*.deb "$ROOT/tests/$v/"
done
printf '%s %s\n' "$version" "$next" > "$ROOT/tests/versions"
vm_test_unit "$ROOT" "slicelab package tests" "/bin/bash /tests/package-guest.sh"
rc=0
vm_boot_systemd "$WORK/console.log" "$WORK" "$ROOT" "$KVER" "systemd.unified_cgroup_hierarchy=1" || rc=$?
step "guest"
vm_verdict $rc "$WORK/console.log" "the Debian packages installed, upgraded and purged"
