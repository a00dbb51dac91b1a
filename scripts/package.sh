#!/usr/bin/env bash
# Builds mcptray's packages into dist/ (git-ignored), leaving the source tree
# as it was:
#
#   scripts/package.sh          (make package) the Linux tarball from
#                               `fyne package` and a .deb
#   scripts/package.sh windows  (make package-windows) mcptray.exe, built
#                               with MinGW-w64 and zipped, and an .msi
#                               installer made with msitools' wixl
#
# The version is FyneApp.toml's Version, stamped into the binary
# (mcptray version prints it). `fyne package` bumps FyneApp.toml's Build
# and writes files beside the program it packages, so it runs on a copy in a
# temporary folder. fyne itself is a tool dependency in go.mod (go tool fyne).
#
# MCPTRAY_PACKAGE_QUICK=1 (scripts/package-test.sh sets it) makes the same
# packages for a test: xz at its fastest level, and the program built
# without -trimpath, so that it reuses what go vet and go test compile.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

fail() {
	echo "package: $*" >&2
	exit 1
}

target=${1:-linux}
version=$(sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml | head -n 1)
[ -n "$version" ] || fail "FyneApp.toml has no Version"
stamp="-X github.com/mcptray/mcptray/core/service.Version=$version"
trimpath=-trimpath deb_level=()
if [ "${MCPTRAY_PACKAGE_QUICK:-0}" = 1 ]; then
	# fyne's tar -J runs xz, which reads XZ_OPT.
	trimpath="" deb_level=(-z0)
	export XZ_OPT=-0
fi

mkdir -p dist
work=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

# fyne: the packaging tool at the version go.mod pins, built once into the
# Go build cache (go tool -n prints its path).
fyne=$(go tool -n fyne)

linux() {
	local arch deb_arch bin
	arch=$(go env GOARCH)
	case "$arch" in
	amd64 | arm64 | i386 | riscv64) deb_arch=$arch ;;
	386) deb_arch=i386 ;;
	arm) deb_arch=armhf ;;
	*) fail "no Debian architecture for GOARCH=$arch" ;;
	esac
	bin=$work/mcptray
	echo "package: building mcptray $version for linux/$arch"
	go build $trimpath -ldflags "-s -w $stamp" -o "$bin" .
	# The sandbox launcher on its own (core/sandbox/cmd/mcptray-sandbox): mcptray uses it
	# when it sits beside it, and its own slower hidden mode otherwise (the
	# tarball has only mcptray).
	go build $trimpath -ldflags "-s -w" -o "$work/mcptray-sandbox" ./core/sandbox/cmd/mcptray-sandbox

	# The tarball: fyne package with the binary just built, reading
	# FyneApp.toml and the icon from a copy (it rewrites FyneApp.toml).
	local src=$work/src out=$work/fyne-out
	mkdir -p "$src/assets" "$out"
	cp FyneApp.toml main.go "$src/"
	cp assets/icon.png "$src/assets/"
	(cd "$out" && "$fyne" package --os linux --release --exe "$bin" --src "$src" >/dev/null)
	local tarball=dist/mcptray-$version-linux-$arch.tar.xz
	mv "$out/mcptray.tar.xz" "$tarball"
	echo "package: $tarball"

	# The .deb: the binary, the launcher entry, the AppArmor profile, the icon in every hicolor
	# size, the AppStream file and the XDG autostart entry, kept where it
	# starts nothing: each person turns start at login on (mcptray autostart
	# on, or Settings), and an administrator who wants it for everyone
	# copies it to /etc/xdg/autostart.
	local root=$work/deb
	install -D -m 0755 "$bin" "$root/usr/bin/mcptray"
	install -D -m 0755 "$work/mcptray-sandbox" "$root/usr/bin/mcptray-sandbox"
	install -D -m 0644 packaging/linux/dev.mcptray.mcptray.desktop "$root/usr/share/applications/dev.mcptray.mcptray.desktop"
	install -D -m 0644 packaging/linux/dev.mcptray.mcptray.metainfo.xml "$root/usr/share/metainfo/dev.mcptray.mcptray.metainfo.xml"
	install -D -m 0644 packaging/linux/mcptray-autostart.desktop "$root/usr/share/mcptray/autostart/dev.mcptray.mcptray.desktop"
	# The MCP Bundle file type, which the launcher entry opens: shared-mime-info's
	# and desktop-file-utils' triggers take it in on install.
	install -D -m 0644 packaging/linux/dev.mcptray.mcptray.mime.xml "$root/usr/share/mime/packages/dev.mcptray.mcptray.xml"
	# The AppArmor profile that lets mcptray give each server namespaces of
	# its own where the system restricts them (Ubuntu 24.04), loaded on
	# install by postinst.
	install -D -m 0644 packaging/linux/apparmor-mcptray "$root/etc/apparmor.d/mcptray"
	go run ./packaging/icons -out "$root/usr/share/icons/hicolor"
	mkdir -p "$root/DEBIAN"
	install -m 0755 packaging/linux/postinst "$root/DEBIAN/postinst"
	install -m 0755 packaging/linux/postrm "$root/DEBIAN/postrm"
	echo /etc/apparmor.d/mcptray >"$root/DEBIAN/conffiles"
	cat >"$root/DEBIAN/control" <<CONTROL
