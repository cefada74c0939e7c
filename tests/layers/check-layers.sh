#!/bin/bash
# check-layers.sh [ROOT]: fails when a source file includes a header of a higher layer or of a
# sibling, names a header without its folder, or lies in a folder the table does not place.
# The table is layers.tsv beside this script. `check-layers.sh --self-test` checks the checker on
# a scratch tree with one violation of each kind.
set -u
here=$(cd "$(dirname "$0")" && pwd)
table=$here/layers.tsv

# check ROOT: prints one line per violation; exit status 1 if any.
check() {
        local root=$1
        awk -F'\t' -v root="$root" '
                FNR == NR { if ($0 !~ /^#/ && NF >= 2) layer[$1] = $2; next }
                {
                        file = FILENAME; sub("^" root "/", "", file)
                        own = file; sub("/.*", "", own)
                        if (FNR == 1 && !(own in layer)) {
                                printf "%s: folder %s is on no layer of layers.tsv\n", file, own; bad = 1
                        }
                }
                /^[ \t]*#[ \t]*include[ \t]*"/ {
                        inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
                        if (inc !~ /\//) {
                                printf "%s:%d: #include \"%s\" does not name its folder\n", file, FNR, inc; bad = 1; next
                        }
                        dir = inc; sub("/.*", "", dir)
                        if (!(dir in layer)) {
                                printf "%s:%d: #include \"%s\": %s is on no layer\n", file, FNR, inc, dir; bad = 1; next
                        }
                        if (dir != own && layer[dir] + 0 >= layer[own] + 0) {
                                printf "%s:%d: #include \"%s\": %s (layer %s) may not include %s (layer %s)\n",
                                       file, FNR, inc, own, layer[own], dir, layer[dir]; bad = 1
                        }
                }
                END { exit bad }
        ' "$table" $(find "$root" -mindepth 2 -name '*.[ch]' -not -path "$root/tests/*" \
                        -not -path "$root/contrib/*" -not -path "$root/build*" -not -path "$root/.git/*" | sort)
}

self_test() {
        local tmp rc=0 out
        tmp=$(mktemp -d) || return 1
        mkdir -p "$tmp/basic" "$tmp/storage" "$tmp/host" "$tmp/daemon"
        printf '#include "basic/a.h"\n' > "$tmp/storage/ok.c"
        printf '#include "storage/ok.h"\n#include "host/x.h"\n' > "$tmp/daemon/ok.c"
        out=$(check "$tmp") || { echo "self-test: a clean tree was refused: $out"; rc=1; }
        printf '#include "daemon/run.h"\n' > "$tmp/storage/up.c"
        printf '#include "host/x.h"\n' > "$tmp/storage/sibling.c"
        printf '#include "runs.h"\n' > "$tmp/basic/bare.c"
        mkdir -p "$tmp/newarea" && printf '\n' > "$tmp/newarea/n.c"
        out=$(check "$tmp") && { echo "self-test: violations were accepted"; rc=1; }
        for want in 'storage/up.c:1: #include "daemon/run.h"' 'storage/sibling.c:1: #include "host/x.h"' \
                    'basic/bare.c:1: #include "runs.h" does not name its folder' 'newarea/n.c: folder newarea'; do
                grep -qF "$want" <<<"$out" || { echo "self-test: not reported: $want"; rc=1; }
        done
        rm -rf "$tmp"
        [ $rc -eq 0 ] && echo "self-test: every violation reported"
        return $rc
}

if [ "${1:-}" = "--self-test" ]; then
        self_test
        exit
fi
root=${1:-$(cd "$here/../.." && pwd)}
out=$(check "$root")
rc=$?
[ -n "$out" ] && echo "$out"
[ $rc -eq 0 ] && echo "layers: every include points down ($(grep -vc '^#' "$table") folders)"
exit $rc
