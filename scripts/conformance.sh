#!/usr/bin/env bash
# Runs the official MCP conformance suite against mcptray and prints the
# suite's summaries: its client scenarios against mcptray as a client
# (through test/conformance/client), then its server scenarios against
# mcptray's gateway (mcptray serve --gateway-no-auth) with server-everything
# behind it (the suite's active scenarios). Server scenarios that do not
# apply to a proxy are listed, with why, in
# test/conformance/gateway-baseline.yml; every other must pass.
#
#   scripts/conformance.sh                 every client and server scenario
#   scripts/conformance.sh initialize ...  only these client scenarios
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

server_mode=0
if [ $# -eq 0 ]; then
	server_mode=1
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
echo "conformance (client): $passed passed, $failed failed"
[ -z "$failures" ] || echo "failed:$failures"
status=0
[ "$failed" -eq 0 ] || status=1
[ "$server_mode" -eq 1 ] || exit "$status"

# The server scenarios, against the gateway of an mcptray serve in a
# throwaway home with server-everything as its one server.
everything=$root/test/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
home=$out/home
mkdir -p "$home" && mkdir -m 700 "$out/run"
export HOME=$home XDG_RUNTIME_DIR=$out/run
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
echo "server scenarios against the gateway at $url (server-everything behind it):"
"$node" "$suite" server --url "$url" --suite active \
	--expected-failures "$root/test/conformance/gateway-baseline.yml" -o "$out/server-results" >"$out/server.log" 2>&1 || status=1
sed 's/\x1b\[[0-9;]*m//g' "$out/server.log" | sed -n '/=== SUMMARY ===/,$p'
[ -z "${VERBOSE:-}" ] || cat "$out/server.log"
applies=$(sed 's/\x1b\[[0-9;]*m//g' "$out/server.log" | grep -c '^✓' || true)
na=$(sed 's/\x1b\[[0-9;]*m//g' "$out/server.log" | grep -c '^  ~ ' || true)
echo
echo "conformance (server, through the gateway): $applies passed, $na do not apply to a proxy (test/conformance/gateway-baseline.yml)"
exit "$status"
