#!/bin/bash
# utf8-answers.sh: every JSON answer is valid UTF-8, whatever bytes a request holds (issue 33).
# On a daemon serving one stored experiment: a query value that is not UTF-8 is a 400
# invalid_parameter naming the parameter, on every GET route and every parameter it takes (read
# from api/routes.c, so a new one is covered); a long value an error echoes is cut between
# characters; a parameter name, a path and a Host that are not UTF-8 come back as U+FFFD; a
# definition (and a load request) with invalid UTF-8 in any of its strings or keys is a 400
# invalid_utf8 naming the field; a lease renewal needs no Content-Type. Every answer is read with
# Python's json after a strict UTF-8 decode.
. "$SLICELAB_SRC/tests/lib.sh"

mkdir -p "$TEST_TMP/state"
"$BUILD/tests/fill-store" "$TEST_TMP/state/slicelab.db" 1 >/dev/null ||
        { not_ok "fill-store makes a stored experiment"; finish; exit 1; }
daemon_start --cgroup-root "slicelab-utf8$$" || { not_ok "daemon starts"; finish; exit 1; }
DB=$DAEMON_STATE/slicelab.db
EXP=$(sqlite3 "$DB" 'SELECT id FROM experiments LIMIT 1')
RUN=$(sqlite3 "$DB" "SELECT id FROM runs WHERE experiment_id = '$EXP' LIMIT 1")
LOAD=aaaaaaaaaaaa

# strict_json FILE: the file is UTF-8 and one JSON value.
strict_json() {
        python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8", errors="strict"))' "$1" 2>/dev/null
}

