package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// macRead are macOS's own system folders, read by every program there;
// Policy.Read adds the rest (Default's lists are the same on both).
var macRead = []string{"/System", "/Library", "/private/etc", "/private/var/db", "/opt/homebrew", "/usr/local", "/Applications/Xcode.app"}

// macServices are the Mach services a server may look up, as Chromium's,
// Codex's and Anthropic's sandbox-runtime profiles let their programs:
// who the user is (node's os.userInfo, python's pwd), the per-user temp
// folders, logging and notifications, the network's configuration and
// checking TLS certificates (trustd: Go's crypto/x509 asks it). Not
// LaunchServices (which opens apps, outside any sandbox), the pasteboard,
// the window server, nor the keychain's services (keychainServices).
var macServices = []string{
	"com.apple.system.opendirectoryd.libinfo", "com.apple.system.opendirectoryd.membership",
	"com.apple.bsd.dirhelper", "com.apple.system.logger", "com.apple.logd",
	"com.apple.system.notification_center", "com.apple.distributed_notifications@Uv3",
	"com.apple.PowerManagement.control", "com.apple.SystemConfiguration.configd",
	"com.apple.SystemConfiguration.DNSConfiguration", "com.apple.networkd",
	"com.apple.trustd", "com.apple.trustd.agent", "com.apple.ocspd",
	"com.apple.FontObjectsServer", "com.apple.fonts",
}

// keychainServices are the keychain's Mach services, denied by name after
// every allow (in Seatbelt the last rule that matches decides): securityd's
// file keychains (the login keychain), secd's data protection keychain and
// their helpers. A server that reached one could ask for the person's
// passwords: the login keychain is unlocked while they are logged in.
var keychainServices = []string{
	`(global-name "com.apple.SecurityServer")`,
	`(global-name "com.apple.securityd")`,
	`(global-name-regex #"^com\.apple\.securityd\.")`,
	`(global-name "com.apple.secd")`,
	`(global-name-regex #"^com\.apple\.security\.")`,
}

// Profile is p as a Seatbelt profile for macOS's sandbox-exec -p: deny by
// default, then read and run under p.Read, write under p.Write (each also
// as its symlinks resolve: Seatbelt matches the path a file really has,
// /private/tmp for /tmp), and TCP connections to p.Ports on this computer
// when p.RestrictTCP (anywhere otherwise). Connecting to a Unix socket by
// name is refused unless p.Sockets, and so is every Mach service but
// macServices; the keychain's are refused by name, last. Reading a file's
// metadata (stat) is allowed everywhere, as path lookups need it. It is
// untried on a Mac.
func Profile(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-fork)\n(allow process-exec)\n(allow signal (target same-sandbox))\n(allow process-info* (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n(allow user-preference-read)\n(allow mach-host*)\n(allow ipc-posix-shm)\n(allow ipc-posix-sem)\n(allow file-read-metadata)\n")
	b.WriteString("(allow iokit-open (iokit-registry-entry-class \"RootDomainUserClient\"))\n")
	b.WriteString("(allow mach-lookup\n")
	for _, s := range macServices {
		fmt.Fprintf(&b, "  (global-name %s)\n", quote(s))
	}
	b.WriteString(")\n(allow file-read* file-map-executable\n")
	for _, d := range seatbeltPaths(append(slices.Clone(macRead), p.Read...), p.beneath()) {
		fmt.Fprintf(&b, "  (subpath %s)\n", quote(d))
	}
	b.WriteString(")\n(allow file-read* file-write* file-map-executable\n")
	for _, d := range seatbeltPaths(p.Write, p.beneath()) {
		fmt.Fprintf(&b, "  (subpath %s)\n", quote(d))
	}
	b.WriteString(")\n(allow file-ioctl (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/random\") (literal \"/dev/urandom\"))\n")
	// socket(AF_UNIX) and socketpair, which runtimes use for their
	// children's pipes; connecting to a socket by name is network-outbound.
	b.WriteString("(allow system-socket (socket-domain AF_UNIX))\n")
	if !p.RestrictTCP {
		b.WriteString("(allow network*)\n")
	} else {
		b.WriteString("(allow network-bind network-inbound)\n")
		for _, port := range p.Ports {
			fmt.Fprintf(&b, "(allow network-outbound (remote tcp \"localhost:%d\"))\n", port)
		}
	}
	if p.Sockets {
		b.WriteString("(allow network-outbound (remote unix-socket))\n")
	} else {
		b.WriteString("(deny network-outbound (remote unix-socket))\n")
	}
	b.WriteString("(deny mach-lookup\n")
	for _, s := range keychainServices {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString(")\n")
	return b.String()
}

// seatbeltPaths are paths with, after each, where its symlinks lead when
// that is elsewhere; not for a path in a folder the server may write
// (writable), where a link may be the server's, leading where it chose.
func seatbeltPaths(paths, writable []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, p)
		if inWritable(writable, p) {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p && !slices.Contains(paths, r) {
			out = append(out, r)
		}
	}
	return out
}

// quote writes s as a Seatbelt (Scheme) string.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
