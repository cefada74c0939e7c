#!/bin/bash
# tests/bench/import.sh: how fast bundles move. Prints figures; asserts nothing.
#  - export: GET /v1/experiments/{id}/bundle of an experiment with a 1 M-record timeline
#    (synth-timeline, 6000/s), MB/s and records/s
#  - import: POST /v1/imports of that bundle into a fresh --results-only daemon (upload, every
#    byte checked, rows committed, files moved into place), records/s, best of three
# Goal on the 2-core build machine: import >= 1 M records/s. Usage: [IMPORT_RECORDS=N] tests/bench/import.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/../.."
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
. tests/lib.sh
. tests/bench/bench-lib.sh
set +u

N=${IMPORT_RECORDS:-1000000}   # records of the timeline the bundle carries
daemon_start --cgroup-root "slicelab-bench$$" >/dev/null
bench_synth_experiment bench "$N"
wait_for 600 experiment_finished "$EXP_ID"
BUNDLE=$TEST_TMP/bench.slbundle
t=$(curl -s -o "$BUNDLE" -w '%{time_total}' "$DAEMON_URL/v1/experiments/$EXP_ID/bundle")
bytes=$(stat -c %s "$BUNDLE")
awk -v t="$t" -v n="$N" -v b="$bytes" 'BEGIN { printf "export:    %d records, a bundle of %.1f MB in %.3f s: %.2f M records/s, %.0f MB/s\n", n, b / 1e6, t, n / t / 1e6, b / t / 1e6 }'
daemon_stop

best=999
best_cpu=999
for i in 1 2 3; do
        DAEMON_STATE=$TEST_TMP/results-$i
        daemon_start --results-only >/dev/null
        c0=$(bench_daemon_cpu)
        t=$(curl -s -o "$TEST_TMP/answer" -w '%{time_total}' -H "Authorization: Bearer $DAEMON_TOKEN" \
                -H 'Content-Type: application/vnd.slicelab.bundle' --data-binary "@$BUNDLE" "$DAEMON_URL/v1/imports")
        [ "$(jq -r .id "$TEST_TMP/answer")" = "$EXP_ID" ] || { echo "import $i failed: $(cat "$TEST_TMP/answer")"; t=999; }
        best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
        best_cpu=$(awk -v a="$best_cpu" -v b="$(bench_daemon_cpu)" -v c="$c0" 'BEGIN { print (b - c < a) ? b - c : a }')
        daemon_stop
done
awk -v t="$best" -v n="$N" -v b="$bytes" 'BEGIN { printf "import:    %d records (%.1f MB) in %.3f s (best of 3): %.2f M records/s, %.0f MB/s\n", n, b / 1e6, t, n / t / 1e6, b / t / 1e6 }'
awk -v t="$best_cpu" -v n="$N" 'BEGIN { printf "import:    %.3f s of the daemon'"'"'s CPU (best of 3): %.2f M records per CPU second\n", t, n / t / 1e6 }'
echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
finish >/dev/null || true
