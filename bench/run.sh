#!/usr/bin/env bash
# Runs mcptray's benchmarks and prints the figures bench/README.md records.
# Run it on a quiet machine: other work on the two cores skews every figure.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

echo "== 30 stdio servers, 300 ms initialize each, 3-wide window (bound 3.0 s)"
go test -run '^$' -bench 'Connect30Slow$' -benchtime 1x -count "${COUNT:-5}" ./core/conn/ | tee "$out/connect.txt" | grep Benchmark

echo
echo "== the same 30 in the sandbox; and one server's start with and without it (p50)"
go test -run '^$' -bench 'Connect30SlowSandboxed' -benchtime 1x -count "${COUNT:-5}" ./core/conn/ | grep Benchmark
go test -run '^$' -bench 'StartSandboxed' -benchtime 100x -count "${COUNT:-5}" ./core/conn/ | grep Benchmark

echo
echo "== a whole mcptray serve connecting 30 stdio servers of 100–500 ms, cold and warm, beside the 3-slot bound and the floor"
go test -run '^$' -bench 'ServeConnect30' -benchtime 1x -count "${COUNT:-5}" ./test/e2e | grep Benchmark

echo
echo "== tools/call round trip to a local stdio server: manager vs bare mcp-go"
go test -run '^$' -bench 'CallTool' -benchtime 3000x -count "${COUNT:-10}" ./core/conn/ > "$out/call.txt"
if command -v benchstat >/dev/null 2>&1 || [ -x "$(go env GOPATH)/bin/benchstat" ]; then
	"$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")" -col /via "$out/call.txt"
else
	grep Benchmark "$out/call.txt"
	echo "(go install golang.org/x/perf/cmd/benchstat@latest for a comparison table)"
fi

echo
echo "== tools/call through the gateway's faces vs straight to the server (p50/p99)"
go test -run '^$' -bench 'GatewayCall' -benchtime 3000x -count "${COUNT:-3}" ./test/e2e | grep Benchmark
go test -run '^$' -bench 'CallLayers' -benchtime 3000x -count "${COUNT:-3}" ./core/gateway/ | grep Benchmark

echo
echo "== an HTTPS request through the egress proxy vs straight to the server (p50 added)"
go test -run '^$' -bench 'HTTPS' -benchtime 20x -count "${COUNT:-3}" ./core/egress/ | grep Benchmark
echo "== a server's 100 tools against their pins (goal: <= 1 ms)"
go test -run '^$' -bench 'PinCheck100|ShadowingAgain100x100' -benchtime 1000x -count "${COUNT:-3}" ./core/pins/ | grep Benchmark
go test -run '^$' -bench 'Compare100|Scan100' -benchtime 1000x -count "${COUNT:-3}" ./core/pins/ | grep Benchmark

echo
echo "== what the activity record adds to a call (stdio face, record off / on / on with Keep arguments)"
go test -run '^$' -bench 'RecordCall' -benchtime 3000x -count "${COUNT:-3}" ./core/gateway/ | grep Benchmark

echo
echo "== the activity record at 1,000,000 calls: a server over a day, the filters' names, the day's summary, MB per million rows"
go test -run '^$' -bench 'Million' -benchtime 20x ./core/activity/ | grep Benchmark

echo
echo "== the set editor with 20 servers of 100 tools: a key in its find field (goal: <= 16 ms), and opening it"
go test -run '^$' -bench 'SetEditorFind' -benchtime 200x -count "${COUNT:-5}" ./app/window | grep Benchmark
go test -run '^$' -bench 'SetEditorOpen' -benchtime 1x -count "${COUNT:-3}" ./app/window | grep Benchmark
