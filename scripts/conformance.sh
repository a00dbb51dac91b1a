#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against mcptray
# (through test/conformance/client) and prints each suite's summary. Two
# versions of the suite are installed in test/peers: the release (0.1.16) and
# the next one (conformance-next, 0.2.0-alpha.12, for the 2026-07-28 spec).
#
#   scripts/conformance.sh                 every client scenario of both suites
#   scripts/conformance.sh initialize ...  only these
#   SUITE=next scripts/conformance.sh      only one suite (release or next)
#
# The suite needs Node >= 22: test/peers installs node@22 beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

node=$root/test/peers/node_modules/.bin/node
declare -A suites=(
	[release]=$root/test/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js
	[next]=$root/test/peers/node_modules/conformance-next/dist/index.js
)
names=(release next)
case "${SUITE:-}" in
'') ;;
release | next) names=("$SUITE") ;;
*) echo "conformance: SUITE is release or next, not '$SUITE'" >&2; exit 2 ;;
esac
for name in "${names[@]}"; do
	[ -x "$node" ] && [ -f "${suites[$name]}" ] || { echo "conformance: run make deps first (test/peers is not installed)" >&2; exit 1; }
done

go build -o bin/mcptray .
export MCPTRAY_BIN=$root/bin/mcptray

out=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-conformance.XXXXXX")
trap 'rm -rf "$out"' EXIT

summaries="" status=0
for name in "${names[@]}"; do
	suite=${suites[$name]}
	version=$("$node" "$suite" --version)
	if [ $# -eq 0 ]; then
		set -- $("$node" "$suite" list --client | sed -n 's/^[[:space:]]*[-*]\{0,1\}[[:space:]]*\([a-z0-9_/.-]*\).*/\1/p' | grep -v '^$')
		listed=1
	else
		listed=0
	fi
	echo "conformance $version ($name):"
	passed=0 failed=0 failures=""
	for scenario in "$@"; do
		log=$out/$name-$(echo "$scenario" | tr / _).log
		if "$node" "$suite" client --command "$root/test/conformance/client" --scenario "$scenario" -o "$out/results-$name" >"$log" 2>&1 &&
			grep -q 'SUCCESS' "$log" && ! grep -qE '\] (FAILURE|WARNING)' "$log"; then
			passed=$((passed + 1))
			echo "PASS  $scenario ($(grep -o 'Passed: [0-9]*/[0-9]*.*warnings' "$log" | tail -1))"
		else
			failed=$((failed + 1))
			failures="$failures $scenario"
			echo "FAIL  $scenario ($(grep -o 'Passed: [0-9]*/[0-9]*.*warnings' "$log" | tail -1))"
			[ -n "${VERBOSE:-}" ] && cat "$log"
		fi
	done
	[ "$listed" -eq 0 ] || set --
	line="conformance $version ($name): $passed passed, $failed failed"
	[ -z "$failures" ] || line="$line; failed:$failures"
	summaries="$summaries$line"$'\n'
	[ "$failed" -eq 0 ] || status=1
	echo
done
printf '%s' "$summaries"
exit $status
