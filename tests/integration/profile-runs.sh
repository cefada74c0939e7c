#!/bin/bash
# profile-runs.sh: profile.cpu end to end with a real JVM and Debian's perf: a run of
# slicelab-sut.jar under cpu_us load is sampled through its measure window; profile.folded is read
# back by an independent parser (awk) whose counts agree with metrics.profile, the app group holds
# most samples and the SUT's Work frames (as the JIT's perf map names them) are there; nothing is
# left in /tmp or running, also after a cancel mid-measure; a daemon without perf refuses such a definition, naming profile.cpu;
# one without CAP_PERFMON (under kernel.perf_event_paranoid 2 or more) refuses it too, naming
# what is missing, and one with CAP_PERFMON alone (the systemd unit's) profiles.
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-p$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port)
READY="{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}"
# sut_def OPTION...: a definition (tests/lib.sh) whose SUT is slicelab-sut.jar, a serial GC.
sut_def() { definition "$@" --jvm --ready "$READY" -- java -Xmx128m -XX:+UseSerialGC -jar "$JAR" --port "$PORT"; }

post_experiment "$(definition --name plain --cell a:1 -- /bin/echo '{"ops_per_s": 1}')"
FIRST_PLAIN_RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$FIRST_PLAIN_RUN"
# One experiment for all the profile checks (a JVM run costs seconds: CI time is tight): the same
# load for all (each request burns 2 ms and keeps 1 MiB of 1 KiB chunks alive), a baseline, a
# GC-heavy cell (a 2 MiB young generation: collections many times a second, promotions into a
# filling old generation), and an identical copy of the baseline (A/A), 3 iterations each. One
# connection as fast as the SUT answers: the SUT's CPU is busy (hundreds of samples a run) and at
# most one request's garbage is alive at a collection, so a cell's GC share does not swing with
# what else the machine runs (with 3 iterations the rule's Bonferroni interval has t near 11);
# 999 Hz, the most, since a busy 2-core machine leaves the SUT a fraction of its CPU and a run
# had only about 100 samples at 199 Hz (a share's sampling error alone near 4 points).
PLAIN_CELL='"cpus":"1","memory_max":"512M","jvm_args":["-Xmx256m","-Xmn128m"]'
post_experiment "$(definition --name profiled --iterations 3 --jvm --ready "$READY" \
        --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=2000&alloc_kb=1024\",\"mode\":\"max\",\"connections\":1,\"warmup_s\":2,\"measure_s\":4,\"cpus\":\"0\"}" \
        --cell "{\"name\":\"plain\",$PLAIN_CELL}" \
        --cell '{"name":"gc","cpus":"1","memory_max":"512M","jvm_args":["-Xmx256m","-Xmn2m"]}' \
        --cell "{\"name\":\"twin\",$PLAIN_CELL}" --merge '{"profile":{"cpu":true,"hz":999}}' \
        -- java -XX:+UseParallelGC -XX:ParallelGCThreads=1 -jar "$JAR" --port "$PORT")"
check_eq "a profiled experiment is accepted" 201 "$HTTP_STATUS"
check_match "its warnings say the JVM gets -XX:+PreserveFramePointer" "PreserveFramePointer" "$(jq -r '.warnings | join(" | ")' <<<"$BODY")"
DIFF_EXP=$EXP_ID
RUN=$(first_run "$DIFF_EXP")
wait_for 900 experiment_finished "$DIFF_EXP" || not_finished "$DIFF_EXP"
check_eq "the first (plain) run succeeds" succeeded "$(run_outcome "$RUN")"
check_eq "every run succeeds" 9 "$(curl -s "$DAEMON_URL/v1/experiments/$DIFF_EXP/runs" | jq '[.runs[] | select(.state == "succeeded")] | length')"
api GET "/v1/runs/$RUN"
check_schema "a profiled run" getRun 200
SAMPLES=$(jq -r .metrics.profile.samples <<<"$BODY")
APP=$(jq -r .metrics.profile.groups.app <<<"$BODY")
check_match "metrics.profile counts samples" '^[1-9][0-9]*$' "$SAMPLES"
check_eq "the JIT's perf map was read" true "$(jq -r .metrics.profile.perf_map <<<"$BODY")"
check_eq "the only profile warning is the frame pointer's (perf ended cleanly, the map was there)" \
        "profile.cpu: the JVM runs with -XX:+PreserveFramePointer" \
        "$(jq -r '[.warnings[] | select(startswith("profile")) | split(" (")[0]] | join(" | ")' <<<"$BODY")"
FOLDED=$TEST_TMP/run.folded
HTTP_STATUS=$(curl -sS -D "$TEST_TMP/headers" -o "$FOLDED" -w '%{http_code}' "$DAEMON_URL/v1/runs/$RUN/profile")
check_eq "GET /v1/runs/{id}/profile serves the folded text" 200 "$HTTP_STATUS"
ETAG=$(grep -i '^etag:' "$TEST_TMP/headers" | cut -d' ' -f2 | tr -d '\r')
check_eq "with an ETag that answers 304" 304 "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $ETAG" "$DAEMON_URL/v1/runs/$RUN/profile")"
cmp -s "$FOLDED" "$DAEMON_STATE/runs/$RUN/profile.folded"
check_eq "the text is the run's profile.folded byte for byte" 0 $?
# The independent parser: the count is the last space-separated field, the group the first
# ';'-separated one.
parsed=$(awk '{ n = $NF; split($0, f, ";"); total += n; g[f[1]] += n } END { printf "%d %d", total, g["app"] }' "$FOLDED")
check_eq "awk's sum of profile.folded agrees with metrics.profile (samples, app)" "$SAMPLES $APP" "$parsed"
check "the app group holds most samples" test "$((APP * 2))" -gt "$SAMPLES"
work=$(awk '/^app;.*slicelab\.sut\.Work\./ { n += $NF } END { print n + 0 }' "$FOLDED")
check "frames of the SUT's Work class are named (from the JIT's perf map)" test "$work" -gt 0
check_eq "every line is group;frames count" 0 "$(grep -cvE '^(app|gc|jit|vm|kernel|other);.* [0-9]+$' "$FOLDED")"
api GET "/v1/runs/$RUN/profile?format=json"
check_schema "the profile as a tree" getRunProfile 200
check_eq "the tree's root total is the samples, its app child the app group" "$SAMPLES $APP" \
        "$(jq -r '"\(.root.total) \([.root.children[] | select(.name == "app") | .total] | add)"' <<<"$BODY")"
