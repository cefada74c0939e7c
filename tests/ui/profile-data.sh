# profile-data.sh: sourced by ui.sh (after tests/lib.sh and daemon_start): the profiles the
# dashboard's flame graphs are tested on. Two experiments with profile.cpu whose SUT is the
# native slicelab-spin (perf really samples it: the runs get metrics.profile), after which each
# run's profile.folded is replaced, where the daemon keeps it, by the test's own folded text, so
# that views.js knows the frames, the shares and the signs of the differences exactly (perf's
# real output is profile-runs.sh's subject):
#  - PROFILE_EXP: cells "base" (the first, the baseline) and "alloc", 3 iterations each; alloc
#    spends less in Work.spin, more in the gc group, and has a Work.alloc frame base lacks;
#  - LARGE_RUN: one run of 3000 one-sample frames beside one big one, for the drawing's bound;
#    its experiment's other cell, "unprofiled", has "profile": false: perf must leave it alone.
# Sets PROFILE_EXP, PROFILE_RUN (a run of base that perf profiled), LARGE_RUN and PROFILE_FOLDED_DIR (one
# CELL.folded per cell: its runs' lines, for views.js's own parse).

profile_spin_experiment() { # NAME CELLS_JSON ITERATIONS
        post_experiment "$(definition --name "$1" --iterations "$3" --merge '{"profile":{"cpu":true}}' --cells "$2" \
                -- "$BUILD/contrib/workloads/slicelab-spin" --threads 1 --seconds 2)"
}

# profile_write RUN TEXT: the run's profile.folded, in place of perf's.
profile_write() {
        printf '%s' "$2" >"$DAEMON_STATE/runs/$1/profile.folded"
}

profile_base() { # ITERATION
        printf 'app;java.lang.Thread.run;slicelab.sut.Server.handle;slicelab.sut.Work.spin %d\n' $((700 + 10 * $1))
        printf 'app;java.lang.Thread.run;slicelab.sut.Server.handle;java.util.HashMap.get 100\n'
        printf 'gc;GCTaskThread::run;PSPromotionManager::drain_stacks %d\n' $((60 + 5 * $1))
        printf 'jit;C2Compiler::compile_method 40\n'
        printf 'kernel;entry_SYSCALL_64;do_syscall_64 %d\n' $((100 - 5 * $1))
}

profile_alloc() { # ITERATION
        printf 'app;java.lang.Thread.run;slicelab.sut.Server.handle;slicelab.sut.Work.spin %d\n' $((450 + 10 * $1))
        printf 'app;java.lang.Thread.run;slicelab.sut.Server.handle;slicelab.sut.Work.alloc %d\n' $((150 + 3 * $1))
        printf 'app;java.lang.Thread.run;slicelab.sut.Server.handle;java.util.HashMap.get 100\n'
        printf 'gc;GCTaskThread::run;PSPromotionManager::drain_stacks %d\n' $((220 + 5 * $1))
        printf 'jit;C2Compiler::compile_method 40\n'
        printf 'kernel;entry_SYSCALL_64;do_syscall_64 40\n'
}

profile_data_setup() {
        local run cell iteration
        profile_spin_experiment "profiled" '[{"name":"base"},{"name":"alloc"}]' 3
        PROFILE_EXP=$EXP_ID
        profile_spin_experiment "profiled-large" '[{"name":"large"},{"name":"unprofiled","profile":false}]' 1
        LARGE_EXP=$EXP_ID
        wait_for 300 experiment_finished "$LARGE_EXP" || not_finished "$LARGE_EXP"
        wait_for 60 experiment_finished "$PROFILE_EXP" || not_finished "$PROFILE_EXP"
        PROFILE_FOLDED_DIR=$TEST_TMP/folded
        mkdir -p "$PROFILE_FOLDED_DIR"
        while read -r run cell iteration; do
                profile_write "$run" "$("profile_$cell" "$iteration")"
                "profile_$cell" "$iteration" >>"$PROFILE_FOLDED_DIR/$cell.folded"
        done < <(curl -s "$DAEMON_URL/v1/experiments/$PROFILE_EXP/runs" | jq -r '.runs[] | "\(.id) \(.cell) \(.iteration)"')
        # the run view links a run's flame graph when perf profiled it (metrics.profile)
        PROFILE_RUN=$(curl -s "$DAEMON_URL/v1/experiments/$PROFILE_EXP/runs" | jq -r '.runs[].id' | while read -r run; do
                curl -s "$DAEMON_URL/v1/runs/$run" | jq -r 'select(.cell == "base" and .metrics.profile != null) | .id'
        done | head -1)
        check_match "perf profiled a run of cell base (its metrics.profile)" '^[a-z0-9]+$' "$PROFILE_RUN"
        LARGE_RUN=$(curl -s "$DAEMON_URL/v1/experiments/$LARGE_EXP/runs" | jq -r '.runs[] | select(.cell == "large") | .id')
        local unprofiled
        unprofiled=$(curl -s "$DAEMON_URL/v1/experiments/$LARGE_EXP/runs" | jq -r '.runs[] | select(.cell == "unprofiled") | .id')
        api GET "/v1/runs/$unprofiled"
        check_eq "a cell with profile false ran without perf (no metrics.profile)" "null" "$(jq -c '.metrics.profile' <<<"$BODY")"
        api GET "/v1/runs/$unprofiled/profile"
        check_eq "... and GET /v1/runs/{id}/profile is a 404" "404" "$HTTP_STATUS"
        profile_write "$LARGE_RUN" "$(printf 'app;java.lang.Thread.run;slicelab.sut.Big 30000\n'
                seq 1 3000 | sed 's/.*/app;java.lang.Thread.run;tiny.Frame&.run 1/')"
}
