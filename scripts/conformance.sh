#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against mcptray
# (through test/conformance/client) and prints each suite's summary. Two
# versions of the suite are installed in test/peers: the release (0.1.16) and
# the next one (conformance-next, 0.2.0-alpha.12, for the 2026-07-28 spec).
# Then the release suite's server scenarios run against mcptray's gateway
# (mcptray serve --gateway-no-auth) with server-everything behind it; those
# that cannot apply to a proxy are listed, with why, in
# test/conformance/gateway-baseline.yml, and every other must pass.
#
#   scripts/conformance.sh                 every client scenario of both suites, and the server scenarios
#   scripts/conformance.sh initialize ...  only these client scenarios
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

server_mode=0
[ $# -gt 0 ] || [ "${SUITE:-release}" != release ] || server_mode=1
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
	passed=0 failed=0 empty=0 failures=""
	for scenario in "$@"; do
		log=$out/$name-$(echo "$scenario" | tr / _).log
		ran=0
		"$node" "$suite" client --command "$root/test/conformance/client" --scenario "$scenario" -o "$out/results-$name" >"$log" 2>&1 || ran=$?
		if grep -q 'Passed: 0/0, 0 failed' "$log"; then
			# The suite has the scenario but checks nothing in it yet
			# (the next suite's sep-2640 ones): neither passed nor failed.
			empty=$((empty + 1))
			echo "EMPTY $scenario (the suite checks nothing in it yet)"
		elif [ "$ran" -eq 0 ] && grep -q 'SUCCESS' "$log" && ! grep -qE '\] (FAILURE|WARNING)' "$log"; then
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
	[ "$empty" -eq 0 ] || line="$line, $empty check nothing yet"
	[ -z "$failures" ] || line="$line; failed:$failures"
	summaries="$summaries$line"$'\n'
	[ "$failed" -eq 0 ] || status=1
	echo
done
printf '%s' "$summaries"
[ "$server_mode" -eq 1 ] || exit $status

# The release suite's server scenarios, against the gateway of an mcptray
# serve in a throwaway home with server-everything as its one server.
suite=${suites[release]}
everything=$root/test/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
mkdir -p "$out/home" && mkdir -m 700 "$out/run"
export HOME=$out/home XDG_RUNTIME_DIR=$out/run
"$MCPTRAY_BIN" add everything -- "$node" "$everything" stdio >/dev/null
"$MCPTRAY_BIN" serve --gateway-no-auth --gateway-addr 127.0.0.1:0 >"$out/serve.log" 2>&1 &
serve=$!
trap 'kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null; rm -rf "$out"' EXIT
url=""
for _ in $(seq 600); do # up to 60 s for serve and server-everything
	url=$(sed -n 's|^Gateway: \(http://127\.0\.0\.1:[0-9]*/mcp\).*|\1|p' "$out/serve.log")
	[ -n "$url" ] && grep -q '^everything: connected' "$out/serve.log" && break
	kill -0 "$serve" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$url" ] || ! grep -q '^everything: connected' "$out/serve.log"; then
	echo "conformance (server): mcptray serve did not get ready:" >&2
	cat "$out/serve.log" >&2
	exit 1
fi
echo
echo "conformance $("$node" "$suite" --version) server scenarios against the gateway at $url (server-everything behind it):"
"$node" "$suite" server --url "$url" --suite active \
	--expected-failures "$root/test/conformance/gateway-baseline.yml" -o "$out/server-results" >"$out/server.log" 2>&1 || status=1
sed 's/\x1b\[[0-9;]*m//g' "$out/server.log" | sed -n '/=== SUMMARY ===/,$p'
[ -z "${VERBOSE:-}" ] || cat "$out/server.log"
applies=$(sed 's/\x1b\[[0-9;]*m//g' "$out/server.log" | grep -c '^✓' || true)
na=$(sed 's/\x1b\[[0-9;]*m//g' "$out/server.log" | grep -c '^  ~ ' || true)
echo
printf '%s' "$summaries"
echo "conformance (server, through the gateway): $applies passed, $na do not apply to a proxy (test/conformance/gateway-baseline.yml)"
exit $status
