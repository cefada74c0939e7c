#!/bin/bash
# steady-state-runs.sh: a benchmark without load's in-process iterations as its steady-state
# series (issue 36), with real runs of slicelab-spin --iterations: a run that gets four times
# slower half way is a slowdown, one that gets ten times faster after 1.5 s warmed up (its
# steady state starting there); a SUT printing malformed lines has
# them counted and left out, never failing the run; the run's metrics match openapi.yaml.
. "$SLICELAB_SRC/tests/lib.sh"

SPIN="$BUILD/contrib/workloads/slicelab-spin"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-s$$" || { not_ok "daemon starts"; finish; exit 1; }

# steady_of COMMAND [ARG...]: one run of that SUT on CPU 1; STEADY holds its metrics.steady_state.
steady_of() {
        post_experiment "$(definition --name shape --cell a:1 -- "$@")"
        [ -n "$EXP_ID" ] || { not_ok "the experiment is accepted" "$BODY"; STEADY=null BODY=null; return; }
        wait_for 120 experiment_finished "$EXP_ID" || not_finished "$EXP_ID"
        RUN=$(first_run "$EXP_ID")
        api GET "/v1/runs/$RUN"
        STEADY=$(jq -c .metrics.steady_state <<<"$BODY")
        echo "# $(jq -c '{class, start_s, intervals, segments: [.segments[] | {start_s, end_s, mean}]}' <<<"$STEADY")"
}

steady_of "$SPIN" --seconds 4 --iterations 16 --change-at 2 --change-factor 4
check_schema "a benchmark's run with its series" getRun 200
check_eq "four times slower half way: a slowdown, on its 16 iterations' ops/s" "slowdown ops_per_s 16 null" \
        "$(jq -r '"\(.class) \(.metric) \(.intervals) \(.interval_s)"' <<<"$STEADY")"
check_eq "the run's result is still the last line's" true \
        "$(jq '.metrics.ops_per_s > 0 and .metrics.ops_per_s != null' <<<"$BODY")"

# Ten times, not four: on a busy machine a light unit's ops/s swing by half from one iteration
# to the next (the CPU share the spin gets), and a fourfold step was once read as flat.
steady_of "$SPIN" --seconds 6 --iterations 12 --change-at 1.5 --change-factor 0.1
check_eq "ten times faster after 1.5 s: warmed up" warmup "$(jq -r .class <<<"$STEADY")"
check "its steady state starts at the change (1.5 s, give or take an iteration of 0.5 s)" json_true \
        '.start_s >= 1 and .start_s <= 2.1' "$STEADY"

# printf's own \n escapes (argv holds no newline): 5 iterations, 2 malformed, a plain line, the result.
steady_of /usr/bin/printf '{"ops_per_s": 100}\n{"ops_per_s": 100}\n{"ops_per_s": nope}\n{"ops_per_s": 100}\n{"ops_per_s": -1}\n{"ops_per_s": 100}\n{"ops_per_s": 100}\nnot a point\n{"ops_per_s": 100}\n'
check_eq "malformed lines are counted and left out; the run succeeds on its last line" "succeeded 2 5 flat" \
        "$(jq -r '"\(.state) \(.metrics.steady_state.malformed_lines) \(.metrics.steady_state.intervals) \(.metrics.steady_state.class)"' <<<"$BODY")"

steady_of "$SPIN" --seconds 1
check_eq "a benchmark printing one line has no series" null "$STEADY"
finish
