#!/bin/sh
# install-deps.sh [DIR]: installs the pinned npm packages the openapi tests use (the linter, ajv)
# into tests/openapi/node_modules (or those of DIR, e.g. tests/ui's playwright-core, into
# DIR/node_modules) exactly as package-lock.json says, once. Tests run in parallel, so
# the install is serialised with a lock and recorded with the lockfile's hash: a changed
# lockfile reinstalls, an unchanged one costs nothing.
set -eu

dir=$(CDPATH= cd -- "${1:-$(dirname -- "$0")}" && pwd)
stamp="$dir/node_modules/.slicelab-lock.sha256"

want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
up_to_date() { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; }

up_to_date && exit 0

exec 9>"$dir/.install.lock"
flock 9
up_to_date && exit 0

# npm ci wipes node_modules first, so a half-finished earlier install cannot linger.
if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error --ignore-scripts >/dev/null); then
        echo "install-deps.sh: npm ci failed in $dir" >&2
        exit 1
fi
printf '%s\n' "$want" >"$stamp"
