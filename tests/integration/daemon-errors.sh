#!/bin/bash
# daemon-errors.sh: every refusal at start-up says what and why, with the right exit code, and
# never overwrites an existing file: bad flags and config (2), port in use, state dir not
# writable, a database that is not SQLite or is from a newer slicelabd (1).
. "$SLICELAB_SRC/tests/lib.sh"

# run_daemon ARGS...: runs slicelabd to completion (it must refuse), sets RC and ERR. A root of
# its own: a refused daemon must not touch anyone's cgroups, the default root least of all.
run_daemon() {
        ERR=$(timeout 20 "$SLICELABD" --cgroup-root "slicelab-refused$$" "$@" 2>&1 >/dev/null)
        RC=$?
}

run_daemon --no-such-flag
check_eq "unknown flag exits 2" 2 "$RC"
check_match "unknown flag is named, usage follows" "unknown option '--no-such-flag'.*Usage: slicelabd" "$(tr '\n' ' ' <<<"$ERR")"
run_daemon --max-parallel 0
check_eq "bad value exits 2" 2 "$RC"
check_match "bad value names the flag and the rule" "--max-parallel: '0' must be a whole number from 1 to 64" "$ERR"
run_daemon --queue-max 1000001
check_match "a queue bound past 1000000 is refused naming the rule" "--queue-max: '1000001' must be a whole number from 1 to 1000000" "$ERR"
run_daemon --listen nowhere
check_match "bad --listen names the forms" "is not HOST:PORT" "$ERR"
run_daemon --state-dir relative/path
check_match "relative state dir is refused" "must be an absolute path" "$ERR"
run_daemon --run-as no-such-user-here --state-dir "$TEST_TMP/s0" --listen 127.0.0.1:0
check_eq "unknown --run-as user exits 1" 1 "$RC"
check_match "unknown user is named" "no-such-user-here: no such user" "$ERR"
run_daemon stray-argument
check_eq "stray argument exits 2" 2 "$RC"

printf '# comment\nlisten = 127.0.0.1:0\nmax-parallel = 99\n' >"$TEST_TMP/bad.conf"
run_daemon --config "$TEST_TMP/bad.conf"
check_eq "bad config value exits 2" 2 "$RC"
check_match "bad config value names file and line" "bad.conf:3: '99' must be a whole number" "$ERR"
printf 'colour = blue\n' >"$TEST_TMP/unknown.conf"
run_daemon --config "$TEST_TMP/unknown.conf"
check_match "unknown config key is named" "unknown.conf:1: unknown setting 'colour'" "$ERR"
run_daemon --config "$TEST_TMP/missing.conf"
check_match "missing --config file is an error" "cannot read config file .*missing.conf" "$ERR"

# The config file is read and flags override it: the file asks for a port that is taken,
# the flag asks for a free one.
printf 'listen = 127.0.0.1:1\nlog-level = debug\n' >"$TEST_TMP/good.conf"
daemon_start --config "$TEST_TMP/good.conf" || not_ok "config file + overriding flag starts"
check_eq "flag overrides the config file's listen" 200 "$(curl -s -o /dev/null -w '%{http_code}' "$DAEMON_URL/v1/health")"
check "config file's log-level is applied" grep -q 'debug:' "$TEST_TMP/daemon.log"

# Port in use: the running daemon holds DAEMON_PORT.
run_daemon --listen "127.0.0.1:$DAEMON_PORT" --state-dir "$TEST_TMP/s1"
check_eq "port in use exits 1" 1 "$RC"
check_match "port in use names the address and cause" "cannot listen on 127.0.0.1:$DAEMON_PORT: Address already in use" "$ERR"
daemon_stop

# State dir not writable, even for root: a read-only mount.
mkdir -p "$TEST_TMP/ro"
if mount -t tmpfs -o ro,size=1m none "$TEST_TMP/ro" 2>/dev/null; then
        run_daemon --listen 127.0.0.1:0 --state-dir "$TEST_TMP/ro"
        check_eq "read-only state dir exits 1" 1 "$RC"
        check_match "read-only state dir is named" "state directory $TEST_TMP/ro is not writable: Read-only file system" "$ERR"
        umount "$TEST_TMP/ro"
else
        not_ok "mount a read-only tmpfs (needs root)"
fi
touch "$TEST_TMP/afile"
run_daemon --listen 127.0.0.1:0 --state-dir "$TEST_TMP/afile/sub"
check_match "state dir under a file is named" "state directory $TEST_TMP/afile/sub cannot be created: Not a directory" "$ERR"

# A file that is not SQLite stays byte for byte what it was.
mkdir -p "$TEST_TMP/s2"
head -c 8192 /dev/urandom >"$TEST_TMP/s2/slicelab.db"
sum=$(sha256sum <"$TEST_TMP/s2/slicelab.db")
run_daemon --listen 127.0.0.1:0 --state-dir "$TEST_TMP/s2"
check_eq "non-SQLite database exits 1" 1 "$RC"
check_match "non-SQLite database is named" "s2/slicelab.db: not a SQLite database" "$ERR"
check_eq "non-SQLite database is untouched" "$sum" "$(sha256sum <"$TEST_TMP/s2/slicelab.db")"

# A database from a newer slicelabd is refused, untouched.
mkdir -p "$TEST_TMP/s3"
sqlite3 "$TEST_TMP/s3/slicelab.db" 'CREATE TABLE t(x); PRAGMA user_version=999;'
sum=$(sha256sum <"$TEST_TMP/s3/slicelab.db")
run_daemon --listen 127.0.0.1:0 --state-dir "$TEST_TMP/s3"
check_eq "newer schema exits 1" 1 "$RC"
check_match "newer schema is named" "schema version 999 is newer than this slicelabd knows" "$ERR"
check_eq "newer-schema database is untouched" "$sum" "$(sha256sum <"$TEST_TMP/s3/slicelab.db")"
check "no WAL file was made next to it" test ! -e "$TEST_TMP/s3/slicelab.db-wal"

# A database at user_version 0 (made by hand, or by an old release) is upgraded.
mkdir -p "$TEST_TMP/s4"
sqlite3 "$TEST_TMP/s4/slicelab.db" 'PRAGMA user_version=0;'
DAEMON_STATE=$TEST_TMP/s4 daemon_start || not_ok "daemon starts on a version-0 database"
daemon_stop
check_match "version-0 database is migrated" '^[1-9][0-9]*$' "$(sqlite3 "$TEST_TMP/s4/slicelab.db" 'PRAGMA user_version')"
check_eq "migration made the runs table" 0 "$(sqlite3 "$TEST_TMP/s4/slicelab.db" 'SELECT count(*) FROM runs')"
finish
