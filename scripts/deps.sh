#!/usr/bin/env bash
# Installs what building and testing mcptray needs and is missing, and says
# exactly what it installs. On a machine that has everything it prints one line
# and changes nothing.
#
#   - Debian/Ubuntu packages: the C toolchain and OpenGL/X11 headers for Fyne's
#     cgo build, and Xvfb, D-Bus and gnome-keyring for the tests.
#   - test/peers/node_modules: the MCP conformance suite and reference servers,
#     from test/peers/package-lock.json.
#
# Where it cannot install (not Debian/Ubuntu, or neither root nor sudo) it says
# what to install and exits 0, so `make run` still goes ahead; scripts/test.sh
# checks again and fails plainly if something the tests need is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# "run" (from make run) carries on when only the test peers cannot be had.
# "package" (make package) and "windows" (make package-windows) need no test
# peers; "windows" adds MinGW-w64's gcc for the cgo cross-build, and
# msitools and wixl for the .msi.
mode=${1:-test}

# Fyne's cgo build. The Makefile has cgo use clang where there is one: it
# compiles Fyne's OpenGL binding in a fifth of gcc's time (see CC there).
build_pkgs="gcc clang pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev
libxinerama-dev libxi-dev libxxf86vm-dev"
# The tests: a virtual display, a private session bus and a real Secret Service.
# curl and jq serve the conformance adapter (its browser, and reading JSON);
# python3 serves make screenshots (its stand-in web servers) and runs the
# python bundle of core/bundle's tests; openssl makes the certificate of
# mcpb sign --self-signed there.
test_pkgs="xvfb xauth x11-utils libgl1-mesa-dri dbus gnome-keyring libsecret-tools curl jq python3 openssl"
# The packages (make package, and scripts/package-test.sh in the tests): the
# tarball's xz, the checks of the desktop entry and the AppStream file.
test_pkgs="$test_pkgs xz-utils appstream desktop-file-utils"
# The Windows installer: wixl makes the .msi (make package-windows),
# msitools' msiinfo reads it back (packaging/windows's test). Debian 12
# and later ship wixl as a package of its own.
test_pkgs="$test_pkgs msitools wixl"
case "$mode" in
package) test_pkgs="xz-utils" ;;
windows) test_pkgs="zip msitools wixl" build_pkgs="$build_pkgs gcc-mingw-w64-x86-64" ;;
esac

did_something=0

is_debian_like() {
	[ -r /etc/os-release ] || return 1
	command -v dpkg-query >/dev/null 2>&1 || return 1
	command -v apt-get >/dev/null 2>&1 || return 1
	local id id_like
	# shellcheck disable=SC1091 # a system file, read at run time
	id=$(. /etc/os-release && echo "${ID:-}")
	# shellcheck disable=SC1091
	id_like=$(. /etc/os-release && echo "${ID_LIKE:-}")
	case " $id $id_like " in
	*" debian "* | *" ubuntu "*) return 0 ;;
	esac
	return 1
}

# missing_debs prints the packages from its arguments that are not installed.
missing_debs() {
	local p missing=""
	for p in "$@"; do
		# "ii " is installed; anything else (unknown, removed, half-configured)
		# needs installing.
		if [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" != "ii " ]; then
			missing="$missing $p"
		fi
	done
	echo "${missing# }"
}

system_packages() {
	if ! is_debian_like; then
		case "$(uname -s)" in
		Darwin)
			if ! xcode-select -p >/dev/null 2>&1; then
				echo "deps: Fyne needs Apple's command line tools; install them with: xcode-select --install" >&2
				did_something=1
			fi
			;;
		*)
			echo "deps: not a Debian/Ubuntu machine, so nothing is installed automatically." >&2
			echo "deps: building needs a C compiler, pkg-config and the OpenGL/X11 development headers" >&2
			# shellcheck disable=SC2086
			echo "deps: (Debian names:" $build_pkgs"); the tests need Xvfb, dbus and gnome-keyring." >&2
			did_something=1
			;;
		esac
		return 0
	fi

	local missing
	# shellcheck disable=SC2086 # the lists are meant to split into words
	missing=$(missing_debs $build_pkgs $test_pkgs)
	[ -n "$missing" ] || return 0
	did_something=1

	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1 && { [ -t 0 ] || sudo -n true 2>/dev/null; }; then
			sudo="sudo"
		else
			echo "deps: missing: $missing" >&2
			echo "deps: install them with: sudo apt-get install --no-install-recommends $missing" >&2
			return 0
		fi
	fi

	echo "installing: $missing"
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
}

