#!/usr/bin/env bash
# Measures how much memory mcptray holds while idle, with N (default 20)
# connected stdio servers (the in-repo test server):
#
#   - mcptray serve: the service alone;
#   - mcptray in the tray, no window open (the goal: at most 60 MB), under
#     Xvfb with a private session bus and a minimal StatusNotifier host;
#   - the window's own process while it is open.
#
# Prints the resident set size (VmRSS) and the peak (VmHWM) of mcptray's own
# processes, not of the servers they run (those are the same whoever starts
# them). Needs Xvfb and dbus-run-session for the tray (make deps installs
# them); without them it measures serve only.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20}
SETTLE=${SETTLE:-5}
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
go build -o "$tmp/sniwatcher" ./tray/sniwatcher/cmd/sniwatcher
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_RUNTIME_DIR=$tmp/run LANG=C.UTF-8
mkdir -p "$HOME" "$XDG_CONFIG_HOME/mcptray"
mkdir -m 700 "$XDG_RUNTIME_DIR"
for i in $(seq 1 "$N"); do "$tmp/mcptray" add "s$i" -- "$tmp/mcp-testserver" -name "s$i" >/dev/null; done
touch "$XDG_CONFIG_HOME/mcptray/launched" # not the first launch: no window

rss() { awk '/^VmRSS|^VmHWM/ {printf "%s %.1f MB  ", $1, $2/1024}' "/proc/$1/status"; echo; }

# connected waits until every server is connected: mcptray status, through
# the running instance, returns once nothing is still connecting.
connected() {
	"$tmp/mcptray" status >"$tmp/status.txt" || { cat "$tmp/status.txt"; exit 1; }
	[ "$(grep -c ' connected ' "$tmp/status.txt")" -ge "$N" ] || { cat "$tmp/status.txt"; exit 1; }
}

"$tmp/mcptray" serve >"$tmp/serve.log" 2>&1 &
serve=$!
pids+=("$serve")
connected
sleep "$SETTLE" # idle is what is measured
echo -n "mcptray serve, $N servers connected, idle:         "
rss "$serve"
kill "$serve"
wait "$serve" 2>/dev/null || true

if ! command -v Xvfb >/dev/null 2>&1 || ! command -v dbus-run-session >/dev/null 2>&1; then
	echo "(no Xvfb or dbus-run-session: the tray and the window are not measured)"
	exit 0
fi
Xvfb :97 -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
pids+=($!)
export DISPLAY=:97 N SETTLE tmp
dbus-run-session -- bash -c '
	set -euo pipefail
	rss() { awk "/^VmRSS|^VmHWM/ {printf \"%s %.1f MB  \", \$1, \$2/1024}" "/proc/$1/status"; echo; }
	"$tmp/sniwatcher" & watcher=$!
	"$tmp/mcptray" >"$tmp/tray.log" 2>&1 & tray=$!
	trap "kill $tray $watcher 2>/dev/null; wait" EXIT
	"$tmp/mcptray" status >/dev/null || true
	sleep "$SETTLE"
	echo -n "mcptray in the tray, $N servers, no window, idle: "
	rss "$tray"
	"$tmp/mcptray" >/dev/null # a second launch opens the window
	for _ in $(seq 1 100); do
		win=$(pgrep -f "^$tmp/mcptray window" || true)
		[ -n "$win" ] && break
		sleep 0.1
	done
	[ -n "$win" ] || { echo "the window did not open"; cat "$tmp/tray.log"; exit 1; }
	sleep "$SETTLE"
	echo -n "the window (Fyne, software OpenGL), open, idle:  "
	rss "$win"
	echo -n "mcptray in the tray while the window is open:    "
	rss "$tray"
'
