#!/bin/bash
# check-layers.sh [ROOT]: fails when a source file includes a header of a folder its row of
# layers.tsv does not allow (even one on a lower layer), names a header without its folder, or
# lies in a folder the table does not place; when a row of the table allows a folder that is not
# on a lower layer; and when docs/architecture.md's table of folders disagrees with layers.tsv
# (layer or "may include"). The table is layers.tsv beside this script.
# `check-layers.sh --self-test` checks the checker on scratch trees with one violation of each kind.
set -u
here=$(cd "$(dirname "$0")" && pwd)

# check TABLE ROOT: prints one line per violation; exit status 1 if any. ROOT/docs/architecture.md
# is compared with TABLE when it exists.
check() {
        local table=$1 root=$2 docs=$2/docs/architecture.md
        [ -f "$docs" ] || docs=
        awk -v table="$table" -v docs="$docs" -v root="$root" '
                function words(s) { gsub(/[`\/,]/, " ", s); gsub(/^ +| +$/, "", s); gsub(/ +/, " ", s); return s }
                # sorted(LIST): the space-separated LIST in sorted order, "-" when empty.
                function sorted(list,   n, a, i, j, t, out) {
                        n = split(list, a, " ")
                        for (i = 2; i <= n; i++)
                                for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
                        out = ""
                        for (i = 1; i <= n; i++) if (a[i] != "-") out = out (out == "" ? "" : " ") a[i]
                        return out == "" ? "-" : out
                }
                FILENAME == table {
                        if ($0 ~ /^#/ || NF < 2) next
                        split($0, f, "\t")
                        layer[f[1]] = f[2]; allowed[f[1]] = sorted(f[3]); order[++folders] = f[1]
                        next
                }
                FILENAME == docs {
                        if (!table_checked) check_table()
                        if ($0 !~ /^\| *`[a-z]+\/` *\|/) next
                        n = split($0, c, "|")
                        folder = words(c[2]); lay = words(c[3]); inc = words(c[n - 1])
                        if (inc == "nothing") inc = "-"
                        documented[folder] = 1
                        if (!(folder in layer)) {
                                printf "docs/architecture.md: folder %s is on no layer of layers.tsv\n", folder; bad = 1; next
                        }
                        if (lay != layer[folder] || sorted(inc) != allowed[folder]) {
                                printf "docs/architecture.md: %s/ is on layer %s and may include %s; layers.tsv says layer %s, %s\n",
                                       folder, lay, sorted(inc), layer[folder], allowed[folder]; bad = 1
                        }
                        next
                }
                # A row may allow only folders the table places on a lower layer.
                function check_table(   i, own, n, a, j) {
                        table_checked = 1
                        for (i = 1; i <= folders; i++) {
                                own = order[i]
                                n = split(allowed[own], a, " ")
                                for (j = 1; j <= n; j++) {
                                        if (a[j] == "-") continue
                                        if (!(a[j] in layer) || layer[a[j]] + 0 >= layer[own] + 0) {
                                                printf "layers.tsv: %s (layer %s) may not allow %s, which is not on a lower layer\n",
                                                       own, layer[own], a[j]; bad = 1
                                        } else {
                                                may[own, a[j]] = 1
                                        }
                                }
                        }
                }
                {
                        if (!table_checked) check_table()
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
                        if (dir != own && (own in layer) && !((own, dir) in may)) {
                                printf "%s:%d: #include \"%s\": %s (layer %s) may include only %s, not %s (layer %s)\n",
                                       file, FNR, inc, own, layer[own], allowed[own], dir, layer[dir]; bad = 1
                        }
                }
                END {
                        if (!table_checked) check_table()
                        if (docs != "")
                                for (i = 1; i <= folders; i++)
                                        if (!(order[i] in documented)) {
                                                printf "docs/architecture.md: the table has no row for %s/\n", order[i]; bad = 1
                                        }
                        exit bad
                }
        ' "$table" $docs $(find "$root" -mindepth 2 -name '*.[ch]' -not -path "$root/tests/*" \
                        -not -path "$root/contrib/*" -not -path "$root/build*" -not -path "$root/.git/*" | sort)
}

# expect_reported OUT WANT...: each WANT is a line of OUT; 1 if any is missing.
expect_reported() {
        local out=$1 want rc=0
        shift
        for want in "$@"; do
                grep -qF "$want" <<<"$out" || { echo "self-test: not reported: $want"; rc=1; }
        done
        return $rc
}

self_test() {
        local tmp rc=0 out
        tmp=$(mktemp -d) || return 1
        printf '%s\t%s\t%s\n' basic 0 - storage 1 basic host 1 basic findings 2 'basic storage' \
                daemon 3 'basic storage host' > "$tmp/layers.tsv"
        mkdir -p "$tmp/src/basic" "$tmp/src/storage" "$tmp/src/host" "$tmp/src/findings" "$tmp/src/daemon" "$tmp/src/docs"
        printf '#include "basic/a.h"\n' > "$tmp/src/storage/ok.c"
        printf '#include "storage/ok.h"\n#include "host/x.h"\n#include "daemon/own.h"\n' > "$tmp/src/daemon/ok.c"
        printf '| folder | layer | owns | may include |\n|---|---|---|---|\n' > "$tmp/src/docs/architecture.md"
        awk -F'\t' '{ inc = $3; gsub(/ /, "/`, `", inc)
                      printf "| `%s/` | %s | things | %s |\n", $1, $2, inc == "-" ? "nothing" : "`" inc "/`" }' \
                "$tmp/layers.tsv" >> "$tmp/src/docs/architecture.md"
        out=$(check "$tmp/layers.tsv" "$tmp/src") || { echo "self-test: a clean tree was refused: $out"; rc=1; }

        printf '#include "daemon/run.h"\n' > "$tmp/src/storage/up.c"
        printf '#include "host/x.h"\n' > "$tmp/src/storage/sibling.c"
        printf '#include "findings/f.h"\n' > "$tmp/src/daemon/down.c"
        printf '#include "runs.h"\n' > "$tmp/src/basic/bare.c"
        mkdir -p "$tmp/src/newarea" && printf '\n' > "$tmp/src/newarea/n.c"
        sed -i 's/^| `host\/` | 1 |/| `host\/` | 2 |/; /^| `findings\/`/d' "$tmp/src/docs/architecture.md"
        out=$(check "$tmp/layers.tsv" "$tmp/src") && { echo "self-test: violations were accepted"; rc=1; }
        expect_reported "$out" \
                'storage/up.c:1: #include "daemon/run.h": storage (layer 1) may include only basic, not daemon (layer 3)' \
                'storage/sibling.c:1: #include "host/x.h"' \
                'daemon/down.c:1: #include "findings/f.h": daemon (layer 3) may include only basic host storage, not findings (layer 2)' \
                'basic/bare.c:1: #include "runs.h" does not name its folder' 'newarea/n.c: folder newarea' \
                'docs/architecture.md: host/ is on layer 2 and may include basic; layers.tsv says layer 1, basic' \
                'docs/architecture.md: the table has no row for findings/' || rc=1

        # A row that allows a sibling or a higher folder is refused, whatever the sources include.
        printf '%s\t%s\t%s\n' basic 0 - storage 1 'basic host' host 1 basic > "$tmp/bad.tsv"
        rm -rf "$tmp/src"
        mkdir -p "$tmp/src/storage" && printf '#include "basic/a.h"\n' > "$tmp/src/storage/ok.c"
        out=$(check "$tmp/bad.tsv" "$tmp/src") && { echo "self-test: a table allowing a sibling was accepted"; rc=1; }
        expect_reported "$out" 'layers.tsv: storage (layer 1) may not allow host, which is not on a lower layer' || rc=1
        rm -rf "$tmp"
        [ $rc -eq 0 ] && echo "self-test: every violation reported"
        return $rc
}

if [ "${1:-}" = "--self-test" ]; then
        self_test
        exit
fi
root=${1:-$(cd "$here/../.." && pwd)}
out=$(check "$here/layers.tsv" "$root")
rc=$?
[ -n "$out" ] && echo "$out"
[ $rc -eq 0 ] && echo "layers: every include is one its folder's row of layers.tsv allows" \
                      "($(grep -vc '^#' "$here/layers.tsv") folders); docs/architecture.md agrees"
exit $rc
