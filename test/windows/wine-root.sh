#!/usr/bin/env bash
# Makes, once, a Debian 13 root with Wine 10 in it, to run mcptray.exe under
# Wine (make test-windows). Debian 12's Wine 8 cannot start Go programs built
# with Go 1.22 or later, so Wine comes from a root of its own made with
# debootstrap, from Debian's own packages. Run as root (debootstrap and chroot
# need it); about 2 minutes and 1.5 GB the first time, nothing after.
#
#   test/windows/wine-root.sh            make the root if missing, print its path
#   test/windows/wine-root.sh mount      also mount /proc, /dev and the X socket folder into it
#   test/windows/wine-root.sh umount     undo mount
#
# The root is kept in MCPTRAY_WINE_CACHE (default ~/.cache/mcptray-wine);
# delete that folder to make it again.
set -euo pipefail

cache=${MCPTRAY_WINE_CACHE:-$HOME/.cache/mcptray-wine}
root=$cache/root
# The mirror this machine's apt sources name, else Debian's own.
mirror=${MCPTRAY_WINE_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
		head -n 1 | tr -d ' ' || true)
	mirror=${mirror:-http://deb.debian.org/debian}
fi

say() { echo "wine-root: $*" >&2; }
fail() {
	say "$*"
	exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap and chroot); run it with sudo"

mounted() { grep -qs " $1 " /proc/mounts; }

do_mount() {
	mounted "$root/proc" || mount -t proc proc "$root/proc"
	mounted "$root/dev" || mount --bind /dev "$root/dev"
	mkdir -p "$root/tmp/.X11-unix"
	if [ -d /tmp/.X11-unix ] && ! mounted "$root/tmp/.X11-unix"; then
		mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix"
	fi
}

do_umount() {
	local m
	for m in "$root/tmp/.X11-unix" "$root/dev" "$root/proc"; do
		if mounted "$m"; then umount -l "$m"; fi
	done
}

make_root() {
	# Made to the end: the last step leaves this file (/usr/bin/wine is a
	# link into the root's own /etc/alternatives, which a test from
	# outside would follow into this machine's).
	[ -e "$root/.mcptray-wine-made" ] && return 0
	command -v debootstrap >/dev/null 2>&1 || {
		say "installing debootstrap"
		apt-get install -y debootstrap >/dev/null
	}
	mkdir -p "$cache"
	# A half-made root from an interrupted run is made again from nothing;
	# what is mounted in it (debootstrap's /proc, our /dev) first let go,
	# and never followed by rm.
	do_umount
	local m
	for m in $(awk -v p="$root.part/" 'index($2, p) == 1 {print $2}' /proc/mounts | sort -r); do
		umount -l "$m"
	done
	rm -rf --one-file-system "$root.part"
	say "making a Debian 13 root in $root from $mirror (about 2 minutes)"
	debootstrap --variant=minbase trixie "$root.part" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		fail "debootstrap failed; see $cache/debootstrap.log"
	local saved=$root
	root=$root.part
	do_mount
	chroot "$root" /bin/sh -ec '
		export DEBIAN_FRONTEND=noninteractive
		dpkg --add-architecture i386
		apt-get update
		apt-get install -y --no-install-recommends wine wine64 xvfb xauth x11-utils imagemagick procps
		apt-get clean
	' >"$cache/wine-install.log" 2>&1 || {
		do_umount
		fail "installing Wine failed; see $cache/wine-install.log"
	}
	do_umount
	root=$saved
	: >"$root.part/.mcptray-wine-made"
	mv "$root.part" "$root"
	say "made $root"
}

case "${1:-}" in
"") make_root ;;
mount)
	make_root
	do_mount
	;;
umount) do_umount ;;
*) fail "unknown command ${1}; use nothing, mount or umount" ;;
esac
echo "$root"