check "every node's total is its self plus its children's totals" json_true \
        '[.root | recurse(.children[]) | .total == .self + ([.children[].total] | add // 0)] | all' "$BODY"
api GET "/v1/runs/$RUN/profile?format=json&max_depth=1&max_nodes=3"
check_eq "bounded: max_depth=1 keeps the groups only and says it truncated" "true 0" \
        "$(jq -r '"\(.truncated) \([.root.children[].children | length] | add)"' <<<"$BODY")"
api GET "/v1/runs/$RUN/profile?format=svg"
check_eq "an unknown format is 400 naming it" "400 format" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
out=$("$BUILD/client/slicelab" --url "$DAEMON_URL" profile "$RUN" -o "$TEST_TMP/client.folded" 2>&1)
check_eq "slicelab profile RUN -o FILE writes the folded text ($out)" 0 "$(cmp -s "$TEST_TMP/client.folded" "$FOLDED"; echo $?)"
check_eq "slicelab profile RUN --json prints the tree" "$SAMPLES" "$("$BUILD/client/slicelab" --url "$DAEMON_URL" profile "$RUN" --json | jq .samples)"
api GET "/v1/runs/$FIRST_PLAIN_RUN/profile"
check_eq "a run without profile.cpu has none: 404" 404 "$HTTP_STATUS"
check_eq "no perf map made by this test is left in /tmp" "" "$(find /tmp -maxdepth 1 -name 'perf-*.map' -newer "$TEST_TMP" 2>/dev/null)"
check_eq "no perf process of the run is left" "" "$(pgrep -f "perf record -e cpu-clock .* -o -" || true)"

# --- a cell against a baseline: shares per iteration, intervals --------------------------------
api GET "/v1/experiments/$DIFF_EXP/profile?cell=twin&baseline=plain&limit=5"
check_schema "a cell's profile against its baseline" getExperimentProfile 200
check_eq "three iterations a side, at most 5 frames" "3 3 true" \
        "$(jq -r '"\(.cell_runs) \(.baseline_runs) \(.frames | length <= 5)"' <<<"$BODY")"
check "each run's group shares add up to 1" json_true \
        '[range(3) as $i | [.groups[].total.cell.shares[$i]] | add | . > 0.999 and . < 1.001] | all' "$BODY"
check "each difference is the cell's mean minus the baseline's, within its interval" json_true \
        '[.groups[].total, .frames[].total, .frames[].self | (.difference.value - (.cell.mean - .baseline.mean) | fabs < 1e-9)
          and (.difference.ci_low == null or (.difference.ci_low <= .difference.value and .difference.value <= .difference.ci_high))] | all' "$BODY"
check "frames come largest absolute difference first" json_true \
        '[.frames[].total.difference.value | fabs] as $d | $d == ($d | sort | reverse)' "$BODY"
DIFF_BODY=$BODY
check_eq "slicelab profile EXP --cell --baseline --json is the daemon's answer" "$(jq -cS . <<<"$DIFF_BODY")" \
        "$("$BUILD/client/slicelab" --url "$DAEMON_URL" profile "$DIFF_EXP" --cell twin --baseline plain --json | jq -cS '.frames |= .[:5]')"
