#!/bin/sh
# run.sh [seconds]: build the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined)
# in a build directory of their own and fuzz each for `seconds` (default 60), starting from its
# seed corpus under tests/fuzz/corpus/<target>/. Fails on any crash, leak, timeout or sanitizer
# report; the input that did it is kept as <build>/artifacts/<target>-crash-* and printed.
#
# Build directory: $SLICELAB_FUZZ_BUILD, else <meson build>/fuzz-clang when run by meson test,
# else build-fuzz in the source tree. Inputs found while fuzzing stay in that build directory;
# the seed corpus in the source tree is never written to.
set -eu

seconds=${1:-60}
src=${SLICELAB_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ -n "${SLICELAB_FUZZ_BUILD:-}" ]; then
        build=$SLICELAB_FUZZ_BUILD
elif [ -n "${SLICELAB_BUILD:-}" ]; then
        build=$SLICELAB_BUILD/fuzz-clang
else
        build=$src/build-fuzz
fi
targets="definition"

command -v clang >/dev/null || { echo "run.sh: clang is required" >&2; exit 1; }

if [ ! -f "$build/build.ninja" ]; then
        log=$(mktemp)
        trap 'rm -f "$log"' EXIT
        CC=clang meson setup "$build" "$src" \
                -Dfuzz=true -Dbuildtype=debugoptimized \
                -Db_sanitize=address,undefined -Db_lundef=false \
                -Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' >"$log" 2>&1 ||
                { cat "$log" >&2; exit 1; }
fi
for t in $targets; do
        ninja -C "$build" "tests/fuzz/fuzz-$t" >/dev/null || ninja -C "$build" "tests/fuzz/fuzz-$t"
done

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$build/artifacts"
status=0
for t in $targets; do
        work=$build/corpus/$t
        mkdir -p "$work"
        echo "fuzzing $t for ${seconds}s"
        if ! "$build/tests/fuzz/fuzz-$t" \
                -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
                -dict="$src/tests/fuzz/$t.dict" -artifact_prefix="$build/artifacts/$t-" \
                -print_final_stats=1 "$work" "$src/tests/fuzz/corpus/$t" 2>"$build/fuzz-$t.log"; then
                tail -n 60 "$build/fuzz-$t.log" >&2
                echo "run.sh: fuzz-$t failed; reproducer(s):" >&2
                ls -1 "$build/artifacts/$t-"* >&2 2>/dev/null || true
                status=1
                continue
        fi
        grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$build/fuzz-$t.log" || true
done
exit $status
