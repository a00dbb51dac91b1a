#!/usr/bin/env bash
# make test-windows: builds mcptray.exe and runs it under Wine 10 (the
# Debian 13 root wine-root.sh makes once), in a Wine prefix made afresh:
#
#   - the Go tests in *_windows_test.go files, each package's built for
#     Windows and run with a deadline;
#   - version; add (mcptray's demo server), tools and call, each in a
#     process of its own;
#   - a secret given with add --secret-env: in Wine's Credential Manager,
#     its value in no file of the prefix (the Windows profile);
#   - the tray's process (mcptray.exe with no arguments), its icon set
#     (Wine says when it could not load it), and its control pipe:
#     status, and a call through it; a server's own call of
#     mcptray remove refused (its job object gives it away); a server
#     whose first instruction starts a program: that program ends when
#     the server is removed (the server is in its job before it runs);
#   - the gateway's stdio face with a real MCP client (the TypeScript SDK's,
#     test/peers/stdio-client.mjs): initialize, tools/list, tools/call;
#   - the window under Xvfb, opened as a second start opens it: its
#     process up, its window found by title and drawn (its picture has
#     more than a blank's few colours), still up once drawn, and no Go
#     crash in the tray's output; a screenshot of it to look at
#     (MCPTRAY_WINE_SHOT, default /tmp/mcptray-wine-window.png);
#   - mcptray quit, after which no mcptray.exe process is left; and the
#     tray killed outright, after which none is left either (its servers'
#     job objects end them);
#   - a window that cannot open (a graphics driver of OpenGL 1.1, as
#     Windows' own is): a message box saying why, with a fix, and a
#     screenshot of it (MCPTRAY_WINE_GL_SHOT, default
#     /tmp/mcptray-wine-window-error.png); mcptray still in the tray;
#   - a start that fails as a person could meet it (mcptray serve, started
#     by an app, already runs): started as Explorer starts it, with no
#     console, it says why in a message box naming its log; a screenshot
#     of it to look at (MCPTRAY_WINE_BOX_SHOT, default
#     /tmp/mcptray-wine-start-error.png); closed, it ends and leaves nothing;
#   - the .msi (packaging/windows): msiexec installs it (the program, the
#     Start menu entry, start at login as mcptray autostart reads it, the
#     .mcpb type) and uninstalls it leaving none of these.
#
# Run as root (chroot). Not part of make test: see README for its time.
# Runs at once do not meet: each is in a mount namespace of its own, where
# /mcptray is its own folder (wine.sh), with a prefix of its own, and
# counts only its own processes.
set -euo pipefail
if [ -z "${MCPTRAY_WINE_NS:-}" ] && [ "$(id -u)" = 0 ]; then
	exec env MCPTRAY_WINE_NS=$$ unshare --mount --propagation private "$0" "$@"
fi
cd "$(dirname "$0")/../.."
repo=$PWD
here=$repo/test/windows
began=$(date +%s)

