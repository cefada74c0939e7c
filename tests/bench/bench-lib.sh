# bench-lib.sh: sourced by the benchmarks: the Debian packages a benchmark uses, a scratch
# directory and the one server a benchmark starts in the background, both gone when it exits,
# however it exits.

# bench_setup NAME: sets dir (a new /tmp/NAME.XXXXXX); put the server's pid in server_pid.
bench_setup() {
        dir=$(mktemp -d "/tmp/$1.XXXXXX")
        server_pid=
        trap bench_cleanup EXIT
}

bench_cleanup() {
        if [ -n "$server_pid" ]; then
                kill "$server_pid" 2>/dev/null || true
                wait "$server_pid" 2>/dev/null || true
        fi
        rm -rf "$dir"
}

# bench_daemon_cpu: the CPU seconds (user + system) of the daemon tests/lib.sh started, a figure
# the other tenants of a busy machine move less than a rate or a time.
bench_daemon_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$DAEMON_PID/stat"; }

# bench_need PKG...: installs the packages of the list that are missing, in one apt-get.
bench_need() {
        local pkg need=()
        for pkg in "$@"; do
                dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
        done
        [ ${#need[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

# bench_synth_experiment NAME N [RATE [WARMUP]]: (after tests/lib.sh and daemon_start) posts an
# experiment whose SUT sleeps and whose load writes a synthetic timeline of N records
# (tests/tools/synth-timeline), so that a benchmark has a large run without a real one; sets EXP_ID.
bench_synth_experiment() {
        post_experiment "$(definition --name "$1" \
                --load "{\"command\":[\"$BUILD/tests/synth-timeline\",\"t.bin\",\"$2\",\"${3:-6000}\",\"${4:-0}\"],\"timeline\":\"t.bin\"}" \
                -- /bin/sleep 600)"
}
