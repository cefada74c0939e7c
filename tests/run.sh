#!/bin/bash
# tests/run.sh: the one test command. On a fresh Debian 12 machine as root it installs what the
# suite needs, builds slicelab plain and with ASan+UBSan, runs every test in both builds (the
# QEMU guests, the fuzzer, the OpenAPI lint, the README's blocks, the dashboard and suite 'once'
# once, in the plain build), and
# ends with the line "N passed, N failed". Exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
SRC=$PWD

PACKAGES=(
        build-essential meson ninja-build pkg-config clang libclang-rt-14-dev
        libmicrohttpd-dev libcjson-dev libsqlite3-dev sqlite3 libsystemd-dev libcgroup-dev libcmocka-dev
        curl jq openssl openjdk-17-jdk-headless valgrind gdb libjs-chart.js chromium
        libcurl4-openssl-dev python3 zlib1g-dev libhdrhistogram-java slurm-wlm munge
        qemu-system-x86 linux-image-amd64 busybox-static cpio debootstrap e2fsprogs
        iproute2 util-linux dpkg-dev debhelper lintian systemd linux-perf
)

install_packages() {
        local missing=()
        for p in "${PACKAGES[@]}"; do
                dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
        done
        # Node.js may come from another packaging that bundles npm (Debian's npm would conflict).
        command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
        [ ${#missing[@]} -eq 0 ] && return 0
        echo "installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# setup_build DIR [meson options...]: configure once, reconfigure if the tree changed.
setup_build() {
        local dir=$1
        shift
        if [ -f "$dir/build.ninja" ]; then
                meson setup --reconfigure "$dir" "$@" >/dev/null
        else
                meson setup "$dir" "$@" >/dev/null
        fi && ninja -C "$dir" >/dev/null
}

PASSED=0
FAILED=0
SKIPPED=0

# run_suite DIR LABEL [meson test options...]: runs and adds to the totals from meson's summary.
run_suite() {
        local dir=$1 label=$2 log
        shift 2
        log=$(mktemp)
        echo "=== $label"
        meson test -C "$dir" --print-errorlogs "$@" >"$log" 2>&1
        grep -E '^ *[0-9]+/[0-9]+ ' "$log" || true
        # A failing test's own output, so that CI's log says why (its end is where it failed).
        if grep -qE '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)' "$log"; then
                echo "--- output of the failing tests (last 150 lines)"
                sed -n '/^Summary of Failures/q;p' "$log" | grep -vE '^ *[0-9]+/[0-9]+ ' | tail -150
        fi
        local ok fail xfail xpass skip timeout
        ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$log" | tail -1)
        xfail=$(sed -n 's/^Expected Fail: *\([0-9]*\).*/\1/p' "$log" | tail -1)
        fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$log" | tail -1)
        xpass=$(sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' "$log" | tail -1)
        skip=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$log" | tail -1)
        timeout=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$log" | tail -1)
        if [ -z "$ok" ]; then
                echo "meson test did not run in $dir:"
                tail -30 "$log"
                FAILED=$((FAILED + 1))
        fi
        PASSED=$((PASSED + ${ok:-0} + ${xfail:-0}))
        FAILED=$((FAILED + ${fail:-0} + ${xpass:-0} + ${timeout:-0}))
        SKIPPED=$((SKIPPED + ${skip:-0}))
        rm -f "$log"
}

if [ "$(id -u)" -ne 0 ]; then
        echo "tests/run.sh needs root (real cgroups, mounts, apt-get)" >&2
        echo "0 passed, 1 failed"
        exit 1
fi
install_packages || { echo "apt-get failed"; echo "0 passed, 1 failed"; exit 1; }

if ! setup_build build -Dbuildtype=debugoptimized; then
        echo "plain build failed"
        meson setup --reconfigure build >/dev/null 2>&1; ninja -C build 2>&1 | grep -E 'error|FAILED' | head -40
        echo "0 passed, 1 failed"
        exit 1
fi
if ! setup_build build-asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false; then
        echo "sanitized build failed"
        ninja -C build-asan 2>&1 | grep -E 'error|FAILED' | head -40
        echo "0 passed, 1 failed"
        exit 1
fi

# The guests, the fuzzer and the spec lint do not depend on the sanitizers: run them once. The
# README's blocks check documentation, the dashboard's test its JavaScript in a browser, and the
# tests of suite 'once' the statistics of real runs; the daemon, client and injector code they
# drive runs under the sanitizers in the client, results, experiments-api, jvm-runs,
# inject-runs, compare-checks and findings-rules tests.
ONCE_SUITES=(vm fuzz openapi readme ui once)
no_once=()
for s in "${ONCE_SUITES[@]}"; do no_once+=(--no-suite "$s"); done

run_suite build "plain build" "${no_once[@]}"
run_suite build-asan "ASan+UBSan build" "${no_once[@]}" --timeout-multiplier 3
for s in "${ONCE_SUITES[@]}"; do
        if meson test -C build --list --suite "$s" 2>/dev/null | grep -q "^slicelab:"; then
                run_suite build "suite $s" --suite "$s"
        fi
done

echo
if [ "$SKIPPED" -gt 0 ]; then
        echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
else
        echo "$PASSED passed, $FAILED failed"
fi
[ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ]
