# bench-lib.sh: sourced by the benchmarks: a scratch directory and the one server a benchmark
# starts in the background, both gone when it exits, however it exits.

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
