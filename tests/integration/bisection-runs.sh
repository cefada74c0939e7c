#!/bin/bash
# bisection-runs.sh: bisection across versions (issue 38, item 2) with real runs of
# slicelab-spin. Eight versions of one benchmark that differ in the work they do per unit (its
# --change-factor through a placeholder; three times the work from version 6 on): the
# bisection names version 6 as the first changed and version 5 as the last unchanged in at most
# 4 steps, each step an experiment with a stop rule whose decision and interval are served;
# the daemon restarted in the middle goes on where it was. Versions that are all alike end "no
# change" after one step; a change between the first two is found there. A cancelled bisection
# cancels its step's experiment and queues nothing more. Bad requests are 400s naming the
# request's own field: a placeholder a version does not fill, one version, names twice, a
# definition with cells. From a series' change point (item 3): eight experiments, four and four
# apart in one string; its why offers the bisection, a request from it finds the version, bad
# ones name the request's field. Every answer matches openapi.yaml.
. "$SLICELAB_SRC/tests/lib.sh"

SPIN="$BUILD/contrib/workloads/slicelab-spin"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-bis$$" || { not_ok "daemon starts"; finish; exit 1; }

DEFINITION="{\"sut\":{\"command\":[\"$SPIN\",\"--threads\",\"1\",\"--seconds\",\"0.5\",\"--change-at\",\"0.001\",\"--change-factor\",\"{factor}\"]}}"
# versions F1 F2 ...: v1, v2, ... with those factors.
versions() {
        local i=0 f out=
        for f in "$@"; do
                i=$((i + 1))
                out+="${out:+,}{\"name\":\"v$i\",\"vars\":{\"factor\":\"$f\"}}"
        done
        echo "[$out]"
}
# bisect NAME VERSIONS [METRIC]: POST /v1/bisections; BIS_ID its id. The margin is ±40%, the
# change a third of the ops/s: on a busy 2-CPU machine (the ASan build beside other tests) two
# alike versions' steps stayed undecided at ±20% after 8 and 16 rounds, interval 0.78-1.17.
bisect() {
        api_auth POST /v1/bisections -H 'Content-Type: application/json' --data \
                "{\"name\":\"$1\",\"definition\":$DEFINITION,\"cell\":{\"cpus\":\"1\"},\"versions\":$2,
                  \"metric\":\"${3:-ops_per_s}\",\"difference_pct\":40,\"iterations\":{\"min\":3,\"max\":8}}"
        BIS_ID=$(jq -r '.id // empty' <<<"$BODY")
}
bisection_ended() {
        local status
        status=$(curl -s "$DAEMON_URL/v1/bisections/$1" | jq -r .status)
        [ "$status" != queued ] && [ "$status" != running ]
}
# has_steps ID N: the bisection has queued at least N steps.
has_steps() {
        json_true ".steps | length >= $2" "$(curl -s "$DAEMON_URL/v1/bisections/$1")"
}

# --- bad requests: the request's own field ------------------------------------------------------
refused() { # NAME FIELD VERSIONS [METRIC]
        bisect bad "$3" "${4:-}"
        check_eq "$1: a 400 naming $2" "400 $2" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
}
refused "a version that does not fill a placeholder" "definition.sut.command[8]" \
        '[{"name":"v1","vars":{"factor":"1"}},{"name":"v2","vars":{"speed":"1"}}]'
check_match "said of the version" "placeholder \{factor\} is not among versions\[1\]\.vars" "$(jq -r .error.message <<<"$BODY")"
refused "one version" versions "$(versions 1)"
refused "a name twice" "versions[1].name" '[{"name":"v1","vars":{"factor":"1"}},{"name":"v1","vars":{"factor":"3"}}]'
refused "a version without vars" "versions[1].vars" '[{"name":"v1","vars":{"factor":"1"}},{"name":"v2"}]'
refused "a metric no stop rule compares" metric "$(versions 1 3)" errors
api_auth POST /v1/bisections -H 'Content-Type: application/json' --data \
        "{\"name\":\"x\",\"definition\":{\"sut\":{\"command\":[\"$SPIN\"]},\"cells\":[{\"name\":\"a\"}]},\"versions\":$(versions 1 3),\"metric\":\"ops_per_s\",\"difference_pct\":20}"
check_eq "a definition with cells: 400 on definition" "400 definition" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
check_eq "nothing refused was stored" 0 "$(curl -s "$DAEMON_URL/v1/bisections" | jq '.bisections | length')"

