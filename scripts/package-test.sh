#!/usr/bin/env bash
# Checks what `make package` makes, the way a person installs it. Run by
# scripts/test.sh (so by make test and CI). It packages quickly
# (MCPTRAY_PACKAGE_QUICK=1, see scripts/package.sh: xz at its fastest, the
# program built as go test builds it); MCPTRAY_PACKAGE_QUICK=0 checks the
# packages exactly as make package makes them.
#
#   - the AppStream file and the desktop entries pass their validators, the
#     MCP Bundle type is read by shared-mime-info and opened by the
#     launcher entry, and
#     FyneApp.toml, the AppStream release and the .deb agree on the version;
#   - scripts/package.sh leaves the source tree as it was (git status);
#   - the tarball holds the program, its launcher entry and icon;
#   - the .deb installs with dpkg into a throwaway root (as root or not),
#     holds the expected files, its mcptray prints the stamped version and
#     runs its demo server (MCP over stdio, with no Go on its PATH), and it
#     removes cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
	echo "package-test: $*" >&2
	exit 1
}

for cmd in appstreamcli desktop-file-validate update-mime-database dpkg dpkg-deb xz; do
	command -v "$cmd" >/dev/null 2>&1 ||
		fail "$cmd is missing: run 'make deps' (Debian/Ubuntu, as root or with sudo)"
done

version=$(sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml | head -n 1)
[ -n "$version" ] || fail "FyneApp.toml has no Version"

echo "package-test: validating packaging/linux"
appstreamcli validate --no-net packaging/linux/dev.mcptray.mcptray.metainfo.xml >/dev/null ||
	fail "appstreamcli validate --no-net packaging/linux/dev.mcptray.mcptray.metainfo.xml fails (run it to see why)"
desktop-file-validate packaging/linux/dev.mcptray.mcptray.desktop packaging/linux/mcptray-autostart.desktop ||
	fail "desktop-file-validate finds problems (above)"
# The MCP Bundle type: shared-mime-info reads it (the globs of .mcpb and
# .dxt, a zip), and the launcher entry opens it with the file's path.
mime=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-mime.XXXXXX")
mkdir -p "$mime/packages"
cp packaging/linux/dev.mcptray.mcptray.mime.xml "$mime/packages/"
update-mime-database "$mime" >/dev/null 2>&1 || fail "update-mime-database does not take packaging/linux/dev.mcptray.mcptray.mime.xml"
grep -qx '50:application/x-mcpb:\*\.mcpb' "$mime/globs2" || fail "the MIME file gives .mcpb no type; globs2 says:
$(cat "$mime/globs2")"
grep -q 'application/x-mcpb application/zip' "$mime/subclasses" || fail "the MIME file does not say an MCP Bundle is a zip"
rm -rf "$mime"
grep -qx 'MimeType=application/x-mcpb;' packaging/linux/dev.mcptray.mcptray.desktop &&
	grep -qx 'Exec=mcptray %f' packaging/linux/dev.mcptray.mcptray.desktop ||
	fail "the launcher entry does not open MCP Bundles (MimeType=application/x-mcpb; and Exec=mcptray %f)"
released=$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' packaging/linux/dev.mcptray.mcptray.metainfo.xml | head -n 1)
[ "$released" = "$version" ] ||
	fail "FyneApp.toml says version $version, the AppStream file's newest release is $released: add a <release> for $version"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-package-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

in_git=0
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	in_git=1
	git status --porcelain >"$tmp/before"
fi
MCPTRAY_PACKAGE_QUICK=${MCPTRAY_PACKAGE_QUICK:-1} bash scripts/package.sh
if [ "$in_git" -eq 1 ]; then
	git status --porcelain >"$tmp/after"
	diff -u "$tmp/before" "$tmp/after" >&2 ||
		fail "make package changed the source tree (git status above)"
fi

arch=$(dpkg --print-architecture)
tarball=dist/mcptray-$version-linux-$(go env GOARCH).tar.xz
deb=dist/mcptray_${version}_$arch.deb
[ -f "$tarball" ] || fail "$tarball was not made"
[ -f "$deb" ] || fail "$deb was not made"

echo "package-test: $tarball"
tar -tJf "$tarball" >"$tmp/tar"
for want in 'mcptray/Makefile' 'mcptray/usr/(local/)?bin/mcptray' \
	'mcptray/usr/(local/)?share/applications/dev\.mcptray\.mcptray\.desktop' \
	'mcptray/usr/(local/)?share/pixmaps/dev\.mcptray\.mcptray\.png'; do
	grep -Eqx "$want" "$tmp/tar" || fail "$tarball has no $want; it holds:
$(cat "$tmp/tar")"
done

echo "package-test: installing $deb into a throwaway root"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "$deb's Version is not $version"
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
: >"$root/var/lib/dpkg/status"
# The libraries it depends on are the machine's, not the empty root's.
dpkg --root="$root" --force-not-root --force-depends --force-script-chrootless --log=/dev/null -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
	fail "dpkg -i into a throwaway root failed:
$(cat "$tmp/dpkg.log")"
for f in usr/bin/mcptray usr/bin/mcptray-sandbox usr/share/applications/dev.mcptray.mcptray.desktop \
	usr/share/metainfo/dev.mcptray.mcptray.metainfo.xml usr/share/mcptray/autostart/dev.mcptray.mcptray.desktop \
	usr/share/mime/packages/dev.mcptray.mcptray.xml etc/apparmor.d/mcptray; do
	[ -f "$root/$f" ] || fail "the installed package has no /$f"
done
for size in 16 22 24 32 48 64 128 256 512; do
	icon=$root/usr/share/icons/hicolor/${size}x$size/apps/dev.mcptray.mcptray.png
	[ -f "$icon" ] || fail "the installed package has no ${size}x$size icon"
	if command -v file >/dev/null 2>&1; then
		kind=$(file -b "$icon")
		case "$kind" in
		"PNG image data, $size x $size,"*) ;;
		*) fail "the ${size}x$size icon is not a $size×$size PNG: $kind" ;;
		esac
	fi
done
[ -x "$root/usr/bin/mcptray" ] || fail "the installed /usr/bin/mcptray cannot be run"
# (Not through head: its early exit would fail the pipe under pipefail.)
got=$("$root/usr/bin/mcptray" version)
got=${got%%$'\n'*}
[ "$got" = "mcptray $version" ] || fail "the installed mcptray says \"$got\", want \"mcptray $version\""
"$root/usr/bin/mcptray" version --help >/dev/null || fail "the installed mcptray version --help fails"

# The welcome's "Try the demo" runs the installed program as the demo's
# server: an MCP client's first messages get its name and its tools.
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"package-test","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >"$tmp/demo.in"
mkdir -p "$tmp/home"
timeout 20 env -i HOME="$tmp/home" PATH=/nonexistent "$root/usr/bin/mcptray" demo-server <"$tmp/demo.in" >"$tmp/demo.out" 2>&1 ||
	fail "the installed mcptray demo-server failed:
$(cat "$tmp/demo.out")"
# The same through the installed sandbox launcher, which mcptray finds
# beside itself and starts every local server through.
# What to run comes in the policy, after its rules, not on the launcher's
# command line; its first line is the format's version, as core/sandbox
# writes it.
magic=$(sed -n 's/^const policyMagic = "\(.*\)"$/\1/p' core/sandbox/launch.go)
[ -n "$magic" ] || fail "core/sandbox/launch.go names no policyMagic"
timeout 20 env -i HOME="$tmp/home" PATH=/nonexistent MCPTRAY_SANDBOX_POLICY="$(printf '%s\nr /\nw /dev/null\nx %s\na mcptray\na demo-server\n' "$magic" "$root/usr/bin/mcptray")" \
	"$root/usr/bin/mcptray-sandbox" sandbox-exec -- <"$tmp/demo.in" >"$tmp/demo-boxed.out" 2>&1 ||
	fail "the installed mcptray demo-server, through mcptray-sandbox, failed:
$(cat "$tmp/demo-boxed.out")"
grep -q '"name":"mcptray-demo"' "$tmp/demo-boxed.out" || fail "through mcptray-sandbox, the demo server did not answer:
$(cat "$tmp/demo-boxed.out")"
for want in '"id":1,' '"name":"mcptray-demo"' '"id":2,' '"name":"greet"' '"name":"pick_colour"' '"name":"roll_dice"'; do
	grep -qF "$want" "$tmp/demo.out" || fail "the installed mcptray demo-server did not answer with $want; it said:
$(cat "$tmp/demo.out")"
done

# Purged, not only removed: dpkg -r keeps conffiles, and the AppArmor
# profile is one.
dpkg --root="$root" --force-not-root --force-script-chrootless --log=/dev/null -P mcptray >"$tmp/dpkg.log" 2>&1 ||
	fail "dpkg -P from the throwaway root failed:
$(cat "$tmp/dpkg.log")"
left=$(find "$root" -path "$root/var" -prune -o -type f -print)
[ -z "$left" ] || fail "files left after dpkg -P: $left"
echo "package-test: passed ($tarball, $deb)"
