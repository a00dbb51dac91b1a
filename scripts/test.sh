#!/usr/bin/env bash
# Runs mcptray's checks the way CI does: gofmt, go test with every go vet
# check (and go vet's checks for macOS and Windows beside it, test/crossvet),
# and the packages (scripts/package-test.sh), beside go test's last
# packages once everything is compiled.
#
# On Linux the tests run inside a private D-Bus session with a freshly unlocked
# gnome-keyring, so the keychain tests talk to a real Secret Service and never
# touch the person's own keyring or session bus. HOME is left alone (moving it
# would move the Go build cache).
#
# Extra flags for go test go in GOTESTFLAGS, e.g. GOTESTFLAGS='-run Keychain -v'.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
	echo "test: $*" >&2
	exit 1
}

# Check up front for what the run needs, so that a machine where
# scripts/deps.sh could not install it fails here, in plain words, rather than
# in the middle of a cgo build or a keyring test.
missing=""
for cmd in go gofmt; do
	command -v "$cmd" >/dev/null 2>&1 || missing="$missing $cmd"
done
linux=0
if [ "$(uname -s)" = Linux ]; then
	linux=1
	for cmd in dbus-run-session gnome-keyring-daemon; do
		command -v "$cmd" >/dev/null 2>&1 || missing="$missing $cmd"
	done
	if [ "${CGO_ENABLED:-1}" != 0 ]; then
		# cgo's compiler (the Makefile prefers clang); CC may carry more
		# words ("ccache clang"), of which the first is the program.
		cc=${CC:-gcc}
		for cmd in "${cc%% *}" pkg-config; do
			command -v "$cmd" >/dev/null 2>&1 || missing="$missing $cmd"
		done
		if command -v pkg-config >/dev/null 2>&1; then
			for mod in gl x11 xcursor xrandr xinerama xi xxf86vm; do
				pkg-config --exists "$mod" || missing="$missing pkg-config:$mod"
			done
		fi
	fi
fi
if [ -n "$missing" ]; then
	fail "missing:$missing
test: run 'make deps' (Debian/Ubuntu, as root or with sudo) or install them by hand"
fi

# gofiles lists mcptray's Go files, NUL-separated.
gofiles() {
	find . \( -path ./.git -o -path ./test/peers/node_modules \) -prune -o -name '*.go' -type f -print0
}

echo "test: gofmt"
unformatted=$(gofiles | xargs -0 gofmt -l) || fail "gofmt could not read some files (see above)"
if [ -n "$unformatted" ]; then
	fail "these files are not gofmt-formatted (run gofmt -w on them):
$unformatted"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-test.XXXXXX")
crossvet="" packaging=""
# The two jobs beside go test each run in a process group of their own
# (set -m as each starts), so that a test run stopped (a CI's timeout, a
# SIGTERM) stops what they started too, not only their first process.
trap '[ -z "$crossvet" ] || kill -- -"$crossvet" 2>/dev/null || true; [ -z "$packaging" ] || kill -- -"$packaging" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# make package, installed into a throwaway root (scripts/package-test.sh).
# It compiles what go test compiles (mcptray's packages, the icons' maker
# and fyne), so it runs beside go test once Go's build cache holds all of
# that, in the time go test's last packages leave a core to (about 10 s
# of a core, mostly linking and xz): not from the start, when the two
# would compile the same packages at once (all of mcptray's in a new
# folder; on a fresh machine, Fyne's OpenGL binding alone is 35 s of a
# core). It looks every 10 s; if go test ends first, it runs after it.
packages_ok=0
if [ "$linux" -eq 1 ] && command -v dpkg-deb >/dev/null 2>&1; then
	packages_ok=1
fi
# compiled says whether Go's build cache holds every package the
# packaging compiles. go list says Stale of a library package the cache
# does not hold; of a command, always (it is not installed).
compiled() {
	local stale
	stale=$(go list -deps -f '{{if and .Stale (ne .Name "main")}}{{.ImportPath}}{{end}}' \
		. ./core/sandbox/cmd/mcptray-sandbox ./packaging/icons fyne.io/tools/cmd/fyne 2>/dev/null) || return 1
	[ -z "$stale" ]
}
packages_start() {
	[ "$packages_ok" -eq 1 ] || return 0
	set -m
	(
		n=0
		until [ -e "$tmp/go-test-ended" ]; do
			if [ $((n % 10)) -eq 0 ] && compiled; then
				: >"$tmp/packaging-began"
				exec bash scripts/package-test.sh
			fi
			n=$((n + 1))
			sleep 1
		done
	) >"$tmp/packaging.log" 2>&1 &
	packaging=$!
	set +m
}
packages() {
	if [ -n "$packaging" ]; then
		: >"$tmp/go-test-ended"
		rc=0
		wait "$packaging" || rc=$?
		packaging=""
		if [ -e "$tmp/packaging-began" ]; then
			if [ "$rc" -eq 0 ]; then
				echo "test: packaging (scripts/package-test.sh, beside go test): $(tail -n 1 "$tmp/packaging.log")"
				return 0
			fi
			cat "$tmp/packaging.log" >&2
			echo "test: packaging failed (above)" >&2
			return 1
		fi
		# Not begun: now, after go test.
	fi
	if [ "$packages_ok" -eq 1 ]; then
		echo "test: packaging (scripts/package-test.sh)"
		bash scripts/package-test.sh
	elif [ "$linux" -eq 1 ]; then
		echo "test: packaging not checked: the .deb needs dpkg-deb (Debian/Ubuntu)"
	fi
}