# --- eight versions, the change at version 6 ----------------------------------------------------
bisect "which version slowed the spin" "$(versions 1 1 1 1 1 3 3 3)"
check_eq "a bisection is accepted" 201 "$HTTP_STATUS"
check_schema "its answer" createBisection 201
EIGHT=$BIS_ID
# The daemon stopped once the second step is queued, and started again on the same state.
wait_for 300 has_steps "$EIGHT" 2 || not_ok "the second step was queued"
check_eq "the bisection is under way when the daemon stops" running "$(curl -s "$DAEMON_URL/v1/bisections/$EIGHT" | jq -r .status)"
daemon_stop
daemon_start --cgroup-root "slicelab-bis$$" || { not_ok "the daemon starts again"; finish; exit 1; }
wait_for 900 bisection_ended "$EIGHT" || not_ok "the bisection ended in time" "$(curl -s "$DAEMON_URL/v1/bisections/$EIGHT")"
api GET "/v1/bisections/$EIGHT"
check_schema "the bisection" getBisection 200
echo "# steps: $(jq -c '[.steps[] | [.versions, .decision, .ratio, .interval]]' <<<"$BODY")"
echo "# message: $(jq -r .message <<<"$BODY")"
check_eq "it found version 6, version 5 the last unchanged" "succeeded found v6 v5" \
        "$(jq -r '"\(.status) \(.result.outcome) \(.result.first_changed) \(.result.last_unchanged)"' <<<"$BODY")"