# peers installs test/peers/node_modules when it is missing or older than the
# lock file. npm rewrites node_modules/.package-lock.json on every install, so
# its age is the age of the install.
peers() {
	local dir=test/peers
	local stamp=$dir/node_modules/.package-lock.json
	local lock=$dir/package-lock.json why=""
	if [ ! -d "$dir/node_modules" ]; then
		why="test/peers/node_modules is missing"
	elif [ ! -e "$stamp" ]; then
		why="test/peers/node_modules is incomplete"
	elif [ -e "$lock" ] && [ "$lock" -nt "$stamp" ]; then
		why="test/peers/package-lock.json is newer than test/peers/node_modules"
	fi
	[ -n "$why" ] || return 0
	did_something=1

	if ! command -v npm >/dev/null 2>&1; then
		echo "deps: $why, but npm is not installed; the MCP conformance suite and reference servers need Node.js >= 20 with npm" >&2
		return 0
	fi
	# A copy of what npm ci made of the same lock file, with the same
	# Node.js, is taken from mcptray's cache when there is one: copying
	# takes 4 s of the 22 npm ci takes here (and 3 s of its 29 s of
	# processor time), so a fresh clone's make test starts sooner.
	local kept=""
	if [ -e "$lock" ] && command -v sha256sum >/dev/null 2>&1; then
		local key
		key=$( { cat "$lock"; node --version 2>/dev/null; npm --version 2>/dev/null; uname -m; } | sha256sum | cut -c1-16)
		kept=${XDG_CACHE_HOME:-$HOME/.cache}/mcptray/test-peers/$key
		if [ -e "$kept/complete" ] && copy_peers "$kept/node_modules" "$dir"; then
			echo "deps: $why: copied it from ${kept/#$HOME/\~}, which npm ci made of the same package-lock.json"
			touch "$stamp"
			return 0
		fi
	fi
	# npm ci takes each package from npm's cache when it is there
	# (--prefer-offline) rather than ask the registry whether it changed:
	# the lock file names each one with its checksum. 7 s of its 29 here.
	local cmd="npm ci --prefer-offline"
	[ -e "$lock" ] || cmd="npm install"
	echo "deps: $why: running $cmd in test/peers"
	if ! (cd "$dir" && $cmd --no-audit --no-fund); then
		# Running mcptray does not need the test peers: say so and go on.
		[ "$mode" = run ] || return 1
		echo "deps: $cmd failed; mcptray runs without the test peers, but make test needs them" >&2
		return 0
	fi
	touch "$stamp"
	if [ -n "$kept" ]; then
		# Only the newest lock file's is kept: the others go.
		rm -rf "$(dirname "$kept")"
		if mkdir -p "$kept" && cp -a "$dir/node_modules" "$kept/" && touch "$kept/complete"; then
			echo "deps: kept a copy of test/peers/node_modules in ${kept/#$HOME/\~} ($(du -sh "$kept" | cut -f1)) for the next clone's make test"
		else
			rm -rf "$kept"
		fi
	fi
}

# copy_peers FROM DIR makes DIR/node_modules a copy of FROM, whole or not
# at all: it is copied beside it first, then moved.
copy_peers() {
	local tmp="$2/.node_modules.copying"
	rm -rf "$tmp"
	if cp -a "$1" "$tmp" && rm -rf "$2/node_modules" && mv "$tmp" "$2/node_modules"; then
		return 0
	fi
	rm -rf "$tmp"
	return 1
}

system_packages
case "$mode" in
package | windows) ;;
*) peers ;;
esac
if ! command -v go >/dev/null 2>&1; then
	echo "deps: the go command is not on PATH; mcptray needs Go 1.26 or newer (https://go.dev/dl/)" >&2
	did_something=1
fi

if [ "$did_something" -eq 0 ]; then
	if is_debian_like; then
		# shellcheck disable=SC2086
		set -- $build_pkgs $test_pkgs
		echo "deps: nothing to install (all $# Debian packages and test/peers/node_modules are present)"
	else
		echo "deps: nothing to install (test/peers/node_modules is present)"
	fi
fi