# get PATH [curl args]: HTTP_STATUS, CTYPE and BODY of a GET (the path sent as it is written).
get() {
        local path=$1 out
        shift
        out=$(curl -sS --path-as-is -o "$TEST_TMP/body" -w '%{http_code} %{content_type}' "$@" "$DAEMON_URL$path")
        HTTP_STATUS=${out%% *}
        CTYPE=${out#* }
        BODY=$(cat "$TEST_TMP/body")
}

# Many answers are checked at once (a Python per answer is slow on a busy machine): answer LABEL
# WANT [curl args] keeps one, WANT "STATUS CODE FIELD" or "-" for any; answers_wrong prints those
# that are not UTF-8 JSON when their type says JSON, or not what they should be.
ANSWERS=$TEST_TMP/answers
mkdir -p "$ANSWERS"
: >"$ANSWERS/index"
answer() {
        local label=$1 want=$2 n meta
        shift 2
        n=$(wc -l <"$ANSWERS/index")
        meta=$(curl -sS --path-as-is -o "$ANSWERS/$n" -w '%{http_code}\t%{content_type}' "$@")
        printf '%s\t%s\t%s\t%s\n' "$n" "$meta" "$want" "$label" >>"$ANSWERS/index"
}
answers_wrong() {
        python3 - "$ANSWERS" <<'PY'
import json, sys
d = sys.argv[1]
for line in open(d + "/index", encoding="utf-8", errors="replace"):
    n, status, ctype, want, label = line.rstrip("\n").split("\t", 4)
    raw = open("%s/%s" % (d, n), "rb").read()
    body = None
    if ctype.startswith("application/json") or want != "-":
        try:
            body = json.loads(raw.decode("utf-8", errors="strict"))
        except Exception as e:
            print("%s: %s answered %r..., not UTF-8 JSON (%s)" % (label, status, raw[:120], e))
            continue
    if want != "-":
        err = body.get("error", {}) if isinstance(body, dict) else {}
        got = "%s %s %s" % (status, err.get("code"), err.get("field") if err.get("field") is not None else "null")
        if got != want:
            print("%s: want %s, got %s" % (label, want, got))
PY
        : >"$ANSWERS/index"
}

# ---- query values on every GET route --------------------------------------------------------------
# "PATH PARAM..." per GET route with parameters, ids filled in.
routes=$(python3 - "$SRC/api/routes.c" "$EXP" "$RUN" "$LOAD" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
exp, run, load = sys.argv[2:5]
arrays = {m.group(1): re.findall(r'"([^"]+)"', m.group(2))
          for m in re.finditer(r'static const char \*const (\w+)\[\] = \{([^}]*)\};', src)}
ids = {"experiment": exp, "run": run, "load": load}
for m in re.finditer(r'ROUTE\("GET", "([^"]+)", \w+(.*?)\),\n', src, re.S):
    path, rest = m.group(1), m.group(2)
    q = re.search(r'\.query = (\w+)', rest)
    if not q:
        continue
    res = re.search(r'\b(EXPERIMENT|RUN|LOAD)\b', rest)
    first = ids[res.group(1).lower()] if res else "x"
    path = path.replace("{}", first, 1).replace("{}", "sut")
    print(path, *arrays[q.group(1)])
EOF
)
n_routes=$(grep -c . <<<"$routes")
check "the GET routes with query parameters are read from api/routes.c" test "$n_routes" -ge 10

n=0
# x and then two-byte (é) or three-byte (€) characters: a cut at an even byte count (%.16s,
# %.32s, %.64s) falls inside a character unless it is made on a boundary.
long2=x$(printf 'é%.0s' {1..60})
long3=xy$(printf '€%.0s' {1..40})
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
long2_q=$(enc "$long2")
long3_q=$(enc "$long3")
while read -r path params; do
        for p in $params; do
                n=$((n + 1))
                answer "$path?$p=ok%FF%FEx" "400 invalid_parameter $p" "$DAEMON_URL$path?$p=ok%FF%FEx"
                answer "$path?$p=<x é...>" - "$DAEMON_URL$path?$p=$long2_q"
                answer "$path?$p=<xy €...>" - "$DAEMON_URL$path?$p=$long3_q"
        done
done <<<"$routes"
check_eq "a value that is not UTF-8 is a 400 invalid_parameter naming it, for each of $n parameters; every answer UTF-8" \
        "" "$(answers_wrong)"

get "/v1/experiments?status=$long2_q"
check_eq "a long status is refused" 400 "$HTTP_STATUS"
check_match "and echoed cut between characters" "got 'xé{15}'" "$(jq -r .error.message <<<"$BODY")"
get "/v1/runs/$RUN/timeline?phase=$long3_q"
check_eq "a long phase is refused" 400 "$HTTP_STATUS"
check_match "and echoed cut between characters" "got 'xy€{10}'" "$(jq -r .error.message <<<"$BODY")"

# ---- names, paths and headers ---------------------------------------------------------------------
get "/v1/health?%FF%FE=1"
check "a parameter name that is not UTF-8: UTF-8 JSON" strict_json "$TEST_TMP/body"
check_eq "an unknown parameter name that is not UTF-8: 400" "400 unknown_parameter" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"
check_eq "its field is U+FFFD for each byte" "$(printf '\xef\xbf\xbd\xef\xbf\xbd')" "$(jq -r .error.field <<<"$BODY")"
for path in "/v1/nope%FF%FE" "/ui/%FF%FE" "/ui/$long2_q" "/v1/experiments/%FF" "/v1/runs/$RUN/logs/%FF%FE" "/%C3"; do
        answer "GET $path" "404 not_found null" "$DAEMON_URL$path"
done
check_eq "paths that are not UTF-8, or long: 404, UTF-8 JSON" "" "$(answers_wrong)"
get /v1/health -H $'Host: \xff\xfe.example'
check "a Host that is not UTF-8: UTF-8 JSON" strict_json "$TEST_TMP/body"
check_eq "a Host that is not UTF-8: 421" 421 "$HTTP_STATUS"
check_match "echoed as U+FFFD" "Host '$(printf '\xef\xbf\xbd\xef\xbf\xbd').example'" "$(jq -r .error.message <<<"$BODY")"
answer "a long Host" "421 host_not_allowed Host" -H "Host: $long2" "$DAEMON_URL/v1/health"
check_eq "a long Host: 421, UTF-8 JSON" "" "$(answers_wrong)"

# ---- definitions and load requests ------------------------------------------------------------------
# Every string and every key of a definition in turn made invalid UTF-8 (an invalid sequence of
# each kind: a byte that begins nothing, a lone continuation, overlong, a surrogate, above
# U+10FFFF, cut short); each must be a 400 invalid_utf8 naming the field (a key: its object).
mkdir -p "$TEST_TMP/defs"
python3 - "$TEST_TMP/defs" <<'EOF' >"$TEST_TMP/defs.tsv"
import json, sys
out = sys.argv[1]
base = {
    "name": "utf8", "description": "d", "order": "interleaved", "labels": {"team": "perf"},
    "sut": {"command": ["/bin/true", "arg"], "env": {"K": "v"}, "memory_max": "1G",
            "ready": {"http": "http://127.0.0.1:9/health", "tcp": "127.0.0.1:9", "log": "ready"}},
    "load": {"target": "http://127.0.0.1:9/work", "mode": "rate", "rate": 5, "arrival": "poisson",
             "cpus": "0", "hosts": [{"host": "bench1", "cpus": "0"}], "command": ["/bin/true"],
             "timeline": "t.bin"},
    "cells": [{"name": "a", "cpus": "0", "mems": "0", "memory_max": "1G", "env": {"E": "x"},
               "jvm_args": ["-Xmx64m"]}],
    "host": {"governor": "performance", "smt": "on", "thp": "never", "on_mismatch": "warn"},
    "checks": [{"metric": "throughput_rps", "cell": "a", "ratio_to": "a", "min": 1}],
}
bad = [b"\xff", b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xfe\xff"]
MARK = "@@MARK@@"
def path_of(parts):
    s = ""
    for p in parts:
        s += "[%d]" % p if isinstance(p, int) else ("." if s else "") + p
    return s
def leaves(v, parts):
    if isinstance(v, dict):
        for k, c in v.items():
            yield ("key", parts, k)
            yield from leaves(c, parts + [k])
    elif isinstance(v, list):
        for i, c in enumerate(v):
            yield from leaves(c, parts + [i])
    elif isinstance(v, str):
        yield ("value", parts, None)
def with_mark(v, parts, kind, key):
    v = json.loads(json.dumps(v))
    o = v
    for p in parts[:-1] if kind == "value" else parts:
        o = o[p]
    if kind == "value":
        o[parts[-1]] = "a" + MARK + "b"
    else:
        o[key + MARK] = o.pop(key)
    return json.dumps(v)
for n, (kind, parts, key) in enumerate(leaves(base, [])):
    text = with_mark(base, parts, kind, key).encode()
    body = text.replace(MARK.encode(), bad[n % len(bad)])
    name = "%s/%d.json" % (out, n)
    open(name, "wb").write(body)
    field = path_of(parts) if kind == "value" else path_of(parts)
    print("%s\t%s\t%s" % (name, field or "null", path_of(parts + ([key] if key else [])) + (" (key)" if key else "")))
EOF
n=0
while IFS=$'\t' read -r file field what; do
        n=$((n + 1))
        answer "$what" "400 invalid_utf8 $field" -X POST -H "Authorization: Bearer $DAEMON_TOKEN" \
                -H 'Content-Type: application/json' --data-binary @"$file" "$DAEMON_URL/v1/experiments"
done <"$TEST_TMP/defs.tsv"
check "the definitions cover the fields" test "$n" -ge 50
check_eq "invalid UTF-8 in each of $n strings and keys of a definition: 400 invalid_utf8 naming the field" "" \
        "$(answers_wrong)"
check_eq "none of them stored an experiment" 1 "$(sqlite3 "$DB" 'SELECT count(*) FROM experiments')"
check_schema "the refusal" createExperiment 400

printf '{"coordinator":"h\xff","coordinator_run":"r","host":"x","cpus":"0","load":{},"start_at_ns":1}' >"$TEST_TMP/load.json"
HTTP_STATUS=$(curl -sS -o "$TEST_TMP/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $DAEMON_TOKEN" \
        -H 'Content-Type: application/json' --data-binary @"$TEST_TMP/load.json" "$DAEMON_URL/v1/loads")
check "a load request that is not UTF-8: UTF-8 JSON" strict_json "$TEST_TMP/body"
check_eq "a load request that is not UTF-8: 400 invalid_utf8 naming coordinator" "400 invalid_utf8 coordinator" \
        "$HTTP_STATUS $(jq -r '.error.code + " " + .error.field' "$TEST_TMP/body")"

# ---- a lease renewal has no body, and needs no Content-Type ----------------------------------------
api_auth POST "/v1/loads/$LOAD/lease"
check_eq "a renewal without Content-Type is routed (404: no such load), not 415" 404 "$HTTP_STATUS"
api_auth POST "/v1/loads/$LOAD/lease" -H 'Content-Type: text/plain'
check_eq "a renewal declaring another type: 415" 415 "$HTTP_STATUS"
api_auth POST /v1/experiments --data-binary @"$TEST_TMP/defs/0.json" -H 'Content-Type:'
check_eq "a body without Content-Type: 415" 415 "$HTTP_STATUS"

check "the daemon is still up" kill -0 "$DAEMON_PID"
# The answers' last line of defence (json_print_utf8) logs what it had to mend: nothing should
# reach it, every echo being made valid where it is made.
check_eq "no answer needed mending as it was sent" "" "$(grep 'bytes that are not UTF-8' "$TEST_TMP/daemon.log")"
finish
