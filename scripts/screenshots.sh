#!/usr/bin/env bash
# Writes PNGs of mcptray's window into screenshots/ (git-ignored): the
# welcome (a home with no servers) and the main window (a home holding the
# demo project, a server needing sign-in and a failed server). It runs
# mcptray under Xvfb with a private D-Bus session and a StatusNotifier
# watcher, so the tray exists, and finds the window with xdotool.
#
# Needs: Xvfb, dbus-run-session, xdotool, imagemagick (import).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in Xvfb dbus-run-session xdotool import; do
	if ! command -v "$tool" >/dev/null; then
		echo "screenshots: $tool is missing; on Debian/Ubuntu: sudo apt-get install xvfb dbus xdotool imagemagick" >&2
		exit 1
	fi
done

out=$PWD/screenshots
mkdir -p "$out"
go build -o bin/mcptray .
go build -o bin/sniwatcher ./tray/sniwatcher/cmd/sniwatcher

if [ -z "${MCPTRAY_SCREENSHOTS_INNER:-}" ]; then
	export MCPTRAY_SCREENSHOTS_INNER=1
	display=:$((90 + RANDOM % 9))
	Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp &
	xvfb=$!
	trap 'kill $xvfb 2>/dev/null || true' EXIT
	for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
	DISPLAY=$display dbus-run-session -- bash "$0"
	exit
fi

# Inside the private session from here on.
bin/sniwatcher &
watcher=$!
pids=("$watcher")
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# shot NAME: waits for mcptray's window and writes NAME.png.
shot() {
	local id=""
	for _ in $(seq 100); do
		id=$(xdotool search --onlyvisible --name '^mcptray$' 2>/dev/null | head -1) && [ -n "$id" ] && break
		sleep 0.1
	done
	if [ -z "$id" ]; then
		echo "screenshots: the window did not show for $1" >&2
		return 1
	fi
	sleep "${2:-2}" # let it draw the snapshot
	import -window "$id" "$out/$1.png"
	echo "screenshots: wrote screenshots/$1.png"
}

# run_home HOME: runs mcptray for that home until the caller kills it.
run_home() {
	HOME=$1 XDG_CONFIG_HOME=$1/.config XDG_RUNTIME_DIR=$1/run MCPTRAY_BROWSER=true bin/mcptray &
	pids+=("$!")
	echo "$!"
}

# The welcome: a home with nothing in it (the first launch opens the window).
empty=$(mktemp -d)
mkdir -p "$empty/run" && chmod 700 "$empty/run"
pid=$(run_home "$empty")
shot welcome
kill "$pid"; wait "$pid" 2>/dev/null || true

# The main window: the demo project, a remote that answers 401, a failed
# server.
home=$(mktemp -d)
mkdir -p "$home/run" "$home/.config/mcptray" && chmod 700 "$home/run"
cp -r examples/demo "$home/demo"
python3 - "$home" <<'PY' &
import http.server, sys, threading
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer resource_metadata="http://127.0.0.1:%d/.well-known/oauth-protected-resource"' % self.server.server_port)
        self.end_headers()
    do_GET = do_POST
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + "/port", "w").write(str(s.server_port))
s.serve_forever()
PY
pids+=("$!")
for _ in $(seq 50); do [ -s "$home/port" ] && break; sleep 0.1; done
cat >"$home/.config/mcptray/config.json" <<JSON
{
  "folders": ["$home/demo"],
  "mcpServers": {
    "online-notes": {"url": "http://127.0.0.1:$(cat "$home/port")/mcp"},
    "broken": {"command": "mcp-server-that-is-not-installed", "args": ["--stdio"]}
  }
}
JSON
touch "$home/.config/mcptray/launched"
pid=$(run_home "$home")
sleep 2
HOME=$home XDG_CONFIG_HOME=$home/.config XDG_RUNTIME_DIR=$home/run bin/mcptray >/dev/null # opens the window
shot main 4
kill "$pid"; wait "$pid" 2>/dev/null || true
rm -rf "$empty" "$home"
