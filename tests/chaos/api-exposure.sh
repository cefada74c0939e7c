#!/bin/bash
# api-exposure.sh: the API as seen from outside the process. A Host that names neither the
# listen address nor a loopback name is refused (421, DNS rebinding); listening beyond loopback
# makes reads need the token and, without TLS, logs a warning; --tls-cert/--tls-key serve HTTPS
# that curl verifies against the test's own self-signed certificate; a unix socket gets the
# --socket-mode and --socket-group asked for. All traffic stays on 127.0.0.1.
. "$SLICELAB_SRC/tests/lib.sh"

bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
ROOT="slicelab-x$$"

# --- Host on a loopback listen ---------------------------------------------------------------
daemon_start --cgroup-root "$ROOT" || { not_ok "daemon starts"; finish; exit 1; }
host_code() { curl -s -m 30 -o "$TEST_TMP/out" -w '%{http_code}' -H "Host: $1" "$DAEMON_URL${2:-/v1/health}"; }
check_eq "Host 127.0.0.1:PORT is served" 200 "$(host_code "127.0.0.1:$DAEMON_PORT")"
check_eq "Host localhost:PORT is served" 200 "$(host_code "localhost:$DAEMON_PORT")"
check_eq "Host [::1]:PORT is served" 200 "$(host_code "[::1]:$DAEMON_PORT")"
check_eq "Host of another name is refused with 421" "421 host_not_allowed Host" \
        "$(host_code "rebound.example:$DAEMON_PORT") $(jq -r '.error.code + " " + .error.field' "$TEST_TMP/out")"
api GET /v1/health -H "Host: rebound.example:$DAEMON_PORT"
check_schema "the 421" getHealth 421
check_match "the 421 names the Host and the listen address" "rebound.example.*127.0.0.1:$DAEMON_PORT" "$(jq -r .error.message <<<"$BODY")"
check_eq "a rebound Host is refused before the route: a POST too" 421 \
        "$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Host: rebound.example' -H "Authorization: Bearer $DAEMON_TOKEN" \
                -H 'Content-Type: application/json' --data '{}' "$DAEMON_URL/v1/experiments")"
check_eq "an address of this host other than the listen one is refused" 421 "$(host_code "10.1.2.3:$DAEMON_PORT")"
check_eq "this host's name is served" 200 "$(host_code "$(hostname):$DAEMON_PORT")"
check_eq "HTTP/1.0 without Host is served" 200 "$(curl -s -m 30 -0 -H 'Host:' -o /dev/null -w '%{http_code}' "$DAEMON_URL/v1/health")"
check "no warning about TLS on loopback" not grep -q 'without TLS' "$TEST_TMP/daemon.log"
daemon_stop

# --- beyond loopback, in clear -----------------------------------------------------------------
DAEMON_LISTEN=0.0.0.0:0 daemon_start --cgroup-root "$ROOT" || { not_ok "daemon starts on 0.0.0.0"; finish; exit 1; }
check_match "the log warns that it listens beyond loopback without TLS" 'listening on 0\.0\.0\.0:[0-9]+ beyond loopback without TLS' \
        "$(grep 'without TLS' "$TEST_TMP/daemon.log")"
api GET /v1/health
check_eq "reads need the token beyond loopback" 401 "$HTTP_STATUS"
api_auth GET /v1/health
check_eq "and are served with it" 200 "$HTTP_STATUS"
api_auth GET /v1/health -H "Host: rebound.example:$DAEMON_PORT"
check_eq "a wildcard listen still refuses other names" 421 "$HTTP_STATUS"
api_auth GET /v1/health -H "Host: $(hostname):$DAEMON_PORT"
check_eq "a wildcard listen serves this host's name" 200 "$HTTP_STATUS"
daemon_stop
: >"$TEST_TMP/daemon.log"

# --- TLS --------------------------------------------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj '/CN=localhost' \
        -addext 'subjectAltName=IP:127.0.0.1,DNS:localhost' \
        -keyout "$TEST_TMP/key.pem" -out "$TEST_TMP/cert.pem" 2>/dev/null
check "the test's self-signed certificate is made" [ -s "$TEST_TMP/cert.pem" ]
DAEMON_LISTEN=0.0.0.0:0 daemon_start --cgroup-root "$ROOT" --tls-cert "$TEST_TMP/cert.pem" --tls-key "$TEST_TMP/key.pem" ||
        { not_ok "daemon starts with TLS"; finish; exit 1; }
HTTPS="https://127.0.0.1:$DAEMON_PORT"
check_eq "HTTPS is answered and verified with --cacert" 200 \
        "$(curl -s -m 30 --cacert "$TEST_TMP/cert.pem" -H "Authorization: Bearer $DAEMON_TOKEN" -o "$TEST_TMP/out" -w '%{http_code}' "$HTTPS/v1/health")"
check_eq "its body is the health" ok "$(jq -r .status "$TEST_TMP/out")"
check_eq "HTTPS by the name localhost too" 200 \
        "$(curl -s -m 30 --cacert "$TEST_TMP/cert.pem" -H "Authorization: Bearer $DAEMON_TOKEN" -o /dev/null -w '%{http_code}' "https://localhost:$DAEMON_PORT/v1/health")"
check "plain HTTP gets no answer" not curl -sf -m 10 -o /dev/null "http://127.0.0.1:$DAEMON_PORT/v1/health"
check "no warning about TLS when it is on" not grep -q 'without TLS' "$TEST_TMP/daemon.log"
daemon_stop
check_eq "the TLS daemon stops cleanly" "EXIT 0" "$DAEMON_EXIT"
"$SLICELABD" --tls-cert "$TEST_TMP/cert.pem" --state-dir "$TEST_TMP/x" >/dev/null 2>"$TEST_TMP/err"
check_eq "--tls-cert without --tls-key exits 2" 2 $?
check_match "and says what is missing" '--tls-key is missing' "$(cat "$TEST_TMP/err")"

# --- the unix socket's mode and group -----------------------------------------------------------
SOCK="$TEST_TMP/api.sock"
DAEMON_LISTEN="unix:$SOCK" daemon_start --cgroup-root "$ROOT" || { not_ok "daemon starts on a unix socket"; finish; exit 1; }
check_eq "by default the socket is 0660, of the daemon's group" "660 $(id -gn)" "$(stat -c '%a %G' "$SOCK")"
check_eq "it answers" 200 "$(curl -s -m 30 --unix-socket "$SOCK" -o /dev/null -w '%{http_code}' http://localhost/v1/health)"
check_eq "whatever Host it is given: no browser reaches a unix socket" 200 \
        "$(curl -s -m 30 --unix-socket "$SOCK" -o /dev/null -w '%{http_code}' http://slicelab.example/v1/health)"
daemon_stop
GROUP=$(getent group nogroup >/dev/null && echo nogroup || echo daemon)
DAEMON_LISTEN="unix:$SOCK" daemon_start --cgroup-root "$ROOT" --socket-mode 0600 --socket-group "$GROUP" ||
        { not_ok "daemon starts with --socket-mode"; finish; exit 1; }
check_eq "--socket-mode 0600 --socket-group $GROUP: as asked" "600 $GROUP" "$(stat -c '%a %G' "$SOCK")"
daemon_stop
"$SLICELABD" --listen "unix:$SOCK" --socket-mode 0888 --state-dir "$TEST_TMP/x" >/dev/null 2>"$TEST_TMP/err"
check_eq "a mode that is not octal exits 2" 2 $?
finish