# The packages that build without cgo are vetted for macOS and Windows too,
# so a mistake behind a build tag shows here. (The tray needs cgo on macOS,
# where fyne.io/systray speaks Cocoa.) test/crossvet runs go vet's checks
# but type-checks from source, so nothing is compiled for the two other
# systems; it runs beside go test, whose time is mostly waiting on servers
# and timeouts. As go vet does, it remembers a pass (beside Go's build
# cache, so an empty cache means a full run): it runs again only when Go,
# a dependency, one of mcptray's Go files or this script has changed.
cached="$(go env GOCACHE)/mcptray-crossvet"
stamp=$cached/$({
	go version
	go env GOFLAGS
	cat go.mod go.sum scripts/test.sh
	gofiles | sort -z | xargs -0 sha256sum
} | sha256sum | cut -c1-32)
if [ -f "$stamp" ]; then
	echo "test: go vet for darwin and windows: unchanged since it last passed"
else
	echo "test: go vet for darwin and windows (beside go test; its result comes after)"
	set -m
	(
		go build -o "$tmp/crossvet" ./test/crossvet &&
			CGO_ENABLED=0 GOOS=darwin "$tmp/crossvet" ./core/... ./keychain/... ./app/autostart/... ./app/cli/... &&
			CGO_ENABLED=0 GOOS=windows "$tmp/crossvet" ./core/... ./keychain/... ./tray/... ./app/autostart/... ./app/cli/... ./app/host/... || exit
		# Only the newest pass is kept.
		rm -rf "$cached" && mkdir -p "$cached" && : >"$stamp" || true
	) >"$tmp/crossvet.log" 2>&1 &
	crossvet=$!
	set +m
fi
# crossvet_result waits for the vet for darwin and windows, if it runs.
crossvet_result() {
	[ -n "$crossvet" ] || return 0
	if wait "$crossvet"; then
		echo "test: go vet for darwin and windows: ok"
		return 0
	fi
	# After a type error every check says it skipped the package: the
	# error itself is enough.
	grep -v -e 'analysis skipped due to errors in package' -e 'failed prerequisites' "$tmp/crossvet.log" >&2
	echo "test: go vet for darwin or windows failed (above)" >&2
	return 1
}

# go test runs all of go vet's checks (-vet=all, the same as go vet ./...),
# on every package, those without tests too. One go command then compiles
# everything once, and a package's tests start as soon as its test program
# is linked, while the rest still compiles: on a fresh machine, the tests'
# waiting on servers and timeouts overlaps Fyne's and SQLite's long
# compiles instead of coming after them.
#
# go test starts the packages' test programs in the order they are named,
# each holding one of its -p places (one a core by default) while it runs,
# so the packages whose tests take longest are named first: the last
# place's work is then many short packages, not core/service's 100 s
# begun late. Most packages' tests wait (on servers, timeouts, a window)
# more than they compute, so go test runs four at once: with two, a core
# sat idle while two waiting packages held both places. (GOTESTFLAGS='-p N'
# chooses another number.)
export GOTESTFLAGS="-vet=all -p 4 ${GOTESTFLAGS:-}"
export TESTPKGS="./core/service/ ./test/conformance/ ./app/window/ ./app/cli/ ./test/e2e/ ./core/npmpin/ ./core/sandbox/ ./core/activity/ ./keychain/ ./core/gateway/ ./..."
echo "test: go test ${GOTESTFLAGS:+$GOTESTFLAGS }./... (the slowest first)"
packages_start
if [ "$linux" -eq 0 ]; then
	# macOS and Windows have their keychain in every login session.
	status=0
	# shellcheck disable=SC2086 # GOTESTFLAGS and TESTPKGS are meant to split into words
	go test $GOTESTFLAGS $TESTPKGS || status=$?
	crossvet_result || status=1
	packages || status=1
	exit "$status"
fi
# A fresh keyring every run: a stale login.keyring made with another password
# would refuse to unlock.
mkdir -p "$tmp/data"
mkdir -m 700 "$tmp/run"
pass=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')

# The password goes through the environment and a pipe, not the command line,
# and is gone from the environment before go test starts.
# Here make deps installed every test peer and the session bus is started
# below, so a test that misses one fails rather than skips (CI set), as
# a peer gone in the middle of a run would otherwise pass unseen.
export CI="${CI:-true}"
status=0
# shellcheck disable=SC2016 # the inner shell expands them
XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/run" MCPTRAY_TEST_KEYRING_PASS="$pass" \
	dbus-run-session -- sh -c '
		printf %s "$MCPTRAY_TEST_KEYRING_PASS" |
			gnome-keyring-daemon --unlock --components=secrets >/dev/null ||
			{ echo "test: gnome-keyring-daemon could not start an unlocked keyring" >&2; exit 1; }
		unset MCPTRAY_TEST_KEYRING_PASS
		exec go test $GOTESTFLAGS $TESTPKGS
	' || status=$?
crossvet_result || status=1
packages || status=1
exit "$status"
