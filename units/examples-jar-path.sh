#!/bin/sh
# examples-jar-path.sh DIR FROM TO: run by `meson install` (units/meson.build) after the examples
# are in DIR (relative to the prefix, under DESTDIR): in each installed definition, the workload
# path FROM (where the default prefix installs it) becomes TO (where this install put it).
set -eu
dir=$1 from=$2 to=$3
for f in "${MESON_INSTALL_DESTDIR_PREFIX:?run by meson install}/$dir"/*.json; do
        [ -e "$f" ] || continue
        sed -i "s|$from|$to|g" "$f"
done
