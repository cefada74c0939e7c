#!/bin/bash
# loads.sh: the peer side of issue 25 against real daemons. Host 1 is a network namespace whose
# slicelabd runs in a time namespace 1000 s ahead of ours; the test plays the coordinator from the
# root namespace (10.231.K.1, the bridge) with curl and with peer-tool (the peer/ library), and a
# small HTTP server on the bridge is the target. Checked: the clock a coordinator measures (GET
# /v1/clock and peer_clock_measure, against the true 1000 s), a load's schedule starting at the
# start_at given in the peer's clock, shifted by its phase; the lease (renewed; lapsed: expired,
# its slice and process gone); DELETE; 401, 403 (a coordinator not allowed, or not the sender, a
# target not allowed), 400s naming the field, 409 for busy CPUs; and kill -9 of the daemon mid-load
# (issue 39): its injector dies with it, before any restart, and after the restart the load is
# interrupted and nothing of it is left. peer_probe (issue 39): the peer answers with its version,
# a host without a daemon and one that never answers do not, and a peer that sends back the token
# it was sent has it withheld.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/netns.sh"

OFFSET_S=1000
HTTP_SERVER="$BUILD/tests/injector/http-test-server"
PEER_TOOL="$BUILD/tests/peers/peer-tool"

cleanup_server() {
        [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
        SERVER_PID=
}
NETNS_AFTER_TEARDOWN=cleanup_server

netns_setup 2 || { echo "Bail out! cannot make the namespaces"; exit 1; }
ME=$(netns_gateway)
ALLOW="10.231.$NETNS_K.*"
peer_start 1 "$OFFSET_S" --peer-allow "$ALLOW" || { netns_teardown; echo "Bail out! no peer daemon"; exit 1; }
H1=$(netns_addr 1)
check_eq "the peer's pid is slicelabd's (what kill -9 is aimed at)" slicelabd "$(cat "/proc/${PEER_PID[1]}/comm")"

# papi I METHOD PATH [curl args]: host I's API with its token; HTTP_STATUS, BODY.
papi() {
        local i=$1 method=$2 path=$3
        shift 3
        HTTP_STATUS=$(curl -sS --max-time 20 -o "$TEST_TMP/body" -w '%{http_code}' -X "$method" \
                -H "Authorization: Bearer ${PEER_TOKEN[$i]}" -H 'Content-Type: application/json' "$@" "${PEER_URL[$i]}$path")
        BODY=$(cat "$TEST_TMP/body")
}
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
peer_now() { curl -s --max-time 10 "${PEER_URL[1]}/v1/clock" | jq -r .monotonic_ns; }
# A start 2 s ahead in the peer's clock: the injector refuses one more than 1 s past when it
# starts, and a slow machine (the sanitizer build) may take that long to get there.
soon() { echo $(($(peer_now) + 2000000000)); }
load_state() { papi 1 GET "/v1/loads/$1"; jq -r .state <<<"$BODY"; }
load_state_is() { [ "$(load_state "$1")" = "$2" ]; }
load_finished() { case $(load_state "$1") in succeeded | failed | cancelled | expired | interrupted) return 0 ;; esac; return 1; }
slice_of_load() { find /sys/fs/cgroup -maxdepth 4 -type d -name "load-$1" 2>/dev/null; }
injector_of_load() { pgrep -f "slicelab-inject .*/runs/load-$1/" ; }
procs_of_load() { local d; for d in $(slice_of_load "$1"); do cat "$d/load/cgroup.procs" 2>/dev/null; done; }
field_is() { check_eq "$1" "$2" "$(jq -r "$3" <<<"$BODY")"; }

# ---- the clock ----------------------------------------------------------------------------------
before=$(mono_ns)
clock=$(curl -sS --max-time 10 "${PEER_URL[1]}/v1/clock")
after=$(mono_ns)
peer_mono=$(jq -r .monotonic_ns <<<"$clock")
low=$((before + OFFSET_S * 1000000000))
high=$((after + OFFSET_S * 1000000000))
check "GET /v1/clock: the peer's CLOCK_MONOTONIC is ours + ${OFFSET_S} s, read between our send and receive" \
        test "$peer_mono" -ge "$low" -a "$peer_mono" -le "$high"
