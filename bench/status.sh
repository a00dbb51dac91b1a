#!/usr/bin/env bash
# Times `mcptray status` with N (default 10) stdio servers: through a
# running mcptray (its servers are connected already), and in-process (no
# mcptray running: the command starts and connects every server itself).
# Prints the median and the range of RUNS (default 10) runs of each.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10}
RUNS=${RUNS:-10}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-status.XXXXXX")
serve=
cleanup() {
	[ -n "$serve" ] && kill "$serve" 2>/dev/null && wait "$serve" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/mcptray" .
go build -o "$tmp/mcp-testserver" ./test/mcpserver/cmd/mcp-testserver
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_RUNTIME_DIR=$tmp/run LANG=C.UTF-8
mkdir -p "$HOME"
mkdir -m 700 "$XDG_RUNTIME_DIR"
for i in $(seq 1 "$N"); do "$tmp/mcptray" add "s$i" -- "$tmp/mcp-testserver" -name "s$i" >/dev/null; done

# times runs status RUNS times and prints the median and range in ms.
times() {
	local ms=()
	for _ in $(seq 1 "$RUNS"); do
		local t0 t1
		t0=$(date +%s%N)
		"$tmp/mcptray" status >/dev/null
		t1=$(date +%s%N)
		ms+=($(((t1 - t0) / 1000000)))
	done
	printf '%s\n' "${ms[@]}" | sort -n | awk '{a[NR]=$1} END {printf "median %d ms (%d–%d ms, %d runs)\n", a[int((NR+1)/2)], a[1], a[NR], NR}'
}

echo -n "mcptray status, in-process, $N servers:             "
times
"$tmp/mcptray" serve >/dev/null 2>&1 &
serve=$!
"$tmp/mcptray" status >/dev/null # waits until the running one has connected them
echo -n "mcptray status, through the running one, $N servers: "
times