table=$("$BUILD/client/slicelab" --url "$DAEMON_URL" profile "$DIFF_EXP" --cell twin --baseline plain)
check_match "and without --json a table with the app group's line" '^ *[0-9.]+% \[' "$(grep -E ' app$' <<<"$table")"
# The GC-heavy cell: its gc group's share is up, with an interval that excludes no difference,
# and the findings rule `profile` says so, naming the GC threads; the A/A copy gets no such
# finding.
api GET "/v1/experiments/$DIFF_EXP/profile?cell=gc&baseline=plain"
GC_DIFF=$(jq -c '.groups[] | select(.name == "gc") | .total.difference' <<<"$BODY")
echo "# per-iteration group shares, gc cell vs plain: $(jq -c '[.groups[] | {(.name): [.total.cell.shares, .total.baseline.shares]}] | add' <<<"$BODY")"
for run in $(curl -s "$DAEMON_URL/v1/experiments/$DIFF_EXP/runs" | jq -r '.runs[] | select(.cell == "gc") | .id'); do
        echo "# gc cell run $run: $(curl -s "$DAEMON_URL/v1/runs/$run" | jq -c '{samples: .metrics.profile.samples, groups: .metrics.profile.groups, ops: .metrics.throughput_rps, gc_pauses: .metrics.gc.pauses}')"
done
check "the gc group's share is up in the GC-heavy cell, its interval above 0 ($GC_DIFF)" json_true \
        '.excludes_zero and .value > 0 and .ci_low > 0' "$GC_DIFF"
api GET "/v1/experiments/$DIFF_EXP/findings"
check_schema "the findings with the profile rule's" getExperimentFindings 200
FINDINGS=$BODY
GC_FINDING=$(jq -c '[.findings[] | select(.kind == "profile" and (.cells | index("gc")) and .evidence[0].group == "gc")][0]' <<<"$FINDINGS")
echo "# the gc cell's profile finding: $(jq -r '.claim // "none"' <<<"$GC_FINDING")"
check_match "a profile finding names the GC threads of cell gc against plain" \
        'in cell gc, GC threads \(group gc\): [0-9.]+% of CPU samples vs [0-9.]+% in plain \(mean over 3 vs 3 iterations; [0-9.]+% intervals, Bonferroni over [0-9]+ thread groups' \
        "$(jq -r '.claim // ""' <<<"$GC_FINDING")"
check "its evidence: the shares with their intervals, the difference's above 0" json_true \
        '.evidence[0] | .metric == "profile.share.total" and .value > .baseline_value and .difference_interval[0] > 0
         and .iterations == 3 and .baseline_iterations == 3 and (.runs | length) == 3' "$GC_FINDING"
GC_IDS=$(jq -c '[.findings[] | select(.kind == "gc" and (.cells | index("gc"))) | .id]' <<<"$FINDINGS")
check "its causes are the gc findings of cell gc ($GC_IDS), when there are" json_true \
        "$GC_IDS - (.causes // []) == [] and (.causes | type) == \"array\"" "$GC_FINDING"
check_eq "no profile finding for the A/A copy" "" \
        "$(jq -r '.findings[] | select(.kind == "profile" and (.cells | index("twin"))) | .claim' <<<"$FINDINGS")"
# JVM-generated frames have one name in every run: no hidden class's address or lambda counter
# in any run's profile, and the SUT's handler lambda (slicelab.sut.Main's, in every request's
# path, where the JIT has not inlined it) one frame over the plain cell's runs (with its address,
# each JVM's was a name of its own).
generated= with_handler=0
: >"$TEST_TMP/handlers"
for run in $(curl -s "$DAEMON_URL/v1/experiments/$DIFF_EXP/runs" | jq -r '.runs[] | select(.cell == "plain") | .id'); do
        folded="$DAEMON_STATE/runs/$run/profile.folded"
        generated+=$(grep -oE '[^;]*(/0x[0-9a-fA-F]+|\$\$Lambda\$[0-9]+)[^;]*' "$folded" | head -3)
        names=$(tr ';' '\n' <"$folded" | sed 's/ [0-9]*$//' | grep -F 'slicelab.sut.Main$$Lambda' | sort -u)
        [ -n "$names" ] && with_handler=$((with_handler + 1)) && echo "$names" >>"$TEST_TMP/handlers"
done
handlers=$(sort -u "$TEST_TMP/handlers")
echo "# the handler lambda's frames in $with_handler plain runs: $(tr '\n' ' ' <<<"$handlers")"
check_eq "no frame keeps a hidden class's address or a lambda's counter" "" "$generated"
check "the handler lambda is one frame in the runs that sampled it ($with_handler of 3)" \
        test "$with_handler" -ge 1 -a "$(grep -c . <<<"$handlers")" = 1