check_match "GET /v1/clock gives realtime_ns as an exact integer" '"realtime_ns":[0-9]{19}[,}]' "$clock"

printf '%s\n' "${PEER_TOKEN[1]}" >"$TEST_TMP/peer.token"
TOOL=("$PEER_TOOL" "http://{host}:$NETNS_PORT" "$ALLOW" "$TEST_TMP/peer.token" "$H1")
if out=$("${TOOL[@]}" clock 8 2>&1); then
        read -r offset rtt error samples <<<"$out"
        echo "# peer_clock_measure: offset $offset ns, rtt $rtt ns, error $error ns, $samples samples"
        dev=$((offset - OFFSET_S * 1000000000))
        check "peer_clock_measure: the offset is the true ${OFFSET_S} s within its error bound (rtt/2)" \
                test "${dev#-}" -le "$error"
        check_eq "peer_clock_measure: error = rtt / 2" "$(((rtt + 1) / 2))" "$error"
        check_eq "peer_clock_measure: every exchange answered" 8 "$samples"
else
        not_ok "peer_clock_measure answers" "$out"
fi
out=$("$PEER_TOOL" "http://{host}:$NETNS_PORT" "192.0.2.*" "$TEST_TMP/peer.token" "$H1" clock 1 2>&1)
check_match "the library refuses a host --peer-allow does not match, naming it" "peer $H1 is not matched by --peer-allow" "$out"
out=$("${TOOL[@]:0:4}" "$H1.evil.invalid" clock 1 2>&1)
check_match "nor a name that begins like an address it matches" "peer $H1.evil.invalid is not matched by --peer-allow" "$out"

# ---- whether hosts answer now (peer_probe, for a coordinator's GET /v1/peers) -------------------
# The peer answers with its version; host 2's namespace has no daemon (refused). Fakes on
# loopback addresses: one that puts the token it was sent into its version, one into its error
# message (both withheld), one that never answers (the probe's own timeout ends it).
H2=$(netns_addr 2)
out=$("${TOOL[@]}" probe "$H2" 2>&1)
check_eq "peer_probe: the peer answers, with its daemon's version" "$H1 yes $(curl -s "${PEER_URL[1]}/v1/health" \
        -H "Authorization: Bearer ${PEER_TOKEN[1]}" | jq -r .version) -" "$(grep "^$H1 " <<<"$out")"
check_match "peer_probe: a host without a daemon does not, saying why" "^$H2 no - peer $H2: GET /v1/health: " "$(grep "^$H2 " <<<"$out")"
FAKE_PORT=$(loopback_port)
python3 - "$FAKE_PORT" >"$TEST_TMP/fake.out" 2>&1 <<'EOF_PY' &
import http.server, json, socket, sys, threading
port = int(sys.argv[1])
class Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        auth = self.headers.get("Authorization", "")
        token = auth.split(" ", 1)[-1]
        if self.server.server_address[0] == "127.0.0.11":
            code, body = 200, {"status": "ok", "version": token}
        else:
            code, body = 500, {"error": {"code": "internal", "message": "you sent " + token}}
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *a):
        pass
