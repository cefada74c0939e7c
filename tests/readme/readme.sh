#!/bin/bash
# readme.sh: the README's runnable blocks (fenced as ```sh runnable), read from README.md itself
# and run in order in one shell, as a new user runs them after `meson install`: the installed
# client, injector and examples, against a daemon of this test's own (its own cgroup root,
# state dir and port). What differs from a real host is only where things are, each substituted:
#   - `meson install` goes to a DESTDIR: /usr/local/ in the blocks becomes the DESTDIR's prefix,
#     whose bin/ leads PATH;
#   - the daemon: 127.0.0.1:7878 becomes its address, /var/lib/slicelab its state dir, and the
#     client finds both in SLICELAB_URL and SLICELAB_STATE_DIR (its documented environment);
#   - the installed examples name the DESTDIR's jar and a port nobody listens on.
# The daemon allows only the executables the examples and blocks name (--allow-exec, the config
# file's example /usr/bin/java, and the installed slicelab-spin). A block fails the test when
# any of its commands fails (set -e -o pipefail).
. "$SLICELAB_SRC/tests/lib.sh"

README=$SRC/README.md
PREFIX=$(meson introspect "$BUILD" --buildoptions | jq -r '.[] | select(.name == "prefix") | .value')
DEST=$TEST_TMP/dest
HERE=$DEST$PREFIX
meson install -C "$BUILD" --destdir "$DEST" --no-rebuild --quiet >"$TEST_TMP/install.log" 2>&1
check "meson install (no tags) installs the client, the examples, the man pages and the completion" \
        test -x "$HERE/bin/slicelab" -a -f "$HERE/share/slicelab/examples/first-try.json" \
        -a -f "$HERE/share/man/man1/slicelab.1" -a -f "$HERE/share/bash-completion/completions/slicelab"

# The examples as installed, but for the jar's place and their SUT's port.
for ex in "$HERE"/share/slicelab/examples/*.json; do
        old=$(jq -r '.sut.ready.http // empty' "$ex" | sed -nE 's#^http://[^/]*:([0-9]+)/.*#\1#p')
        sed -i "s#/usr/local/share/slicelab/slicelab-sut.jar#$HERE/share/slicelab/slicelab-sut.jar#" "$ex"
        [ -n "$old" ] && sed -i -E "s/([^0-9])$old([^0-9])/\1$(loopback_port)\2/g" "$ex"
done

daemon_start --cgroup-root "slicelab-readme$$" --allow-exec "/usr/bin/java,$HERE/bin/slicelab-spin" ||
        { not_ok "daemon starts"; finish; exit 1; }

# The runnable blocks, numbered, with the README line each starts on.
awk '/^```sh runnable$/ { n++; print "### " n " " NR + 1 > (dir "/block-" n ".sh"); inside = 1; next }
     inside && /^```$/ { inside = 0; next }
     inside { print > (dir "/block-" n ".sh") }' dir="$TEST_TMP" "$README"
BLOCKS=$(find "$TEST_TMP" -maxdepth 1 -name 'block-*.sh' | wc -l)
check_match "the README has runnable blocks" '^[3-9]$|^[1-9][0-9]' "$BLOCKS"

{
        echo 'set -e -o pipefail'
        for ((i = 1; i <= BLOCKS; i++)); do
                read -r _ n line <"$TEST_TMP/block-$i.sh"
                echo "echo '### block $n (README.md line $line)'"
                tail -n +2 "$TEST_TMP/block-$i.sh" | sed -e "s#127\.0\.0\.1:7878#127.0.0.1:$DAEMON_PORT#g" \
                        -e "s#/var/lib/slicelab#$DAEMON_STATE#g" -e "s#/usr/local/#$HERE/#g"
                echo "echo '### block $n done'"
        done
} >"$TEST_TMP/readme-blocks.sh"

mkdir -p "$TEST_TMP/work"
(cd "$TEST_TMP/work" && PATH="$HERE/bin:$HERE/sbin:$PATH" SLICELAB_URL=$DAEMON_URL SLICELAB_STATE_DIR=$DAEMON_STATE \
        bash "$TEST_TMP/readme-blocks.sh") >"$TEST_TMP/blocks.log" 2>&1
for ((i = 1; i <= BLOCKS; i++)); do
        line=$(head -1 "$TEST_TMP/block-$i.sh" | cut -d' ' -f3)
        if grep -qx "### block $i done" "$TEST_TMP/blocks.log"; then
                ok "README block $i (line $line) runs"
        else
                not_ok "README block $i (line $line) runs" "its commands:" "$(tail -n +2 "$TEST_TMP/block-$i.sh")" \
                        "the output from block $i on:" "$(sed -n "/^### block $i /,\$p" "$TEST_TMP/blocks.log" | tail -n 40)"
        fi
done
# A block that failed: what became of every run, from the daemon.
if ! grep -qx "### block $BLOCKS done" "$TEST_TMP/blocks.log"; then
        for exp in $(curl -s "$DAEMON_URL/v1/experiments" | jq -r '.experiments[].id'); do
                curl -s "$DAEMON_URL/v1/experiments/$exp/runs" |
                        jq -r --arg e "$exp" '.runs[] | "# experiment \($e) run \(.id) \(.cell): \(.state) \(.reason // "") \(.message // "")"'
        done
fi
# What the blocks say a user sees.
LOG=$(cat "$TEST_TMP/blocks.log")
check_match "the first example's report has both its cells" "cpu1-quota-half" "$LOG"
check_match "the benchmark without load reports ops/s" '"ops_per_s": [0-9]' "$LOG"
check "the timeline converted back is one 40-byte record per CSV line" \
        test "$(stat -c %s "$TEST_TMP/work/timeline.bin")" -eq $((32 + 40 * ($(wc -l <"$TEST_TMP/work/timeline.csv") - 1)))
finish
