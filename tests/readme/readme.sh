#!/bin/bash
# readme.sh: the documentation's runnable blocks (fenced as ```sh runnable), read from the
# markdown files themselves (README.md first, then every other .md of the tree in path order:
# docs/, tests/bench/, ...) and run in that order in one shell, so that a reference document's
# blocks may use the README's $ID and $RUN, as a new user runs them after `meson install`: the
# installed client, injector and examples, against a daemon of this test's own (its own cgroup
# root, state dir and port). What differs from a real host is only where things are, each substituted:
#   - `meson install` goes to a DESTDIR: /usr/local/ in the blocks becomes the DESTDIR's prefix,
#     whose bin/ leads PATH;
#   - the daemon: 127.0.0.1:7878 becomes its address, /var/lib/slicelab its state dir, and the
#     client finds both in SLICELAB_URL and SLICELAB_STATE_DIR (its documented environment);
#   - the installed examples name the DESTDIR's jar and a port nobody listens on.
# The daemon allows only the executables the examples and blocks name (--allow-exec, the config
# file's example /usr/bin/java, and the installed slicelab-spin). A block fails the test when
# any of its commands fails (set -e -o pipefail).
. "$SLICELAB_SRC/tests/lib.sh"

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

# The documents: README.md, then every other markdown file of the source tree in path order,
# leaving out .git, npm's node_modules and build directories (those holding meson-private).
DOCS=(README.md)
while IFS= read -r doc; do
        DOCS+=("$doc")
done < <(cd "$SRC" && find . -type d \( -name .git -o -name node_modules -o -exec test -d '{}/meson-private' \; \) -prune \
                -o -type f -name '*.md' ! -path ./README.md -print | sed 's#^\./##' | LC_ALL=C sort)

# The runnable blocks, numbered across the documents, each with its document and the line it
# starts on; a block left open at a document's end is named in unclosed.txt.
BLOCKS=0
for doc in "${DOCS[@]}"; do
        BLOCKS=$(awk '/^```sh runnable$/ { n++; f = dir "/block-" n ".sh"; print "### " n " " doc " " NR + 1 > f; inside = NR; next }
                      inside && /^```$/ { inside = 0; close(f); next }
                      inside { print > f }
                      END { if (inside) print doc " line " inside > (dir "/unclosed.txt"); print n }' \
                dir="$TEST_TMP" doc="$doc" n="$BLOCKS" "$SRC/$doc")
done
HEADS=$(head -qn 1 "$TEST_TMP"/block-*.sh 2>/dev/null)
check_match "the README has runnable blocks" '^[3-9]$|^[1-9][0-9]' "$(grep -c '^### [0-9]* README.md ' <<<"$HEADS")"
check_match "the runnable blocks of the reference in docs/ are found too" '^### [0-9]+ docs/[^ ]+\.md ' "$HEADS"
check "every runnable block is closed" test ! -s "$TEST_TMP/unclosed.txt"

{
        echo 'set -e -o pipefail'
        for ((i = 1; i <= BLOCKS; i++)); do
                read -r _ n doc line <"$TEST_TMP/block-$i.sh"
                echo "echo '### block $n ($doc line $line)'"
                tail -n +2 "$TEST_TMP/block-$i.sh" | sed -e "s#127\.0\.0\.1:7878#127.0.0.1:$DAEMON_PORT#g" \
                        -e "s#/var/lib/slicelab#$DAEMON_STATE#g" -e "s#/usr/local/#$HERE/#g"
                echo "echo '### block $n done'"
        done
} >"$TEST_TMP/readme-blocks.sh"

mkdir -p "$TEST_TMP/work"
(cd "$TEST_TMP/work" && PATH="$HERE/bin:$HERE/sbin:$PATH" SLICELAB_URL=$DAEMON_URL SLICELAB_STATE_DIR=$DAEMON_STATE \
        bash "$TEST_TMP/readme-blocks.sh") >"$TEST_TMP/blocks.log" 2>&1
for ((i = 1; i <= BLOCKS; i++)); do
        read -r _ _ doc line <"$TEST_TMP/block-$i.sh"
        if grep -qx "### block $i done" "$TEST_TMP/blocks.log"; then
                ok "block $i ($doc line $line) runs"
        else
                not_ok "block $i ($doc line $line) runs" "its commands:" "$(tail -n +2 "$TEST_TMP/block-$i.sh")" \
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
