#!/bin/bash
# tests/bench/api-scale.sh: whether the API keeps its rates on a store that has held years
# (issue 29): POST /v1/experiments, the list with a label filter and a finished experiment's
# report, each with wrk (2 threads, 32 connections, keep-alive) against a daemon on an almost
# empty store (SCALE_BASE, default 100 experiments) and on one with SCALE_EXPERIMENTS (default
# 100000) finished experiments. Prints both and the ratio; asserts nothing.
# The lists answer the same page on both stores: 10 of the experiments labelled app=app-3 (a
# tenth of them), and the one newest labelled seq=7 (a few: the copies keep their labels), whose
# answer must also tell whether an older one exists.
# The POSTs' runs do not drain: a first experiment holds CPU 0 (a sleeping SUT) and theirs wait
# behind it on the same CPU, so the rate is the API's and the store's, not /bin/true's
# (tests/bench/api-lib.sh).
# The store is filled by tests/tools/fill-store (the storage library, as the daemon writes rows)
# with SCALE_REAL experiments, then copied in SQL up to SCALE_EXPERIMENTS (new ids, same rows).
# Usage: tests/bench/api-scale.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/../.."
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
. tests/bench/bench-lib.sh
bench_need wrk sqlite3
. tests/lib.sh
. tests/bench/api-lib.sh
set +u
DURATION=${BENCH_SECONDS:-10}
N=${SCALE_EXPERIMENTS:-100000}
BASE=${SCALE_BASE:-100}
REAL=${SCALE_REAL:-5000}

# fill STATE_DIR COUNT: COUNT finished experiments, the first min(COUNT, REAL) through the storage
# library, the rest copies of those with the last two characters of every id replaced by capitals (no id the daemon makes has one).
fill() {
        local db=$1/slicelab.db n=$2 real=$((REAL < $2 ? REAL : $2)) k sql=""
        mkdir -p "$1"
        "$SLICELAB_BUILD/tests/fill-store" "$db" "$real" 2>/dev/null
        for ((k = 1; k * real < n; k++)); do
                local take=$((n - k * real < real ? n - k * real : real)) id="substr(%s, 1, 10) || char(65 + $k / 26, 65 + $k %% 26)"
                local eid rid
                eid=$(printf "$id" experiment_id) rid=$(printf "$id" run_id)
                sql+="INSERT INTO experiments(id, name, status, definition, run_order, seed, warnings, created_wall_ns, finished_wall_ns)
                        SELECT $(printf "$id" id), name, status, definition, run_order, seed, warnings, created_wall_ns, finished_wall_ns
                        FROM experiments WHERE rowid <= $take ORDER BY rowid;
                      INSERT INTO cells SELECT $eid, idx, name, definition FROM cells
                        WHERE experiment_id IN (SELECT id FROM experiments WHERE rowid <= $take);
                      INSERT INTO runs SELECT $(printf "$id" id), $eid, position, cell_idx, iteration, state, reason, message,
                        sut_slice, load_slice, exit_status, metrics, warnings, measure_start_ns FROM runs
                        WHERE experiment_id IN (SELECT id FROM experiments WHERE rowid <= $take);
                      INSERT INTO idempotency_keys SELECT key || '-$k', body_sha256, $eid, created_wall_ns FROM idempotency_keys
                        WHERE experiment_id IN (SELECT id FROM experiments WHERE rowid <= $take);
                      INSERT INTO run_events SELECT $rid, seq, state, wall_ns, mono_ns, message FROM run_events
                        WHERE run_id IN (SELECT r.id FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE e.rowid <= $take);"
        done
        # The label index (schema 4) as the daemon fills it, where the store has one.
        if [ -n "$sql" ] && [ -n "$(sqlite3 "$db" "SELECT 1 FROM sqlite_master WHERE name = 'experiment_labels'")" ]; then
                sql+="INSERT OR IGNORE INTO experiment_labels(key, value, experiment_rowid, experiment_id)
                        SELECT l.key, l.value, e.rowid, e.id FROM experiments e, json_each(e.definition, '\$.labels') l;"
        fi
        # The runs counted by state (schema 6), which count the daemon's inserts, not these.
        if [ -n "$sql" ] && [ -n "$(sqlite3 "$db" "SELECT 1 FROM sqlite_master WHERE name = 'run_state_counts'")" ]; then
                sql+="UPDATE run_state_counts SET runs = (SELECT count(*) FROM runs WHERE state = run_state_counts.state);"
        fi
        [ -z "$sql" ] || sqlite3 "$db" "BEGIN; $sql COMMIT;"
}

# measure STATE_DIR: prints "post list_common list_rare report" in req/s.
measure() {
        DAEMON_STATE=$1
        daemon_start --cgroup-root "slicelab-scale$$" >/dev/null
        local report_id common rare post report_rate
        report_id=$(sqlite3 "$1/slicelab.db" "SELECT id FROM experiments WHERE name = 'fill-0' ORDER BY rowid LIMIT 1")
        common=$(api_rate "$DAEMON_URL/v1/experiments?label=app=app-3&limit=10")
        rare=$(api_rate "$DAEMON_URL/v1/experiments?label=seq=7&limit=1")
        report_rate=$(api_rate "$DAEMON_URL/v1/experiments/$report_id/report")
        api_hold_cpu0
        post=$(api_post_rate)
        api_drop_queue
        daemon_stop
        echo "$post $common $rare $report_rate"
}

fill "$TEST_TMP/empty" "$BASE"
fill_start=$SECONDS
fill "$TEST_TMP/full" "$N"
echo "# filled $N experiments in $((SECONDS - fill_start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
read -r e_post e_common e_rare e_report <<<"$(measure "$TEST_TMP/empty")"
read -r f_post f_common f_rare f_report <<<"$(measure "$TEST_TMP/full")"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
finish >/dev/null || true

line() {
        printf '%-48s %8.0f req/s   %8.0f req/s   ratio %.2f\n' "$1" "$2" "$3" "$(awk -v a="$3" -v b="$2" 'BEGIN { print (b > 0 ? a / b : 0) }')"
}
printf '%-48s %14s   %14s\n' "" "$BASE experiments" "$N experiments"
line "POST /v1/experiments (runs queued)" "$e_post" "$f_post"
line "GET /v1/experiments?label=app=app-3&limit=10" "$e_common" "$f_common"
line "GET /v1/experiments?label=seq=7&limit=1" "$e_rare" "$f_rare"
line "GET /v1/experiments/{id}/report" "$e_report" "$f_report"
