#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against mcptray
# (through test/conformance/client) and prints the suite's summary.
#
#   scripts/conformance.sh                 every client scenario
#   scripts/conformance.sh initialize ...  only these
#
# The suite needs Node >= 22: test/peers installs node@22 beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

node=$root/test/peers/node_modules/.bin/node
suite=$root/test/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -x "$node" ] && [ -f "$suite" ] || { echo "conformance: run make deps first (test/peers is not installed)" >&2; exit 1; }

go build -o bin/mcptray .
export MCPTRAY_BIN=$root/bin/mcptray

out=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-conformance.XXXXXX")
trap 'rm -rf "$out"' EXIT

if [ $# -eq 0 ]; then
	set -- $("$node" "$suite" list --client | sed -n 's/^[[:space:]]*[-*]\{0,1\}[[:space:]]*\([a-z0-9_/.-]*\).*/\1/p' | grep -v '^$')
fi

passed=0 failed=0 failures=""
for scenario in "$@"; do
	log=$out/$(echo "$scenario" | tr / _).log
	if "$node" "$suite" client --command "$root/test/conformance/client" --scenario "$scenario" -o "$out/results" >"$log" 2>&1 &&
		grep -q 'SUCCESS' "$log"; then
		passed=$((passed + 1))
		echo "PASS  $scenario ($(grep -o 'Passed: [0-9]*/[0-9]*' "$log" | tail -1))"
	else
		failed=$((failed + 1))
		failures="$failures $scenario"
		echo "FAIL  $scenario ($(grep -o 'Passed: [0-9]*/[0-9]*' "$log" | tail -1))"
		[ -n "${VERBOSE:-}" ] && cat "$log"
	fi
done
echo
echo "conformance: $passed passed, $failed failed"
[ -z "$failures" ] || echo "failed:$failures"
[ "$failed" -eq 0 ]