servers = [http.server.HTTPServer((a, port), Echo) for a in ("127.0.0.11", "127.0.0.12")]
silent = socket.socket()
silent.bind(("127.0.0.13", port))
silent.listen(8)  # never accepted: the request is queued and never answered
for s in servers:
    threading.Thread(target=s.serve_forever, daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
EOF_PY
FAKE_PID=$!
wait_for 30 grep -q ready "$TEST_TMP/fake.out"
out=$("$PEER_TOOL" "http://{host}:$FAKE_PORT" "127.0.0.*" "$TEST_TMP/peer.token" 127.0.0.11 probe 127.0.0.12,127.0.0.13 2>&1)
kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
check_eq "a peer whose version is the token it was sent: answers, its version withheld" "127.0.0.11 yes -" \
        "$(grep '^127.0.0.11 ' <<<"$out" | cut -d' ' -f1-3)"
check_match "one whose error message holds the token: the message withheld" \
        "^127.0.0.12 no - peer 127.0.0.12: GET /v1/health: HTTP 500 \(its message withheld\)$" "$(grep '^127.0.0.12 ' <<<"$out")"
check_match "one that never answers: its probe timed out" "^127.0.0.13 no - .*(timed out|Timeout)" "$(grep '^127.0.0.13 ' <<<"$out")"
check "no probe result holds the token" not grep -qF "${PEER_TOKEN[1]}" <<<"$out"

# ---- the target ---------------------------------------------------------------------------------
coproc SERVER { exec "$HTTP_SERVER" --listen "$ME"; }
SERVER_PID=$SERVER_PID
read -r -t 10 SERVER_PORT <&"${SERVER[0]}" || { not_ok "the test server starts"; }
TARGET="http://$ME:$SERVER_PORT/work"

# load_body CPUS START_AT LEASE_S [MEASURE_S] [EXTRA_LOAD_JSON] [EXTRA_TOP_JSON]
load_body() {
        local cpus=$1 at=$2 lease=$3 measure=${4:-2} extra_load=${5:-} extra=${6:-}
        printf '{"coordinator":"%s","coordinator_run":"run1","host":"%s","cpus":"%s","load":{"target":"%s","mode":"rate","rate":200,"arrival":"uniform","connections":4,"timeout_ms":2000,"warmup_s":1,"measure_s":%s%s},"phase_ns":%s,"seed":7,"start_at_ns":%s,"lease_s":%s%s}' \
                "$ME" "$H1" "$cpus" "$TARGET" "$measure" "$extra_load" "${PHASE:-0}" "$at" "$lease" "$extra"
}

# ---- a load that runs to its end ----------------------------------------------------------------
# What needs it unfinished comes first, before the slower checks.
PHASE=1234567
start_at=$(($(peer_now) + 5000000000))
load_body 1 "$start_at" 10 >"$TEST_TMP/a.json"
if A=$("${TOOL[@]}" start "$TEST_TMP/a.json" 2>&1); then ok "peer_load_start: 201 and an id"; else not_ok "peer_load_start" "$A"; A=none; fi
papi 1 GET "/v1/loads/$A/timeline"
check_eq "the timeline of a load not finished: 409" 409 "$HTTP_STATUS"
check "peer_load_renew renews" "${TOOL[@]}" renew "$A"
papi 1 POST "/v1/loads/$A/lease"
check_eq "POST /v1/loads/{id}/lease: 200" 200 "$HTTP_STATUS"
check "the renewed lease runs for lease_s" json_true '.expires_in_ms > 0 and .expires_in_ms <= 10000' "$BODY"
cp "$TEST_TMP/body" "$TEST_TMP/lease.json"
# A renewal has no body: it needs no Content-Type, but one it declares is JSON's. (curl, not
# papi, which declares JSON.)
renew_typed() { # ID [curl args]
        local id=$1
        shift
        HTTP_STATUS=$(curl -sS --max-time 20 -o "$TEST_TMP/body" -w '%{http_code}' -X POST \
                -H "Authorization: Bearer ${PEER_TOKEN[1]}" "$@" "${PEER_URL[1]}/v1/loads/$id/lease")
}
renew_typed "$A"
check_eq "a renewal without a Content-Type: 200" 200 "$HTTP_STATUS"
# The schema checks (node, slow on a busy machine) after the renewals that need the load unfinished.
cp "$TEST_TMP/lease.json" "$TEST_TMP/body"
check_schema "the lease" renewLoadLease 200
renew_typed "$A" -H 'Content-Type: text/plain'
check_eq "a renewal declaring another type: 415" 415 "$HTTP_STATUS"
check_schema "the 415" renewLoadLease 415
renew_typed "$A" -H 'Content-Type:' --data 'x'
check_eq "a body without a Content-Type: 415" 415 "$HTTP_STATUS"
papi 1 GET "/v1/loads/$A"
check_eq "GET /v1/loads/{id}: 200" 200 "$HTTP_STATUS"
check_schema "the load" getLoad 200
field_is "the load keeps its coordinator" "$ME" .coordinator
field_is "the load keeps its coordinator's run" run1 .coordinator_run
field_is "the load keeps its start in the peer's clock" "$start_at" .start_at_ns
wait_for 60 load_finished "$A" || true
papi 1 GET "/v1/loads/$A"
field_is "the load succeeded" succeeded .state
check "its summary is the injector's" json_true '.summary.requests > 0 and .summary.start_ns != null' "$BODY"
field_is "the summary's schedule starts at start_at" "$start_at" .summary.start_ns
check_match "peer_load_get: the load's body" '"state":"succeeded"' "$("${TOOL[@]}" get "$A" 2>&1)"
if "${TOOL[@]}" timeline "$A" "$TEST_TMP" a.bin; then ok "peer_load_fetch_timeline: the file"; else not_ok "peer_load_fetch_timeline"; fi
tl=$TEST_TMP/a.bin
head_start=$(od -An -t d8 -j 16 -N 8 "$tl" 2>/dev/null | tr -d ' ')
first_scheduled=$(od -An -t d8 -j 32 -N 8 "$tl" 2>/dev/null | tr -d ' ')
second_scheduled=$(od -An -t d8 -j 72 -N 8 "$tl" 2>/dev/null | tr -d ' ')
check_eq "the timeline's start is start_at, in the peer's clock" "$start_at" "$head_start"
check_eq "its first scheduled request is at start_at + phase_ns" "$((start_at + PHASE))" "$first_scheduled"
check_eq "the next one a gap (1/200 s) later" "$((start_at + PHASE + 5000000))" "$second_scheduled"
check_eq "the file holds one record per request of the summary" \
        "$(jq -r .summary.records <<<"$BODY")" "$((($(stat -c %s "$tl") - 32) / 40))"
etag=$(curl -sS -D - -o /dev/null -H "Authorization: Bearer ${PEER_TOKEN[1]}" "${PEER_URL[1]}/v1/loads/$A/timeline" | tr -d '\r' | sed -n 's/^ETag: //ip')
check_match "a finished load's timeline has an ETag" '^".+"$' "$etag"
papi 1 GET "/v1/loads/$A/timeline" -H "If-None-Match: $etag"
check_eq "and answers 304 to it" 304 "$HTTP_STATUS"
check "nothing of the finished load is left: no slice" test -z "$(slice_of_load "$A")"
papi 1 POST "/v1/loads/$A/lease"
check_eq "renewing a finished load: 409" 409 "$HTTP_STATUS"
papi 1 DELETE "/v1/loads/$A"
check_eq "DELETE of a finished load: 409" 409 "$HTTP_STATUS"
PHASE=0

# ---- who may ask ---------------------------------------------------------------------------------
# Starting in 30 s: the refusals below must not depend on how long the checks take.
load_body 0 "$(($(peer_now) + 30000000000))" 10 >"$TEST_TMP/b.json"
HTTP_STATUS=$(curl -sS -o "$TEST_TMP/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data @"$TEST_TMP/b.json" "${PEER_URL[1]}/v1/loads")
check_eq "POST /v1/loads without a token: 401" 401 "$HTTP_STATUS"
HTTP_STATUS=$(curl -sS -o "$TEST_TMP/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        -H "Authorization: Bearer $(printf '%064d' 0)" --data @"$TEST_TMP/b.json" "${PEER_URL[1]}/v1/loads")
check_eq "POST /v1/loads with a wrong token: 401" 401 "$HTTP_STATUS"
HTTP_STATUS=$(curl -sS -o /dev/null -w '%{http_code}' "${PEER_URL[1]}/v1/loads/$A")
check_eq "GET /v1/loads/{id} on a non-loopback listener needs the token" 401 "$HTTP_STATUS"

refused() { # NAME STATUS FIELD [curl args]
        local name=$1 status=$2 field=$3
        shift 3
        papi 1 POST /v1/loads "$@"
        check_eq "$name: $status" "$status" "$HTTP_STATUS"
        field_is "$name: names $field" "$field" .error.field
}
sed "s/\"coordinator\":\"$ME\"/\"coordinator\":\"192.0.2.7\"/" "$TEST_TMP/b.json" >"$TEST_TMP/c.json"
refused "a coordinator --peer-allow does not match" 403 coordinator --data @"$TEST_TMP/c.json"
sed "s/\"coordinator\":\"$ME\"/\"coordinator\":\"10.231.$NETNS_K.99\"/" "$TEST_TMP/b.json" >"$TEST_TMP/c.json"
refused "a coordinator that is not the sender" 403 coordinator --data @"$TEST_TMP/c.json"
HTTP_STATUS=$(netns_run 2 curl -sS -o "$TEST_TMP/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        -H "Authorization: Bearer ${PEER_TOKEN[1]}" --data @"$TEST_TMP/b.json" "${PEER_URL[1]}/v1/loads")
check_eq "a lab host naming another as coordinator: 403" 403 "$HTTP_STATUS"
sed "s#$TARGET#http://192.0.2.7:80/work#" "$TEST_TMP/b.json" >"$TEST_TMP/c.json"
refused "a target --peer-allow does not match" 403 load.target --data @"$TEST_TMP/c.json"
check_schema "the refusal" createLoad 403
# --peer-allow is an address pattern: a name that begins like a lab address resolves wherever
# its owner points it, and is no lab host, as target or as coordinator.
sed "s#$TARGET#http://10.231.$NETNS_K.evil.invalid:$SERVER_PORT/work#" "$TEST_TMP/b.json" >"$TEST_TMP/c.json"
refused "a target named like a lab address (10.231.$NETNS_K.evil.invalid)" 403 load.target --data @"$TEST_TMP/c.json"
sed "s/\"coordinator\":\"$ME\"/\"coordinator\":\"$ME.evil.invalid\"/" "$TEST_TMP/b.json" >"$TEST_TMP/c.json"
refused "a coordinator named like a lab address ($ME.evil.invalid)" 403 coordinator --data @"$TEST_TMP/c.json"
check_eq "no load was stored for them: only the first one is" "$A" "$(sqlite3 "${PEER_STATE[1]}/slicelab.db" 'SELECT id FROM loads')"

# ---- what is refused, naming the field -----------------------------------------------------------
now=$(($(peer_now) + 30000000000))
refused "a load.rate below 0" 400 load.rate --data "$(load_body 0 "$now" 10 | sed 's/"rate":200/"rate":-1/')"
refused "load.cpus (the request's cpus say where)" 400 load.cpus --data "$(load_body 0 "$now" 10 2 ',"cpus":"0"')"
refused "an external command" 400 load.command --data "$(load_body 0 "$now" 10 2 ',"command":["/bin/true"]')"
refused "a phase with Poisson arrivals" 400 phase_ns --data "$(PHASE=5 load_body 0 "$now" 10 | sed 's/"uniform"/"poisson"/')"
refused "a phase of a whole gap" 400 phase_ns --data "$(PHASE=5000000 load_body 0 "$now" 10)"
refused "a start more than 1 s in the past" 400 start_at_ns --data "$(load_body 0 "$((now - 40000000000))" 10)"
refused "a start more than an hour ahead" 400 start_at_ns --data "$(load_body 0 "$((now + 3600000000000))" 10)"
refused "a lease over 60 s" 400 lease_s --data "$(load_body 0 "$now" 61)"
refused "CPUs that are not online" 400 cpus --data "$(load_body 4000 "$now" 10)"
refused "an unknown field" 400 null --data "$(load_body 0 "$now" 10 2 '' ',"agents":3')"
check_schema "a 400" createLoad 400

# ---- the lease lapses ----------------------------------------------------------------------------
# Renewed while the test looks at it, then left to lapse.
renewed_and_running() { papi 1 POST "/v1/loads/$1/lease" >/dev/null; load_state_is "$1" running; }
papi 1 POST /v1/loads --data "$(load_body 1 "$(soon)" 3 60)"
check_eq "POST /v1/loads: 201" 201 "$HTTP_STATUS"
B=$(jq -r .id <<<"$BODY")
wait_for 30 renewed_and_running "$B" || { papi 1 GET "/v1/loads/$B"; echo "# load $B: $BODY"; tail -n 5 "$TEST_TMP/peer1.log" | sed 's/^/#   /'; }
check "the load runs in its own slice" test -n "$(slice_of_load "$B")"
check "as the --run-as user" test "$(stat -c %U "/proc/$(injector_of_load "$B" | head -1)")" = slicelab
papi 1 POST "/v1/loads/$B/lease"
papi 1 POST /v1/loads --data "$(load_body 1 "$(soon)" 10 60)"
check_eq "a load on CPUs another load holds: 409" 409 "$HTTP_STATUS"
field_is "409 names cpus" cpus .error.field
check_schema "the 409" createLoad 409
wait_for 30 load_finished "$B" || true
papi 1 GET "/v1/loads/$B"
field_is "a load whose lease lapsed ends expired" expired .state
field_is "its reason says so" lease_expired .reason
field_is "its injector was stopped, not killed: its summary says stopped" true .summary.stopped
check "its slice is gone" test -z "$(slice_of_load "$B")"
check "its injector is gone" not injector_of_load "$B"

# ---- DELETE --------------------------------------------------------------------------------------
papi 1 POST /v1/loads --data "$(load_body 1 "$(soon)" 30 60)"
C=$(jq -r .id <<<"$BODY")
wait_for 30 load_state_is "$C" running || true
check "peer_load_delete: 202" "${TOOL[@]}" delete "$C"
wait_for 30 load_finished "$C" || true
papi 1 GET "/v1/loads/$C"
field_is "a deleted load ends cancelled" cancelled .state
field_is "stopped by SIGTERM, its injector wrote its summary whole" true .summary.stopped
if "${TOOL[@]}" timeline "$C" "$TEST_TMP" c.bin; then
        check "and its partial timeline, whole records only" test $((($(stat -c %s "$TEST_TMP/c.bin") - 32) % 40)) -eq 0
else
        not_ok "a cancelled load's partial timeline can be fetched"
fi
check "its slice is gone" test -z "$(slice_of_load "$C")"
check "its injector is gone" not injector_of_load "$C"
papi 1 GET /v1/loads/nosuchload00
check_eq "an unknown load: 404" 404 "$HTTP_STATUS"

# ---- runs and loads share no CPUs ----------------------------------------------------------------
# A run on CPUs a load holds waits for it (and says so once); a load asked for while a run is in
# progress is refused with 409.
papi 1 POST /v1/loads --data "$(load_body 1 "$(soon)" 30 60)"
E=$(jq -r .id <<<"$BODY")
wait_for 30 load_state_is "$E" running || true
quick_sut=$(definition --name beside-a-load --cell one:1 -- /usr/bin/printf '{"ops_per_s": 1}\n')
papi 1 POST /v1/experiments --data "$quick_sut"
check_eq "an experiment on the load's CPUs is taken: 201" 201 "$HTTP_STATUS"
EXP=$(jq -r .id <<<"$BODY")
papi 1 GET "/v1/experiments/$EXP/runs"
RUN=$(jq -r '.runs[0].id' <<<"$BODY")
check "the daemon says the run waits for the load's CPUs" wait_for 30 grep -q "run $RUN waits: a load run for another host holds" "$TEST_TMP/peer1.log"
papi 1 GET "/v1/runs/$RUN"
field_is "so it is still queued" queued .state
released=$(peer_now)
papi 1 DELETE "/v1/loads/$E"
run_done() { papi 1 GET "/v1/runs/$RUN"; case $(jq -r .state <<<"$BODY") in succeeded | failed | cancelled | interrupted) return 0 ;; esac; return 1; }
wait_for 60 run_done || true
check_eq "once the load is stopped the run runs" succeeded "$(jq -r "$RUN_OUTCOME_JQ" <<<"$BODY")"
check "and it started only after the load was stopped" \
        test "$(jq -r '[.states[] | select(.state == "preparing") | .mono_ns][0]' <<<"$BODY")" -ge "$released"
slow_sut=$(definition --name holds-the-cpus --cell one:1 -- /bin/sh -c 'sleep 120; echo {"ops_per_s": 1}')
papi 1 POST /v1/experiments --data "$slow_sut"
EXP=$(jq -r .id <<<"$BODY")
papi 1 GET "/v1/experiments/$EXP/runs"
RUN=$(jq -r '.runs[0].id' <<<"$BODY")
run_in_progress() { papi 1 GET "/v1/runs/$RUN"; case $(jq -r .state <<<"$BODY") in starting | warmup | measuring) return 0 ;; esac; return 1; }
wait_for 60 run_in_progress || true
papi 1 POST /v1/loads --data "$(load_body 0 "$(soon)" 10 60)"
check_eq "a load while a run is in progress: 409" 409 "$HTTP_STATUS"
check_match "409 names the run" "run $RUN is in progress" "$(jq -r .error.message <<<"$BODY")"
papi 1 DELETE "/v1/experiments/$EXP"
wait_for 60 run_done || true

# ---- kill -9 of the peer mid-load ----------------------------------------------------------------
# kill9_then_gone DAEMON PID: SIGKILL to the daemon, then PID's end awaited on its pidfd (both
# pidfds opened first, so neither number can meanwhile be another process's); prints the seconds
# from the kill to PID's end, and fails when PID still runs 30 s after the kill (a bound for a
# busy machine: the signal comes at once).
kill9_then_gone() {
        python3 - "$1" "$2" <<'EOF'
import os, select, signal, sys, time
daemon, victim = os.pidfd_open(int(sys.argv[1])), os.pidfd_open(int(sys.argv[2]))
signal.pidfd_send_signal(daemon, signal.SIGKILL)
killed = time.monotonic()
gone = select.select([victim], [], [], 30)[0]
print("%.3f" % (time.monotonic() - killed))
sys.exit(0 if gone else 1)
EOF
}
# A schedule of 60 s whose lease (30 s) is renewed by nobody: what ends the injector within the
# bound is its daemon's death, not the lease nor the schedule. Killed once it sends (its warmup).
peer_past() { [ "$(peer_now)" -gt "$1" ]; }
at=$(soon)
papi 1 POST /v1/loads --data "$(load_body 1 "$at" 30 60)"
check_schema "the created load" createLoad 201
D=$(jq -r .id <<<"$BODY")
wait_for 30 load_state_is "$D" running || true
wait_for 30 peer_past "$((at + 500000000))" || true
inj=$(injector_of_load "$D" | head -1)
check "the load's injector runs" test -n "$inj"
if took=$(kill9_then_gone "${PEER_PID[1]}" "${inj:-0}" 2>&1); then
        ok "kill -9 of the peer daemon: its injector (pid $inj) is gone, before any restart"
        echo "# the injector was gone ${took} s after the kill"
else
        not_ok "kill -9 of the peer daemon: its injector (pid $inj) is gone, before any restart" "$took"
fi
check "and no process is left in its slice (which only the restart removes)" test -z "$(procs_of_load "$D")"
peer_kill9 1    # what is left of its bookkeeping: the SIGKILL finds the daemon dead already
peer_start 1 "$OFFSET_S" --peer-allow "$ALLOW" || not_ok "the peer restarts"
papi 1 GET "/v1/loads/$D"
field_is "after kill -9 and a restart the load is interrupted" interrupted .state
field_is "its reason says why" daemon_restart .reason
check_match "its message says the daemon died and nothing of it runs" "daemon died .*nothing of it runs any more" \
        "$(jq -r .message <<<"$BODY")"
check "nothing of it is left: no slice" test -z "$(slice_of_load "$D")"
check "nothing of it is left: no injector" not injector_of_load "$D"
check "the restart said what it cleaned" grep -q "removed .*load-$D" "$TEST_TMP/peer1.log"

root1=slicelab-test$$-h1
peer_stop 1
check "the peer stops cleanly on SIGTERM (exit 0)" grep -q '^EXIT 0' "${PEER_EVENTS[1]}"
check "no sanitizer report in the peer's log" not grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error' "$TEST_TMP/peer1.log"
netns_teardown
check "the stopped peer leaves no cgroup root behind" test -z "$(find /sys/fs/cgroup -maxdepth 2 -name "$root1")"
check "no namespace of the test is left" test -z "$(ip netns list | grep "sl$$-h")"
finish