say() { echo "test-windows: $*"; }
failures=0
fail() {
	echo "test-windows: FAIL: $*" >&2
	failures=$((failures + 1))
}
die() {
	echo "test-windows: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (chroot); run it with sudo"
command -v x86_64-w64-mingw32-gcc >/dev/null || die "x86_64-w64-mingw32-gcc is missing: run 'bash scripts/deps.sh windows'"
[ -d test/peers/node_modules/@modelcontextprotocol/sdk ] || die "the test peers are missing: run 'make deps'"

root=$("$here/wine-root.sh" mount)
work=$(mktemp -d /tmp/mcptray-wine.XXXXXX)
# A prefix of its own, made afresh: a Windows profile with nothing of a
# former run in it, nor of one running beside it.
prefix=/mcptray-test-prefix.$(basename "$work")
export MCPTRAY_WINE_PREFIX=$prefix
rm -rf --one-file-system "${root:?}$prefix"
# ns is this run's mount namespace, which every process it starts shares.
ns=$(readlink /proc/self/ns/mnt)

xvfb=""
cleanup() {
	"$here/wine.sh" "$work" wineserver -k 2>/dev/null || true
	[ -z "$xvfb" ] || kill "$xvfb" 2>/dev/null || true
	rm -rf --one-file-system "$work" "${root:?}$prefix"
}
trap cleanup EXIT

say "building mcptray.exe"
CC=x86_64-w64-mingw32-gcc CGO_ENABLED=1 GOOS=windows GOARCH=amd64 \
	go build -ldflags "-H=windowsgui -extldflags=-l:libssp.a" -o "$work/mcptray.exe" .

# mt runs mcptray.exe under Wine with a deadline; its stderr goes to stdout.
mt() { timeout 120 "$here/wine.sh" "$work" wine /mcptray/mcptray.exe "$@" 2>&1; }
# expect WHAT PATTERN OUTPUT: OUTPUT holds PATTERN (grep -E).
expect() {
	if grep -qE -- "$2" <<<"$3"; then
		say "ok: $1"
	else
		fail "$1: no \"$2\" in:"$'\n'"$3"
	fi
}
# wait_for WHAT SECONDS COMMAND…: runs COMMAND until it succeeds.
wait_for() {
	local what=$1 end=$(($(date +%s) + $2))
	shift 2
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || {
			fail "$what: not within the time"
			return 1
		}
		sleep 0.5
	done
}
# this_run P: process P (/proc/PID) runs in the root, started by this run.
this_run() {
	[ "$(readlink "$1/ns/mnt" 2>/dev/null)" = "$ns" ] && [ "$(readlink "$1/root" 2>/dev/null)" = "$root" ]
}
# ours lists this run's processes whose command line names mcptray.exe
# (the tray, the window, the demo servers) or ping (what the hostile
# servers leave behind).
ours() {
	local p
	for p in /proc/[0-9]*; do
		this_run "$p" || continue
		{ tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -iE 'mcptray\.exe|ping' && grep -h '^State' "$p/status" && echo "${p#/proc/}"; } || true
	done
}

# The display, for every Wine process of the run, as Windows always has
# one: Wine makes its desktop (explorer.exe) with the display of the first
# process its wineserver runs, and a desktop made with none fails every
# window after it ("Win32: Failed to create helper window"), the tray's
# and the window's, which never happens on Windows.
display=$((45 + $$ % 100))
while [ -e "/tmp/.X11-unix/X$display" ]; do display=$((display + 1)); done
"$here/wine.sh" "$work" Xvfb ":$display" -screen 0 1280x800x24 -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
xvfb=$!
wait_for "Xvfb" 30 test -S "/tmp/.X11-unix/X$display" || die "Xvfb did not start: $(cat "$work/xvfb.log")"
export DISPLAY=:$display

say "one process a command"
expect "version" 'built with go.* for windows/amd64' "$(mt version)"
expect "add" 'Added demo' "$(mt add demo -- 'Z:\mcptray\mcptray.exe' demo-server)"
expect "tools" 'greet +read-only' "$(mt tools demo)"
expect "call" 'Hello, Ann!' "$(mt call demo greet '{"name":"Ann"}')"
expect "sandbox words" 'no file or network sandbox' "$(mt sandbox demo)"

say "the Go tests written for Windows"
# Each package's tests in its *_windows_test.go files, built for Windows
# and run under Wine with a deadline (a hang fails, not blocks). The
# packages' other tests assume a Unix system in places (paths, /bin/sh,
# go on PATH), and are left to make test.
for dir in $(git ls-files --cached --others --exclude-standard '*_windows_test.go' | xargs -n 1 dirname | sort -u); do
	names=$(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' "$dir"/*_windows_test.go | paste -sd '|')
	[ -n "$names" ] || continue
	bin=$(echo "$dir" | tr / -).test.exe
	step=$(date +%s)
	if ! GOOS=windows GOARCH=amd64 go test -c -o "$work/$bin" "./$dir" >"$work/$bin.log" 2>&1; then
		fail "building $dir's tests for Windows: $(cat "$work/$bin.log")"
		continue
	fi
	if timeout 240 "$here/wine.sh" "$work" wine "/mcptray/$bin" -test.run "^($names)\$" -test.v -test.timeout 180s >"$work/$bin.log" 2>&1 &&
		grep -q '^PASS' "$work/$bin.log"; then
		say "ok: $dir: $(grep -c '^--- PASS' "$work/$bin.log") passed ($names) in $(($(date +%s) - step)) s"
	else
		fail "$dir's Windows tests:"$'\n'"$(grep -av 'XDG_RUNTIME_DIR' "$work/$bin.log" | tail -40)"
	fi
done

say "a secret"
secret=wine-secret-$RANDOM$RANDOM$RANDOM
expect "add --secret-env" 'Added withsecret' \
	"$(printf '%s\n' "$secret" | mt add withsecret --secret-env DEMO_TOKEN -- 'Z:\mcptray\mcptray.exe' demo-server)"
expect "the secret in the Credential Manager" 'Generic: mcptray:vars-[0-9a-f]+/var:DEMO_TOKEN' \
	"$(timeout 60 "$here/wine.sh" "$work" wine reg query 'HKCU\Software\Wine\Credential Manager' 2>&1)"
if grep -rlaF -- "$secret" "$root$prefix" "$work" >/dev/null 2>&1; then
	fail "the secret's value is in a file: $(grep -rlaF -- "$secret" "$root$prefix" "$work" | head -3)"
else
	say "ok: the secret's value is in no file of the profile"
fi
mt remove withsecret >/dev/null || true

say "the tray, its control pipe and the window"
"$here/wine.sh" "$work" wine /mcptray/mcptray.exe >"$work/tray.log" 2>&1 &
running() { mt status | grep -q 'demo  *connected'; }
if wait_for "the tray's process answering on its pipe" 120 running; then
	expect "status through the pipe" 'demo +connected +3' "$(mt status)"
	expect "a call through it" 'Hello, Bo!' "$(mt call demo greet '{"name":"Bo"}')"
fi
# fyne.io/systray takes an .ico on Windows, which Wine says it could not
# load as "unable to set icon: Success".
if grep -q 'unable to set icon' "$work/tray.log"; then
	fail "the tray's icon: $(grep -m 1 'unable to set icon' "$work/tray.log")"
else
	say "ok: the tray's icon set"
fi
# Another run at once binds its own folder at /mcptray, in its own mount
# namespace: this run's /mcptray stays this run's folder.
other=$(mktemp -d /tmp/mcptray-wine.XXXXXX)
echo other >"$other/which"
echo this >"$work/which"
seen=$(env -u MCPTRAY_WINE_NS "$here/wine.sh" "$other" cat /mcptray/which 2>&1 || true)
rm -rf --one-file-system "$other"
expect "another run sees its own /mcptray" '^other$' "$seen"
# Read here, not through wine.sh, which would bind this run's folder again.
expect "this run's /mcptray is still its own" '^this$' "$(cat "$root/mcptray/which" 2>&1)"
# A hostile server: mcptray.exe's own CLI, run by a server mcptray
# started, with the control key it can read (nothing on Windows keeps a
# server from your files), asks to remove another server. The server's job
# object gives it away: refused, and demo stays.
# It also leaves behind a program that would run ten minutes whatever
# happens to its stdin (ping), for the job object to end.
printf '@echo off\r\nZ:\\mcptray\\mcptray.exe remove demo > Z:\\mcptray\\hostile.txt 2>&1\r\nstart "" /b ping -n 600 127.0.0.1 > NUL\r\nZ:\\mcptray\\mcptray.exe demo-server\r\n' >"$work/hostile.cmd"
expect "add a hostile server" 'Added hostile' "$(mt add hostile -- 'Z:\mcptray\hostile.cmd')"
tried() { grep -q . "$work/hostile.txt" 2>/dev/null; }
if wait_for "the hostile server's try" 120 tried; then
	expect "a server's own mcptray refused a trust decision" 'runs in a sandbox|not one of mcptray' "$(cat "$work/hostile.txt")"
	say "  it was told: $(head -n 1 "$work/hostile.txt" | tr -d '\r')"
	expect "demo still there" 'demo +connected' "$(mt status)"
fi
# A server whose first instruction starts a program that would run ten
# minutes (ping -n 601): it is in the server's job before it runs, so what
# it starts at once is too, and ends when the server is removed.
printf '@start "" /b ping -n 601 127.0.0.1 > NUL\r\n@Z:\\mcptray\\mcptray.exe demo-server\r\n' >"$work/early.cmd"
expect "add a server that starts a program at once" 'Added early' "$(mt add early -- 'Z:\mcptray\early.cmd')"
early() { [ -n "$(ours | grep -iE 'ping(\.exe)? +-n 601')" ]; }
if wait_for "the early server's program running" 120 early; then
	expect "remove it" 'Removed early' "$(mt remove early)"
	no_early() { ! early; }
	if wait_for "what it started at once ended with it" 60 no_early; then
		say "ok: what a server started at its first instruction ended with it"
	fi
fi
(cd test/peers && timeout 120 node stdio-client.mjs mcp__demo__greet '{"name":"Cy"}' -- \
	"$here/wine.sh" "$work" wine /mcptray/mcptray.exe stdio) >"$work/stdio.log" 2>&1 || true
stdio=$(cat "$work/stdio.log")
expect "stdio: initialize" '^initialize: mcptray' "$stdio"
expect "stdio: tools/list" '^tools/list: .*mcp__demo__greet among them' "$stdio"
expect "stdio: tools/call" '^tools/call: Hello, Cy!' "$stdio"

# As a person opens it again: mcptray.exe started while it runs (a
# double-click); the tray opens its window (the first launch did already).
expect "a second start opens the window" 'its window opens' "$(mt)"
# The window's process, and its window found by title: up, and still up
# once drawn (a window that crashed, or never drew, fails here).
window_proc() { ours | grep -qiE 'mcptray\.exe +window'; }
window_id() { "$here/wine.sh" "$work" xwininfo -name mcptray 2>/dev/null | sed -n 's/^xwininfo: Window id: \(0x[0-9a-f]*\).*/\1/p'; }
shown() { window_proc && [ -n "$(window_id)" ]; }
if wait_for "the window's process up, with its window" 60 shown; then
	# It is drawn a moment after it is mapped: the window's own picture
	# has more than a blank's few colours (text, icons, their edges).
	shot=${MCPTRAY_WINE_SHOT:-/tmp/mcptray-wine-window.png}
	colours() { identify -format %k "$work/window.png" 2>/dev/null || echo 0; }
	drawn() {
		"$here/wine.sh" "$work" import -window "$(window_id)" /mcptray/window.png 2>/dev/null &&
			[ "$(colours)" -gt 64 ]
	}
	if wait_for "the window drawn (more than a blank's colours)" 30 drawn; then
		"$here/wine.sh" "$work" import -window root /mcptray/screen.png 2>/dev/null && cp "$work/screen.png" "$shot"
		say "ok: the window, drawn in $(colours) colours, in $shot (look at it)"
		if window_proc; then say "ok: the window's process still up once drawn"; else fail "the window's process ended once drawn"; fi
	else
		say "  its picture had $(colours) colours"
	fi
fi
if grep -qaE '^(panic|fatal error|Exception 0x)' "$work/tray.log"; then
	fail "the window crashed: $(grep -aE -m 1 -A 3 '^(panic|fatal error|Exception 0x)' "$work/tray.log")"
fi

say "quit"
expect "mcptray quit" '' "$(mt quit)"
gone() { [ -z "$(ours)" ]; }
if wait_for "no mcptray.exe left after quit" 60 gone; then
	say "ok: no mcptray.exe process is left"
else
	echo "$(ours)" >&2
fi

say "nothing outlives mcptray"
# The tray killed outright (as by the Task Manager): its servers' job
# objects close with it, and every server and what it started ends.
"$here/wine.sh" "$work" wine /mcptray/mcptray.exe >"$work/tray2.log" 2>&1 &
both() { mt status | grep -q 'hostile  *connected'; }
if wait_for "the tray again, with its servers" 120 both; then
	tray=""
	for p in /proc/[0-9]*; do
		this_run "$p" || continue
		# Wine pads a process's command line with spaces.
		[ "$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null | sed 's/ *$//')" = /mcptray/mcptray.exe ] && tray=${p#/proc/}
	done
	if [ -z "$tray" ]; then
		fail "the tray's process is not to be found"
	else
		kill -KILL "$tray"
		if wait_for "no mcptray.exe left after the tray was killed" 60 gone; then
			say "ok: its servers, and what they started, ended with it"
		else
			echo "$(ours)" >&2
		fi
	fi
fi

say "a window that cannot open"
# A graphics driver that offers only OpenGL 1.1, as Windows' own display
# driver does where the maker's is missing (a virtual machine without 3D
# acceleration): Mesa under Wine told to say so. The window, which needs
# OpenGL 2.1, cannot open; the person is told why in a message box, and
# mcptray stays in the tray.
MESA_GL_VERSION_OVERRIDE=1.1 "$here/wine.sh" "$work" wine /mcptray/mcptray.exe >"$work/tray3.log" 2>&1 &
# Any server connected: which ones are left is the hostile server's doing
# (it asks to remove demo each time it starts).
up() { mt status | grep -q ' connected '; }
if wait_for "the tray, with an OpenGL 1.1 driver" 120 up; then
	expect "a second start opens the window" 'its window opens' "$(mt)"
	glboxed() { "$here/wine.sh" "$work" xwininfo -root -tree 2>/dev/null | grep -q "\"mcptray's window could not open\""; }
	if wait_for "a message box saying the window could not open" 60 glboxed; then
		say "ok: a message box titled \"mcptray's window could not open\""
		glshot=${MCPTRAY_WINE_GL_SHOT:-/tmp/mcptray-wine-window-error.png}
		rm -f "$work/glbox.png"
		glboxdrawn() {
			"$here/wine.sh" "$work" import -window root /mcptray/glbox.png 2>/dev/null &&
				[ "$(identify -format %k "$work/glbox.png" 2>/dev/null || echo 0)" -gt 64 ]
		}
		wait_for "the message box drawn" 30 glboxdrawn && cp "$work/glbox.png" "$glshot" && say "ok: the message box, in $glshot (look at it)"
		# The box's words, as the tray logs them.
		said=$(grep -a "could not open" "$work/tray3.log")
		expect "its words: why" 'needs OpenGL 2\.1' "$said"
		expect "its words: the fix" 'To fix it: install' "$said"
	fi
	expect "mcptray still runs, without its window" ' connected ' "$(mt status)"
	mt quit >/dev/null || true
	if wait_for "no mcptray.exe left after quit" 60 gone; then
		say "ok: no mcptray.exe process is left"
	else
		echo "$(ours)" >&2
	fi
fi

say "a start that fails, as from the Start menu"
# mcptray serve, as an app's mcptray stdio starts it, runs; the person then
# starts mcptray as Explorer does: no console, so no stderr to read. Why it
# cannot start, and where its log is, show in a message box.
"$here/wine.sh" "$work" wine /mcptray/mcptray.exe serve >"$work/serve.log" 2>&1 &
serving() { mt status >/dev/null; }
if wait_for "mcptray serve answering" 120 serving; then
	# Wine's taskkill /im finds no mcptray.exe: the box's process is the
	# one tasklist shows that was not there before.
	winpids() { timeout 60 "$here/wine.sh" "$work" wine tasklist 2>/dev/null | awk '$1 == "mcptray.exe" { print $2 }' | sort; }
	before=$(winpids)
	# start /unix gives the program no console and no standard handles,
	# as Explorer does.
	"$here/wine.sh" "$work" wine start /wait /unix /mcptray/mcptray.exe >"$work/box.log" 2>&1 &
	started=$!
	boxed() { "$here/wine.sh" "$work" xwininfo -root -tree 2>/dev/null | grep -q '"mcptray could not start"'; }
	if wait_for "the message box shown" 60 boxed; then
		say "ok: a message box titled \"mcptray could not start\""
		boxshot=${MCPTRAY_WINE_BOX_SHOT:-/tmp/mcptray-wine-start-error.png}
		rm -f "$work/box.png"
		boxdrawn() {
			"$here/wine.sh" "$work" import -window root /mcptray/box.png 2>/dev/null &&
				[ "$(stat -c %s "$work/box.png")" -gt 10000 ]
		}
		wait_for "the message box drawn" 30 boxdrawn && cp "$work/box.png" "$boxshot" && say "ok: the message box, in $boxshot (look at it)"
		if [ -f "$root$prefix/drive_c/users/root/AppData/Local/mcptray/logs/mcptray.log" ]; then
			say "ok: the log the box names is there"
		else
			fail "no log at the place the box names"
		fi
		if grep -q 'already running' "$work/box.log"; then
			fail "it had a stderr after all: $(cat "$work/box.log")"
		fi
		# Closed as a person closes it (WM_CLOSE, what taskkill without /f
		# sends): the program then ends, with 1.
		for pid in $(comm -13 <(echo "$before") <(winpids)); do
			timeout 60 "$here/wine.sh" "$work" wine taskkill /pid "$pid" >/dev/null 2>&1 || true
		done
		closed() { ! kill -0 "$started" 2>/dev/null; }
		if wait_for "mcptray.exe ended once its box was closed" 60 closed; then
			code=0
			wait "$started" || code=$?
			expect "it ended with 1" '^1$' "$code"
		fi
	fi
	mt quit >/dev/null || true
	if wait_for "no mcptray.exe left after the box and quit" 60 gone; then
		say "ok: no mcptray.exe process is left"
	else
		echo "$(ours)" >&2
	fi
fi

say "the installer"
if command -v wixl >/dev/null; then
	cp packaging/windows/mcptray.wxs "$work/"
	(cd "$work" && wixl -D Version=0.0.1 -D Exe=mcptray.exe -o mcptray.msi mcptray.wxs)
	ms() { timeout 300 "$here/wine.sh" "$work" wine msiexec "$@" 'Z:\mcptray\mcptray.msi' /qn 2>&1; }
	reg() { timeout 60 "$here/wine.sh" "$work" wine reg query "$1" 2>&1; }
	programs=$root$prefix/drive_c/users/root/AppData/Local/Programs/mcptray
	lnk=$root$prefix/drive_c/users/root/AppData/Roaming/Microsoft/Windows/Start\ Menu/Programs/mcptray.lnk
	installed='C:\users\root\AppData\Local\Programs\mcptray\mcptray.exe'
	ms /i >/dev/null
	if [ -f "$programs/mcptray.exe" ] && [ -f "$lnk" ]; then
		say "ok: installed, with its Start menu entry"
	else
		fail "msiexec /i left no $programs/mcptray.exe or no $lnk"
	fi
	expect "installed: start at login, as the check box reads it" 'starts in the tray when you log in' \
		"$(timeout 60 "$here/wine.sh" "$work" wine "$installed" autostart status 2>&1)"
	progid=$(reg 'HKCU\Software\Classes\.mcpb' | sed -n 's/.*REG_SZ *//p' | tr -d '\r')
	expect "installed: .mcpb opens the install dialog" 'mcptray\.exe" "%1"' \
		"$(reg 'HKCU\Software\Classes\'"${progid:-none}"'\shell\open\command')"
	expect "installed: the program runs" 'built with go' "$(timeout 60 "$here/wine.sh" "$work" wine "$installed" version 2>&1)"
	ms /x >/dev/null
	left=""
	[ ! -e "$programs" ] || left="$left $programs"
	[ ! -e "$lnk" ] || left="$left the Start menu entry"
	for k in 'HKCU\Software\Classes\.mcpb' 'HKCU\Software\Classes\mcptray.bundle' 'HKCU\Software\mcptray'; do
		reg "$k" | grep -q REG_ && left="$left $k"
	done
	reg 'HKCU\Software\Microsoft\Windows\CurrentVersion\Run' | grep -q 'mcptray ' && left="$left the Run value"
	if [ -z "$left" ]; then say "ok: msiexec /x leaves nothing"; else fail "msiexec /x left:$left"; fi
else
	say "skipped: wixl is missing (scripts/deps.sh windows installs msitools)"
fi

say "took $(($(date +%s) - began)) s"
if [ "$failures" != 0 ]; then
	# The logs outlive the run, to read why.
	logs=${MCPTRAY_WINE_LOGS:-/tmp/mcptray-wine-logs}
	mkdir -p "$logs" && cp "$work"/*.log "$logs/" 2>/dev/null || true
	# mcptray's own logs in the profile (the tray's, the window's), which
	# the prefix's removal would take.
	mkdir -p "$logs/profile" && cp "$root$prefix"/drive_c/users/root/AppData/Local/mcptray/logs/*.log "$logs/profile/" 2>/dev/null || true
	# A window process that crashed wrote its stack to the tray's output
	# (the tray opens the window): its first lines say why, its last only
	# that it was the window.
	for f in "$work/tray.log" "$work/tray3.log"; do
		grep -qaE '^(panic|fatal error|Exception 0x)' "$f" 2>/dev/null || continue
		echo "test-windows: a Go crash in $(basename "$f"):" >&2
		grep -aE -A 12 '^(panic|fatal error|Exception 0x)' "$f" | head -30 >&2
	done
	die "$failures failed (the tray's output: $(tail -5 "$work/tray.log" | tr '\n' ' '); the logs are in $logs)"
fi
say "all passed"