Package: mcptray
Version: $version
Architecture: $deb_arch
Maintainer: The mcptray authors
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: libc6, libgl1, libx11-6, libxcursor1, libxrandr2, libxinerama1, libxi6, libxxf86vm1
Suggests: gnome-keyring
Section: utils
Priority: optional
Description: one place for the MCP servers your AI apps use
 mcptray approves, signs in to and watches the MCP servers that AI apps
 such as Claude, Cursor and VS Code use, from the system tray. Sign-in
 tokens stay in the system keychain, and one gateway serves every app.
CONTROL
	local deb=dist/mcptray_${version}_${deb_arch}.deb
	dpkg-deb --root-owner-group -Zxz "${deb_level[@]}" --build "$root" "$deb" >/dev/null
	echo "package: $deb"
}

windows() {
	local cc=x86_64-w64-mingw32-gcc
	command -v "$cc" >/dev/null 2>&1 ||
		fail "$cc is missing: run 'bash scripts/deps.sh windows' (Debian/Ubuntu, as root or with sudo)"
	command -v zip >/dev/null 2>&1 || fail "zip is missing: run 'bash scripts/deps.sh windows'"
	# fyne package builds for Windows itself, to link in the icon and the
	# manifest: from a copy of the tracked and new files.
	local src=$work/src
	mkdir -p "$src"
	git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$src"
	echo "package: building mcptray $version for windows/amd64 with $cc"
	# fyne compiles the C parts with -fstack-protector-strong and
	# _FORTIFY_SOURCE, whose checks MinGW-w64 keeps in libssp: link it in
	# (statically, so the zip needs no libssp-0.dll). fyne passes each
	# -ldflags= in GOFLAGS on to go build, but takes them out of GOFLAGS as
	# it does: with no program there yet it builds twice (before and after
	# making the icon's resource file), and the second build, the one
	# shipped, would lose them. A placeholder for --exe leaves one build.
	: >"$src/mcptray.exe"
	(cd "$src" && CC=$cc CGO_ENABLED=1 GOOS=windows GOARCH=amd64 \
		GOFLAGS="${GOFLAGS:-} -ldflags=${stamp// /=} -ldflags=-extldflags=-l:libssp.a" \
		"$fyne" package --os windows --release --src "$src" --exe "$src/mcptray.exe")
	local zipfile=$PWD/dist/mcptray-$version-windows-amd64.zip
	rm -f "$zipfile"
	(cd "$src" && zip -q "$zipfile" mcptray.exe)
	echo "package: dist/${zipfile##*/}"
	# The installer (packaging/windows/mcptray.wxs says what it holds).
	# wixl finds the files a .wxs names beside it.
	command -v wixl >/dev/null 2>&1 || fail "wixl is missing: run 'bash scripts/deps.sh windows'"
	local msifile=$PWD/dist/mcptray-$version-windows-amd64.msi
	rm -f "$msifile"
	cp packaging/windows/mcptray.wxs "$src/mcptray.wxs"
	(cd "$src" && wixl -D Version="$version" -D Exe=mcptray.exe -o "$msifile" mcptray.wxs) ||
		fail "wixl could not make the .msi"
	echo "package: dist/${msifile##*/}"
}

case "$target" in
linux) linux ;;
windows) windows ;;
*) fail "unknown target $target (linux or windows)" ;;
esac
