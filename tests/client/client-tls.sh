#!/bin/bash
# client-tls.sh: slicelab over HTTPS, against the daemon's own TLS (--tls-cert/--tls-key) with a
# self-signed certificate this test makes for 127.0.0.1: verified with --cacert or
# $SLICELAB_CACERT (health, then an experiment submitted, waited for and read back), and refused
# without it, with the URL and curl's reason printed and exit status 4.
. "$SLICELAB_SRC/tests/lib.sh"
. "$SLICELAB_SRC/tests/client/client-lib.sh"

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj '/CN=127.0.0.1' -addext 'subjectAltName=IP:127.0.0.1' \
        -keyout "$TEST_TMP/key.pem" -out "$TEST_TMP/cert.pem" 2>/dev/null
check "the test's self-signed certificate is made" test -s "$TEST_TMP/cert.pem"
daemon_start --cgroup-root "slicelab-ct$$" --tls-cert "$TEST_TMP/cert.pem" --tls-key "$TEST_TMP/key.pem" ||
        { not_ok "daemon starts with TLS"; finish; exit 1; }
HTTPS="https://127.0.0.1:$DAEMON_PORT"
export SLICELAB_STATE_DIR=$DAEMON_STATE
unset SLICELAB_TOKEN SLICELAB_URL SLICELAB_CACERT

sl --url "$HTTPS" --cacert "$TEST_TMP/cert.pem" health; check_rc "health over HTTPS with --cacert" 0
check_match "the daemon answered" '^ok, slicelabd [0-9]' "$OUT"
SLICELAB_CACERT=$TEST_TMP/cert.pem sl --url "$HTTPS" host; check_rc "host over HTTPS with \$SLICELAB_CACERT" 0
check_match "host names the CPU count" "cpus: +$(nproc) online" "$OUT"

sl --url "$HTTPS" health; check_rc "HTTPS without the CA is refused" 4
check_match "the refusal names the URL and curl's reason" \
        "^slicelab: $HTTPS: the daemon's certificate did not verify \(SSL certificate problem: self-signed certificate\).*--cacert" "$ERR"
check_eq "and is one line" 1 "$(wc -l <<<"$ERR")"
sl --url "$HTTPS" submit "$TEST_TMP/nothing.json"; check_rc "a definition that cannot be read is still a usage error" 2
definition --name tls --iterations 1 --cell a:0 -- "$SPIN" --threads 1 --seconds 1 >"$TEST_TMP/ok.json"
sl --url "$HTTPS" submit "$TEST_TMP/ok.json"; check_rc "submit over HTTPS without the CA is refused, not retried" 4
check_eq "nothing was submitted" 0 "$(curl -s --cacert "$TEST_TMP/cert.pem" "$HTTPS/v1/experiments" | jq '.experiments | length')"
sl --url "$HTTPS" --cacert "$TEST_TMP/nothing.pem" health; check_rc "a --cacert that cannot be read is a usage error" 2
check_match "it names the file" "nothing.pem: No such file" "$ERR"
sl --url "http://127.0.0.1:$DAEMON_PORT" health; check_rc "plain HTTP to the TLS daemon is a transport error" 4

export SLICELAB_CACERT=$TEST_TMP/cert.pem SLICELAB_URL=$HTTPS
sl submit "$TEST_TMP/ok.json" --wait; check_rc "submit --wait over HTTPS" 0
ID=$(head -1 <<<"$OUT")
check_match "it succeeded" "^$ID succeeded \(1/1 runs\)$" "$(sed -n 2p <<<"$OUT")"
sl runs "$ID" --json; check_rc "runs over HTTPS" 0
sl run "$(jq -r '.runs[0].id' <<<"$OUT")"; check_rc "run over HTTPS" 0
check_match "run shows the state" "^state: +succeeded" "$OUT"

finish
