# client-lib.sh: what the client's tests share, sourced after tests/lib.sh: the client run with
# its exit status and output kept, and assertions on them.

CLIENT="$BUILD/client/slicelab"
SPIN="$BUILD/contrib/workloads/slicelab-spin"

# sl ARGS...: runs the client; RC, OUT and ERR hold what it did.
sl() {
        "$CLIENT" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
        RC=$?
        OUT=$(cat "$TEST_TMP/out")
        ERR=$(cat "$TEST_TMP/err")
}

# check_rc NAME WANT: the last sl's exit status, with its stderr when it differs.
check_rc() {
        if [ "$RC" = "$2" ]; then ok "$1 (exit $2)"; else not_ok "$1 (exit $2)" "got exit $RC" "stderr: $ERR" "stdout: $OUT"; fi
}

# json_ok NAME: the last sl's stdout is JSON.
json_ok() {
        if [ -n "$OUT" ] && jq -e . >/dev/null 2>&1 <<<"$OUT"; then ok "$1: --json is valid JSON"; else not_ok "$1: --json is valid JSON" "$OUT"; fi
}
