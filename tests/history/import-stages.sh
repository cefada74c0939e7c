#!/bin/bash
# import-stages.sh: an import stages the runs' files in <state dir>/import-<id> until its rows are
# committed; a crash (kill -9, power) mid-import leaves that directory behind. The next daemon
# start removes such leftovers, as a crash leaves them (run directories with files, or empty),
# and nothing else: not a directory of another name, not a link of that name nor what it points
# to, not the stage an import still holds (its flock).
. "$SLICELAB_SRC/tests/lib.sh"

DAEMON_STATE=$TEST_TMP/state
mkdir -p "$DAEMON_STATE/import-aaaaaaaaaaaa/bbbbbbbbbbbb" "$DAEMON_STATE/import-cccccccccccc" \
        "$DAEMON_STATE/import-keep" "$DAEMON_STATE/import-eeeeeeeeeeee" "$TEST_TMP/elsewhere/ffffffffffff"
head -c 100000 /dev/urandom >"$DAEMON_STATE/import-aaaaaaaaaaaa/bbbbbbbbbbbb/t.bin"
echo gc >"$DAEMON_STATE/import-aaaaaaaaaaaa/bbbbbbbbbbbb/gc.log"
echo mine >"$DAEMON_STATE/import-keep/file"
echo outside >"$TEST_TMP/elsewhere/ffffffffffff/t.bin"
ln -s "$TEST_TMP/elsewhere" "$DAEMON_STATE/import-dddddddddddd"
# An import of another daemon on this state dir, still going: its stage is locked.
exec {HELD}<"$DAEMON_STATE/import-eeeeeeeeeeee"
flock -n "$HELD" || not_ok "the test holds the stage's lock"

daemon_start --results-only || { not_ok "the daemon starts"; finish; exit 1; }
check "a leftover stage with run files is removed" test ! -e "$DAEMON_STATE/import-aaaaaaaaaaaa"
check "an empty leftover stage is removed" test ! -e "$DAEMON_STATE/import-cccccccccccc"
check_match "the daemon says so" 'removed the stages of 2 imports cut short' "$(cat "$TEST_TMP/daemon.log")"
check_eq "a directory of another name is left alone" mine "$(cat "$DAEMON_STATE/import-keep/file")"
check "a link of a stage's name is left" test -L "$DAEMON_STATE/import-dddddddddddd"
check_eq "and what it points to" outside "$(cat "$TEST_TMP/elsewhere/ffffffffffff/t.bin")"
check "a stage an import holds is left" test -d "$DAEMON_STATE/import-eeeeeeeeeeee"
exec {HELD}<&-
api GET /v1/experiments
check_eq "the daemon serves" 200 "$HTTP_STATUS"
finish