# A step's experiment that could not decide (a noisy round on a busy machine) runs again: the
# bisection's steps are its decided ones.
check "in at most 4 decided steps, any undecided one run again with its versions" \
        json_true '([.steps[] | select(.decision == "different" or .decision == "equivalent")] | length) <= 4 and
                   ([range(0; .steps | length) as $i | .steps[$i] as $s | select($s.decision == "undecided") |
                     (.steps[$i + 1] // {}) | .versions == $s.versions and .attempt == $s.attempt + 1] | all)' "$BODY"
check "step 0 compared the ends and found them different, v8 at about a third of v1's ops/s" \
        json_true '.steps[0].versions == ["v1", "v8"] and .steps[0].decision == "different" and .steps[0].ratio < 0.5' "$BODY"
check "the last step compared v4 and v5 and found them equivalent" \
        json_true '.steps[-1].versions == ["v4", "v5"] and .steps[-1].decision == "equivalent"' "$BODY"
# The same bisection written here from its decisions alone: the ends first, then the last
# unchanged version against the middle of the range (rounded down), the same pair again after an
# undecided step; the pairs and the result must be the daemon's.
replay() {
        local lo=0 hi=7 a=0 b=7 want= decision
        for decision in $(jq -r '.steps[].decision' <<<"$BODY"); do
                want+="v$((a + 1)),v$((b + 1)) "
                case $decision in
                different) [ $b -ne 7 ] || [ $a -ne 0 ] && hi=$b ;;
                equivalent) lo=$b ;;
                esac
                [ "$decision" = undecided ] || { a=$lo; b=$((lo + (hi - lo) / 2)); }
        done
        echo "${want}-> v$((hi + 1)) v$((lo + 1))"
}
check_eq "its steps and result are those of a bisection replayed from its decisions" "$(replay)" \
        "$(jq -r '([.steps[] | .versions | join(",")] | join(" ")) + " -> \(.result.first_changed) \(.result.last_unchanged)"' <<<"$BODY")"
STEP_EXP=$(jq -r '.steps[1].experiment_id' <<<"$BODY")
api GET "/v1/experiments/$STEP_EXP"
check_eq "a step is an experiment of its two versions with a stop rule, labelled with the bisection" \
        "[\"v1\",\"v4\"] $EIGHT 1 ops_per_s v1" \
        "$(jq -r '"\([.definition.cells[].name] | tojson) \(.definition.labels.bisection) \(.definition.labels.bisection_step) \(.definition.stop.metrics[0]) \(.definition.stop.baseline)"' <<<"$BODY")"
check_eq "and its cells ran the versions' own commands" "1 1" \
        "$(jq -r '[.definition.cells[].vars.factor] | join(" ")' <<<"$BODY")"

# --- all alike, and a change between the first two ---------------------------------------------
bisect "all alike" "$(versions 1 1 1 1)"
SAME=$BIS_ID
# The change between the first two through the client, which follows it to its end.
CLIENT_OUT=$(mktemp "$TEST_TMP/bisect-out.XXXXXX")
CLIENT_ERR=$(mktemp "$TEST_TMP/bisect-err.XXXXXX")
echo "{\"name\":\"the second version\",\"definition\":$DEFINITION,\"cell\":{\"cpus\":\"1\"},
      \"versions\":$(versions 1 3 3),\"metric\":\"ops_per_s\",\"difference_pct\":40,\"iterations\":{\"min\":3,\"max\":8}}" |
        SLICELAB_TOKEN=$DAEMON_TOKEN timeout 600 "$BUILD/client/slicelab" --url "$DAEMON_URL" bisect - >"$CLIENT_OUT" 2>"$CLIENT_ERR" &
CLIENT_PID=$!
wait_for 600 bisection_ended "$SAME" || not_ok "the all-alike bisection ended in time"
wait "$CLIENT_PID"
check_eq "slicelab bisect exits 0 when it found the version" 0 "$?"
SECOND=$(sed -n 's/^bisection \([A-Za-z0-9_-]*\) started$/\1/p' "$CLIENT_ERR")
check_eq "and prints it with its unchanged neighbour" "$SECOND: first changed v2 (last unchanged v1)" "$(head -1 "$CLIENT_OUT")"
check_match "with a line per decided step on standard error" \
        "step 0: v3 against v1 \(attempt 0, experiment [A-Za-z0-9_-]+\): different, ratio 0\.[0-9]+ in \[" "$(cat "$CLIENT_ERR")"
api GET "/v1/bisections/$SAME"
echo "# all alike: $(jq -c '[.steps[] | [.versions, .decision, .ratio, .interval]]' <<<"$BODY") $(jq -r .message <<<"$BODY")"
check_eq "versions all alike: no change, after the one step of the ends" "succeeded no_change 1" \
        "$(jq -r '"\(.status) \(.result.outcome) \(.steps | length)"' <<<"$BODY")"
api GET "/v1/bisections/$SECOND"
check_eq "a change between the first two: v2 found, v1 the last unchanged" "succeeded found v2 v1" \
        "$(jq -r '"\(.status) \(.result.outcome) \(.result.first_changed) \(.result.last_unchanged)"' <<<"$BODY")"

# --- cancel ---------------------------------------------------------------------------------------
bisect "cancelled" "$(versions 1 1 3)"
CANCELLED=$BIS_ID
wait_for 120 has_steps "$CANCELLED" 1 || not_ok "its first step was queued"
api_auth DELETE "/v1/bisections/$CANCELLED"
check_eq "a cancel answers with the bisection, cancelled" cancelled "$(jq -r .status <<<"$BODY")"
check_schema "the cancel's answer" cancelBisection "$HTTP_STATUS"
STEP_EXP=$(jq -r '.steps[0].experiment_id' <<<"$BODY")
wait_for 120 experiment_finished "$STEP_EXP" || not_finished "$STEP_EXP"
check_eq "its step's experiment was cancelled" cancelled "$(curl -s "$DAEMON_URL/v1/experiments/$STEP_EXP" | jq -r .status)"
api_auth DELETE "/v1/bisections/$CANCELLED"
check_eq "cancelling again changes nothing" "200 cancelled" "$HTTP_STATUS $(jq -r .status <<<"$BODY")"
api GET /v1/bisections
check_schema "the list" listBisections 200
check_eq "the list has the four, newest first" "$CANCELLED $SECOND $SAME $EIGHT" "$(jq -r '[.bisections[].id] | join(" ")' <<<"$BODY")"
check_eq "no step was queued after the cancel" 1 "$(curl -s "$DAEMON_URL/v1/bisections/$CANCELLED" | jq '.steps | length')"
api GET /v1/bisections/zzzzzzzzzzzz
check_eq "an unknown bisection is a 404" 404 "$HTTP_STATUS"

# --- from a series' change point (item 3) -----------------------------------------------------------
# Eight experiments of the benchmark labelled as one app, four with factor 1 and four with 3 (one
# string of the command changed): the series of ops_per_s has one change point between the 4th
# and the 5th, whose why offers the bisection of that string; four versions from that change
# point (1 1 3 3) find the third. alpha and min_segment as series.sh sets them for eight points.
APP="bis-series-$$"
SERIES_IDS=()
for f in 1 1 1 1 3 3 3 3; do
        post_experiment "$(definition --name "series f$f" --iterations 1 --merge "{\"labels\":{\"app\":\"$APP\"}}" --cell c:1 \
                -- "$SPIN" --threads 1 --seconds 0.5 --change-at 0.001 --change-factor "$f")"
        [ "$HTTP_STATUS" = 201 ] || not_ok "series experiment accepted" "$BODY"
        SERIES_IDS+=("$EXP_ID")
done
for id in "${SERIES_IDS[@]}"; do wait_for 120 experiment_finished "$id" || not_finished "$id"; done
SERIES_Q="label=app=$APP&cell=c&metric=ops_per_s&alpha=0.05&min_segment=2"
api GET "/v1/series?$SERIES_Q"
check_schema "the series with its change point's why" getSeries 200
check_eq "one change point, between the 4th and the 5th experiment" "1 3 4" \
        "$(jq -r '"\(.change_points | length) \(.change_points[0].before.index) \(.change_points[0].after.index)"' <<<"$BODY")"
check_eq "its why offers the bisection of the one string that changed" '{"possible":true,"fields":["definition.sut.command[8]"]}' \
        "$(jq -c '.change_points[0].why.bisection' <<<"$BODY")"
SHIFT=$(jq -r '.change_points[0].shift' <<<"$BODY")
# from_series VERSIONS [CHANGE_POINT [MORE]]: POST /v1/bisections from the series.
from_series() {
        api_auth POST /v1/bisections -H 'Content-Type: application/json' --data \
                "{\"series\":{\"labels\":{\"app\":\"$APP\"},\"cell\":\"c\",\"metric\":\"ops_per_s\",\"alpha\":0.05,\"min_segment\":2},
                  \"change_point\":${2:-0},\"versions\":$1,\"iterations\":{\"min\":3,\"max\":8}${3:-}}"
        BIS_ID=$(jq -r '.id // empty' <<<"$BODY")
}
from_refused() { # NAME STATUS FIELD VERSIONS [CHANGE_POINT [MORE]]
        from_series "$4" "${5:-0}" "${6:-}"
        check_eq "$1: $2 naming $3" "$2 $3" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
}
from_refused "a change point the series does not have" 400 change_point "$(versions 1 3)" 1
from_refused "a first version that does not make the before side" 400 "versions[0].vars" "$(versions 2 3)"
from_refused "a last version that does not make the after side" 400 "versions[1].vars" "$(versions 1 2)"
from_refused "a definition beside the series" 400 definition "$(versions 1 3)" 0 ",\"definition\":{}"
api_auth POST /v1/bisections -H 'Content-Type: application/json' --data \
        "{\"series\":{\"labels\":{\"app\":\"$APP\"},\"cell\":\"nope\",\"metric\":\"ops_per_s\"},\"change_point\":0,\"versions\":$(versions 1 3)}"
check_eq "a cell no experiment of the series has: 400 naming series.cell" "400 series.cell" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
from_series "$(versions 1 1 3 3)"
check_eq "a bisection from the change point is taken" 201 "$HTTP_STATUS"
check_schema "its answer" createBisection 201
FROM=$BIS_ID
check "the request made: the before side's command with {factor}, the series' metric, half its shift" json_true \
        ".request.definition.sut.command[8] == \"{factor}\" and .request.cell.cpus == \"1\" and .request.metric == \"ops_per_s\"
         and .request.difference_pct == ((($SHIFT | fabs) * 1000 / 2 | round) / 10)
         and .request.from_series.before == \"${SERIES_IDS[3]}\" and .request.from_series.after == \"${SERIES_IDS[4]}\"
         and .request.from_series.fields == [\"definition.sut.command[8]\"]" "$BODY"
echo "# from the series: shift $SHIFT, difference_pct $(jq -r .request.difference_pct <<<"$BODY")"
wait_for 600 bisection_ended "$FROM" || not_ok "the bisection from the series ended in time"
api GET "/v1/bisections/$FROM"
check_eq "it finds the third version, the second the last unchanged" "succeeded found v3 v2" \
        "$(jq -r '"\(.status) \(.result.outcome) \(.result.first_changed) \(.result.last_unchanged)"' <<<"$BODY")"
check_eq "its steps are not in the series (they carry no app label)" 8 \
        "$(curl -s "$DAEMON_URL/v1/series?$SERIES_Q" | jq '.experiments | length')"
finish
