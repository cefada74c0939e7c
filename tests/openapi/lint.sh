#!/bin/sh
# lint.sh: lints openapi.yaml with Redocly CLI (a real OpenAPI 3.1 validator, rules
# "recommended-strict": warnings count as errors), then with check.js (the project's own rules:
# design endpoints present, build status, closed schemas, error bodies, protocol headers).
#   lint.sh [openapi.yaml]        exit 0 clean, 1 on any problem
# Installs the pinned npm packages on first use (install-deps.sh).
set -eu

dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
src=${SLICELAB_SRC:-$(CDPATH= cd -- "$dir/../.." && pwd)}
doc=${1:-$src/openapi.yaml}

"$dir/install-deps.sh"

# No usage data leaves this machine, and no update check is attempted.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1

out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
# Redocly prints a Node-version banner on stderr; keep only its findings.
if ! node "$dir/node_modules/@redocly/cli/bin/cli.js" lint --config "$dir/redocly.yaml" \
        --format stylish --max-problems 1000 "$doc" >"$out" 2>&1; then
        status=1
fi
grep -v '[║╔╚]' "$out" | grep -v '^[[:space:]]*$' || true
node "$dir/check.js" "$doc" || status=1
exit $status
