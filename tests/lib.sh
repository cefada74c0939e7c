# lib.sh: helpers for the integration tests: assertions that count, and a real slicelabd
# started under a stand-in for systemd's notify socket (tests/tools/notify-listen).
# Source it; call `finish` last. Every assertion prints "ok N - name" or "not ok N - name".

set -u
BUILD=${SLICELAB_BUILD:?run me through meson test}
SRC=${SLICELAB_SRC:?run me through meson test}
SLICELABD="$BUILD/slicelabd"
NOTIFY_LISTEN="$BUILD/tests/notify-listen"
T_PASS=0
T_FAIL=0
T_N=0
TEST_TMP=$(mktemp -d /tmp/slicelab-test.XXXXXX)
# The runs' processes are the slicelab user's (the daemon's default --run-as): they traverse to
# their run directory under the test's state dir, and read the scripts the tests write here.
chmod 0711 "$TEST_TMP"
# What units/sysusers.conf and contrib/demo.sh make on a real host.
id -u slicelab >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin slicelab 2>/dev/null || id -u slicelab >/dev/null

ok() {
        T_N=$((T_N + 1))
        T_PASS=$((T_PASS + 1))
        echo "ok $T_N - $1"
}

not_ok() {
        T_N=$((T_N + 1))
        T_FAIL=$((T_FAIL + 1))
        echo "not ok $T_N - $1"
        [ $# -gt 1 ] && printf '#   %s\n' "${@:2}"
        return 0
}

# check NAME CMD...: passes when CMD succeeds.
check() {
        local name=$1
        shift
        if "$@"; then ok "$name"; else not_ok "$name" "command failed: $*"; fi
}

# check_eq NAME WANT GOT
check_eq() {
        if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "want: $2" "got:  $3"; fi
}

# loopback_port [COUNT]: the first of COUNT consecutive ports that nothing listens on, below the
# kernel's ephemeral range. A port inside that range can be the local port of any client socket
# on the host when the test's server binds it, and the bind then fails (EADDRINUSE: a JVM SUT
# fails to start so, the likely cause of a red CI run). Where a test starts depends on its pid,
# so that tests side by side start apart.
loopback_port() {
        local count=${1:-1} low first span=8000 i p q busy listening
        read -r low _ </proc/sys/net/ipv4/ip_local_port_range
        first=$((low - span - 1000 > 1024 ? low - span - 1000 : 1024))
        listening=" $(ss -Htln | awk '{ n = split($4, a, ":"); print a[n] }' | tr '\n' ' ') "
        for ((i = 0; i < span; i++)); do
                p=$((first + ($$ + i) % span))
                busy=
                for ((q = p; q < p + count; q++)); do
                        [[ $listening == *" $q "* ]] && busy=1
                done
                [ -z "$busy" ] && { echo "$p"; return 0; }
        done
        return 1
}

# check_match NAME REGEX TEXT
check_match() {
        if printf '%s' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1" "want match: $2" "got: $3"; fi
}

# Daemon under notify-listen: its events arrive on the coprocess's stdout, read with
# daemon_wait_event. DAEMON_PORT, DAEMON_URL, DAEMON_PID, DAEMON_STATE are set. Never the
# default cgroup root, state dir or port: a real slicelabd may be measuring on this host, and a
# second daemon's start-up reconciliation on its root would kill that daemon's runs (a later
# --cgroup-root in the arguments wins).
daemon_start() {
        DAEMON_STATE=${DAEMON_STATE:-$TEST_TMP/state}
        local sock=$TEST_TMP/notify.sock line
        coproc DAEMON_NL { exec "$NOTIFY_LISTEN" "$sock" -- ${DAEMON_WRAPPER:-} "$SLICELABD" \
                --listen "${DAEMON_LISTEN:-127.0.0.1:0}" --state-dir "$DAEMON_STATE" \
                --cgroup-root "slicelab-test$$" "$@" 2>>"$TEST_TMP/daemon.log"; }
        NL_PID=$DAEMON_NL_PID
        exec {DAEMON_EVENTS}<&"${DAEMON_NL[0]}"
        read -r -t 20 line <&$DAEMON_EVENTS || { echo "# no PID line"; return 1; }
        DAEMON_PID=${line#PID }
        daemon_wait_event 'READY=1' 60 || { echo "# daemon never became ready"; cat "$TEST_TMP/daemon.log"; return 1; }
        DAEMON_PORT=$(printf '%s' "$DAEMON_LAST_EVENT" | grep -o 'Listening on [^ |;]*' | sed 's/.*://')
        DAEMON_URL="http://127.0.0.1:$DAEMON_PORT"
        DAEMON_TOKEN=$(cat "$DAEMON_STATE/token")
}

# A test with two daemons: daemon_save NAME keeps the DAEMON_* variables of the daemon started
# last under NAME, daemon_use NAME makes NAME's the ones the helpers here work with.
DAEMON_VARS=(DAEMON_STATE DAEMON_PID NL_PID DAEMON_EVENTS DAEMON_PORT DAEMON_URL DAEMON_TOKEN)
daemon_save() {
        local v
        for v in "${DAEMON_VARS[@]}"; do eval "${1}_$v=\${$v:-}"; done
}
daemon_use() {
        local v
        for v in "${DAEMON_VARS[@]}"; do eval "$v=\${${1}_$v:-}"; done
}
# daemon_stop_all NAME...: stops each, ending with the first one in use.
daemon_stop_all() {
        local n i
        for ((i = $#; i >= 1; i--)); do
                n=${!i}
                daemon_use "$n"
                daemon_stop
                daemon_save "$n"
        done
}

# daemon_wait_event PATTERN [TIMEOUT_S]: read events until one matches; DAEMON_LAST_EVENT holds it.
daemon_wait_event() {
        local line deadline=$((SECONDS + ${2:-30}))
        while [ $SECONDS -lt $deadline ]; do
                read -r -t $((deadline - SECONDS + 1)) line <&$DAEMON_EVENTS || return 1
                DAEMON_LAST_EVENT=$line
                case $line in *$1*) return 0 ;; EXIT* | SIGNAL*) [[ $1 == EXIT* ]] || return 1 ;; esac
        done
        return 1
}

# daemon_stop: SIGTERM, then the exit status line; DAEMON_EXIT holds "EXIT n" or "SIGNAL n".
daemon_stop() {
        [ -n "${DAEMON_PID:-}" ] || return 0
        kill -TERM "$DAEMON_PID" 2>/dev/null
        daemon_wait_event 'EXIT' 30 || daemon_wait_event 'SIGNAL' 1
        DAEMON_EXIT=$DAEMON_LAST_EVENT
        wait "$NL_PID" 2>/dev/null
        DAEMON_PID=
}

# api METHOD PATH [curl args...]: sets HTTP_STATUS and BODY (not in a subshell, so call it
# plainly: `api GET /v1/health; jq . <<<"$BODY"`).
api() {
        local method=$1 path=$2
        shift 2
        HTTP_STATUS=$(curl -sS -o "$TEST_TMP/body" -w '%{http_code}' -X "$method" "$@" "$DAEMON_URL$path")
        BODY=$(cat "$TEST_TMP/body")
}

api_auth() {
        local method=$1 path=$2
        shift 2
        api "$method" "$path" -H "Authorization: Bearer $DAEMON_TOKEN" "$@"
}

finish() {
        daemon_stop
        # A connection given back with a statement still reading pins an old snapshot for its
        # next borrower (storage_release() resets it, and logs which): every test asserts none was.
        if [ -s "$TEST_TMP/daemon.log" ] && grep -q "given back unreset" "$TEST_TMP/daemon.log"; then
                not_ok "no statement was given back to the pool unreset" "$(grep "given back unreset" "$TEST_TMP/daemon.log" | sort | uniq -c | head -5)"
        fi
        rm -rf "$TEST_TMP"
        echo "1..$T_N"
        echo "# $T_PASS passed, $T_FAIL failed"
        [ "$T_FAIL" -eq 0 ] && [ "$T_N" -gt 0 ]
}
# EXIT too: a script that stops early (set -e, a missing tool) leaves no directory behind.
trap 'daemon_stop; rm -rf "$TEST_TMP"' EXIT INT TERM

# wait_for SECONDS CMD...: polls CMD every 0.1 s (for states only the API can tell; there is no
# event to wait on) until it succeeds; returns 1 on timeout.
wait_for() {
        local deadline=$((SECONDS + $1))
        shift
        until "$@"; do
                [ $SECONDS -ge $deadline ] && return 1
                sleep 0.1
        done
}

# experiment_finished ID: its status is final (for wait_for). A daemon that stops answering does
# not hang the poll, and an answer without a status is not final.
experiment_finished() {
        case $(curl -s --max-time 10 "$DAEMON_URL/v1/experiments/$1" | jq -r .status) in
        queued | running | "" | null) return 1 ;;
        esac
}

# not_finished ID: a not_ok naming an experiment that did not finish in time, with what its runs
# were doing and the end of the daemon's log, so a hang says where it hung.
not_finished() {
        local runs
        runs=$(curl -s --max-time 10 "$DAEMON_URL/v1/experiments/$1/runs" | jq -r '.runs[]? | "\(.id) \(.cell) #\(.iteration): \(.state) \(.reason // "") \(.message // "")"')
        not_ok "experiment $1 finished in time" "its runs:" "$runs" "the daemon's log ends:" "$(tail -n 40 "$TEST_TMP/daemon.log")"
}

# definition [OPTION...] [-- COMMAND [ARG...]]: an experiment definition as one line of JSON on
# stdout (jq -c), {name, iterations, sut, load, cells} and then what --merge adds:
#   --name NAME          the name ("t" when not given)
#   --iterations N       iterations (left out when not given)
#   -- COMMAND ARG...    sut.command, one argument per word (no JSON quoting)
#   --jvm                sut.jvm true
#   --ready OBJECT       sut.ready
#   --sut OBJECT         more of sut ({"env":...}, or {"command":[...]} for a command held as JSON)
#   --load OBJECT        load (left out when not given)
#   --cell CELL          a cell, in order, as many as wanted: NAME, NAME:CPUS, NAME:CPUS:CPU_QUOTA
#                        or a JSON object; without any --cell (or --cells) one cell {"name":"a"}
#   --cells ARRAY        the cells as one JSON array (from jq for many; it wins over --cell)
#   --merge OBJECT       merged last, deeply (jq's *): any other member (labels, order, host,
#                        checks, max_consecutive_failures ...) or a change of the ones above
# Definitions that must be malformed or unusual to be refused stay literal in their tests.
definition() {
        local name=t iterations='' jvm=false ready=null sut='{}' load=null cells='' cells_json=null merge='{}' command=''
        while [ $# -gt 0 ]; do
                case $1 in
                --) shift; break ;;
                --jvm) jvm=true; shift; continue ;;
                --name | --iterations | --ready | --sut | --load | --cell | --cells | --merge)
                        [ $# -ge 2 ] || { echo "definition: $1 wants a value" >&2; return 2; } ;;
                *) echo "definition: unknown option $1" >&2; return 2 ;;
                esac
                case $1 in
                --name) name=$2 ;;
                --iterations) iterations=$2 ;;
                --ready) ready=$2 ;;
                --sut) sut=$2 ;;
                --load) load=$2 ;;
                --cell) cells+=$'\x1f'$2 ;;
                --cells) cells_json=$2 ;;
                --merge) merge=$2 ;;
                esac
                shift 2
        done
        # The command and the cells reach jq as one string each, every word after a \x1f (jq 1.6
        # would read a word of a command such as -jar as its own option, even after --args).
        [ $# -eq 0 ] || printf -v command '\x1f%s' "$@"
        jq -cn --arg name "$name" --arg iterations "$iterations" --argjson jvm "$jvm" \
                --argjson ready "$ready" --argjson sut "$sut" --argjson load "$load" --arg command "$command" \
                --arg cells "$cells" --argjson cells_json "$cells_json" --argjson merge "$merge" '
                def words: split("\u001f")[1:];
                def cell: if startswith("{") then fromjson
                        else split(":") as $f | {name: $f[0]} + (if $f[1] then {cpus: $f[1]} else {} end)
                                + (if $f[2] then {cpu_quota: ($f[2] | tonumber)} else {} end) end;
                ({name: $name}
                + (if $iterations != "" then {iterations: ($iterations | tonumber)} else {} end)
                + {sut: ((if $command != "" then {command: ($command | words)} else {} end)
                        + (if $jvm then {jvm: true} else {} end)
                        + (if $ready != null then {ready: $ready} else {} end) + $sut)}
                + (if $load != null then {load: $load} else {} end)
                + {cells: ($cells_json // (if $cells != "" then $cells | words | map(cell) else [{name: "a"}] end))})
                * $merge'
}

# post_experiment JSON: POST with the token; EXP_ID holds the new experiment's id.
post_experiment() {
        api_auth POST /v1/experiments -H 'Content-Type: application/json' --data "$1"
        EXP_ID=$(jq -r '.id // empty' <<<"$BODY")
}

# run_field RUN_ID JQ: one field of GET /v1/runs/{id}.
run_field() {
        curl -s "$DAEMON_URL/v1/runs/$1" | jq -r "$2"
}

# A run's state, and for one that did not succeed its reason and message too, so that a check of
# "succeeded" says why when it fails (a jq filter on a run object).
RUN_OUTCOME_JQ='if .state == "succeeded" then .state else "\(.state) \(.reason // "-"): \(.message // "")" end'

# run_outcome RUN_ID: RUN_OUTCOME_JQ of GET /v1/runs/{id}.
run_outcome() {
        run_field "$1" "$RUN_OUTCOME_JQ"
}

run_state_is() {
        [ "$(run_field "$1" .state)" = "$2" ]
}

run_finished() {
        case $(run_field "$1" .state) in succeeded | failed | cancelled | interrupted) return 0 ;; esac
        return 1
}

# first_run EXP_ID: the id of the experiment's first run.
first_run() {
        curl -s "$DAEMON_URL/v1/experiments/$1/runs" | jq -r '.runs[0].id'
}

# no_slices_of RUN_ID: no directory of the run in any cgroup hierarchy.
no_slices_of() {
        [ -z "$(find /sys/fs/cgroup -maxdepth 4 -type d -name "run-$1" 2>/dev/null)" ]
}

# alive PID: the process exists and is not a zombie (an orphan's zombie waits on whoever adopted it).
alive() {
        local state
        state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
        [ -n "$state" ] && [ "$state" != Z ]
}

# not CMD...: succeeds when CMD fails (for check).
not() {
        ! "$@"
}

# check_schema NAME OPERATION_ID STATUS [CONTENT_TYPE]: the last api/api_auth body validates
# against openapi.yaml's schema for that operation and status (tests/openapi/validate.js).
check_schema() {
        local out
        if out=$(node "$SRC/tests/openapi/validate.js" "$2" "$3" "$TEST_TMP/body" ${4:+"$4"} 2>&1); then
                ok "$1 matches openapi.yaml ($2 $3)"
        else
                not_ok "$1 matches openapi.yaml ($2 $3)" "$out"
        fi
}

# sequential_of ID: the experiment's report in BODY, its stop-rule section in SEQ, printed for the log.
sequential_of() {
        api GET "/v1/experiments/$1/report"
        SEQ=$(jq -c .sequential <<<"$BODY")
        echo "# stop rule: $(jq -c '{state, rounds, min_rounds, max_rounds, comparisons: [.comparisons[] | {metric, decision, round, pairs, ratio, interval}]}' <<<"$SEQ")"
}
# sequential_decisions: SEQ's state and each comparison's cell, baseline, metric and decision, on a line.
sequential_decisions() { jq -r '"\(.state) \([.comparisons[] | .cell, .baseline, .metric, .decision] | join(" "))"' <<<"$SEQ"; }
# experiment_runs ID: every run of the experiment as GET /v1/runs/{id} gives it, in one JSON array.
experiment_runs() {
        local r
        for r in $(curl -s "$DAEMON_URL/v1/experiments/$1/runs" | jq -r '.runs[].id'); do
                curl -s "$DAEMON_URL/v1/runs/$r"
        done | jq -s -c .
}

# running_cmd PATTERN: a process whose command line matches (put a [x] in the pattern so that
# pgrep does not find the shell running it).
running_cmd() {
        pgrep -f "$1" >/dev/null
}

# json_true JQ_FILTER JSON: the filter holds (jq -e), quietly.
json_true() {
        jq -e "$1" <<<"$2" >/dev/null
}
