#!/usr/bin/env bash
# Runs a command under Wine 10 in the Debian 13 root wine-root.sh makes,
# with the folder DIR seen inside as /mcptray (Z:\mcptray to Windows
# programs), and a Wine prefix of its own:
#
#   test/windows/wine.sh DIR COMMAND...     e.g. wine.sh bin wine /mcptray/mcptray.exe version
#
# WINEPREFIX is MCPTRAY_WINE_PREFIX, inside the root (default
# /wineprefix: a Windows profile kept between runs; delete it to start
# afresh). DISPLAY passes through: the host's /tmp/.X11-unix is bound into
# the root; so does MESA_GL_VERSION_OVERRIDE, with which test.sh makes a
# graphics driver of an older OpenGL. Run as root.
#
# /mcptray is bound in a mount namespace of the command's own, so that runs
# at once, each with its own DIR, do not see each other's; test.sh makes
# one namespace for all its commands (MCPTRAY_WINE_NS set), and wine.sh
# then binds in that one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || {
	echo "usage: $0 DIR COMMAND..." >&2
	exit 2
}
if [ -z "${MCPTRAY_WINE_NS:-}" ]; then
	exec env MCPTRAY_WINE_NS=$$ unshare --mount --propagation private "$0" "$@"
fi
dir=$(cd "$1" && pwd)
shift
root=$("$here/wine-root.sh" mount)
mkdir -p "$root/mcptray"
if ! grep -qs " $root/mcptray " /proc/mounts || [ "$(stat -c %i "$root/mcptray")" != "$(stat -c %i "$dir")" ]; then
	grep -qs " $root/mcptray " /proc/mounts && umount -l "$root/mcptray"
	mount --bind "$dir" "$root/mcptray"
fi
exec chroot "$root" /usr/bin/env -i \
	HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
	WINEPREFIX="${MCPTRAY_WINE_PREFIX:-/wineprefix}" WINEDEBUG="${WINEDEBUG:--all}" \
	${DISPLAY:+DISPLAY=$DISPLAY} \
	${MESA_GL_VERSION_OVERRIDE:+MESA_GL_VERSION_OVERRIDE=$MESA_GL_VERSION_OVERRIDE} \
	"$@"