api GET "/v1/experiments/$DIFF_EXP/profile?cell=nope"
check_eq "an unknown cell is 400 naming it" "400 cell" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/experiments/$DIFF_EXP/profile?cell=plain&baseline=plain"
check_eq "a cell against itself is 400 naming baseline" "400 baseline" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/experiments/$DIFF_EXP/profile"
check_eq "cell is required" "400 cell" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
# --- cancel while perf records ---------------------------------------------------------------
post_experiment "$(sut_def --name profiled-cancel \
        --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=500\",\"rate\":50,\"connections\":2,\"warmup_s\":1,\"measure_s\":600}" \
        --cell one:1 --merge '{"profile":{"cpu":true}}')"
RUN=$(first_run "$EXP_ID")
wait_for 120 run_state_is "$RUN" measuring
perf_of_run() { pgrep -f "perf record -e cpu-clock -F 99 -g -p" >/dev/null; }
check "perf records while the run measures" wait_for 30 perf_of_run
api_auth DELETE "/v1/experiments/$EXP_ID"
wait_for 60 run_finished "$RUN"
check_eq "the profiled run is cancelled" cancelled "$(run_field "$RUN" .state)"
check "the cancelled run left no slice" no_slices_of "$RUN"
check "the cancelled run left no perf" not perf_of_run
daemon_stop

# --- no perf: refused at submission ---------------------------------------------------------
DAEMON_STATE=$TEST_TMP/state-noperf daemon_start --cgroup-root "slicelab-q$$" --perf /nonexistent/perf || { not_ok "daemon starts"; finish; exit 1; }
post_experiment "$(sut_def --name no-perf --cell one:1 --merge '{"profile":{"cpu":true}}')"
check_eq "without perf, profile.cpu is refused (400 naming it)" "400 profile.cpu not_on_host" \
        "$HTTP_STATUS $(jq -r '"\(.error.field) \(.error.code)"' <<<"$BODY")"
check_match "and the message says how to get it" "linux-perf" "$(jq -r .error.message <<<"$BODY")"
post_experiment "$(sut_def --name no-profile --cell one:1 --iterations 1)"
check_eq "the same daemon takes a definition without profiling" 201 "$HTTP_STATUS"
daemon_stop

# --- perf, but not the kernel's leave ------------------------------------------------------
# The systemd unit gives slicelabd CAP_PERFMON and CAP_SYS_PTRACE; a daemon without them (as a
# unit lacking them would leave it: setpriv drops them from its bounding set, so root's exec
# does not get them) is told no by the kernel, and says so.
spin_def() { definition "$@" -- "$BUILD/contrib/workloads/slicelab-spin" --threads 1 --seconds 1; }
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -ge 2 ]; then
        DAEMON_WRAPPER="setpriv --bounding-set -perfmon,-sys_admin --" DAEMON_STATE=$TEST_TMP/state-noperfmon \
                daemon_start --cgroup-root "slicelab-r$$" || { not_ok "daemon starts"; finish; exit 1; }
        post_experiment "$(spin_def --name no-perfmon --cell one:1 --merge '{"profile":{"cpu":true}}')"
        check_eq "without CAP_PERFMON under perf_event_paranoid $paranoid, profile.cpu is refused (400 naming it)" \
                "400 profile.cpu not_on_host" "$HTTP_STATUS $(jq -r '"\(.error.field) \(.error.code)"' <<<"$BODY")"
        check_match "and the message names the setting and the capability" \
                "kernel.perf_event_paranoid is $paranoid and slicelabd lacks CAP_PERFMON" "$(jq -r .error.message <<<"$BODY")"
        daemon_stop
else
        echo "# kernel.perf_event_paranoid is $paranoid: any process may sample kernel frames, nothing to refuse"
fi
# What the unit grants is enough: CAP_PERFMON without CAP_SYS_PTRACE (the kernel skips its
# ptrace check for a perfmon-capable caller) profiles the run user's SUT.
DAEMON_WRAPPER="setpriv --bounding-set -sys_ptrace --" DAEMON_STATE=$TEST_TMP/state-noptrace \
        daemon_start --cgroup-root "slicelab-s$$" || { not_ok "daemon starts"; finish; exit 1; }
post_experiment "$(spin_def --name no-ptrace --cell one:1 --merge '{"profile":{"cpu":true}}')"
check_eq "with CAP_PERFMON and without CAP_SYS_PTRACE the definition is taken" 201 "$HTTP_STATUS"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "and its run, whose SUT is the run user's, is profiled" "succeeded true" \
        "$(run_field "$RUN" '"\(.state) \(.metrics.profile != null)"')"
finish
