#!/usr/bin/env bash
# Measures how much memory mcptray holds while idle: `mcptray serve` with
# three connected stdio servers, and the window (under Xvfb, when it is
# installed). Prints the resident set size (VmRSS) and the peak (VmHWM) of
# mcptray's own process, not of the servers it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-idle.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/mcptray" .
go build -o "$tmp/mcp-testserver" ./test/mcpserver/cmd/mcp-testserver
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config LANG=C.UTF-8
mkdir -p "$HOME"
for n in one two three; do "$tmp/mcptray" add "$n" -- "$tmp/mcp-testserver" -name "$n" >/dev/null; done

rss() { awk '/^VmRSS|^VmHWM/ {printf "%s %.1f MB  ", $1, $2/1024}' "/proc/$1/status"; echo; }

"$tmp/mcptray" serve >"$tmp/serve.log" 2>&1 &
pids+=($!)
serve=$!
# Wait (with a deadline) until all three report connected.
for _ in $(seq 1 100); do
	[ "$(grep -c ': connected' "$tmp/serve.log" || true)" -ge 3 ] && break
	sleep 0.1
done
grep -q 'three: connected\|one: connected' "$tmp/serve.log" || { cat "$tmp/serve.log"; exit 1; }
sleep "${SETTLE:-5}" # idle is what is measured
echo -n "mcptray serve, 3 servers connected, idle: "
rss "$serve"

if command -v Xvfb >/dev/null 2>&1 && command -v dbus-run-session >/dev/null 2>&1; then
	Xvfb :97 -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
	pids+=($!)
	sleep 1
	DISPLAY=:97 "$tmp/mcptray" >"$tmp/gui.log" 2>&1 &
	gui=$!
	pids+=($gui)
	sleep "${SETTLE:-5}"
	echo -n "mcptray window (Xvfb), idle:               "
	rss "$gui"
fi
