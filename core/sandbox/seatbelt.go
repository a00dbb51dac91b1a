package sandbox

import (
	"fmt"
	"strings"
)

// macRead are macOS's own system folders, read by every program there;
// Policy.Read adds the rest (Default's lists are the same on both).
var macRead = []string{"/System", "/Library", "/private/etc", "/private/var/db", "/opt/homebrew", "/usr/local", "/Applications/Xcode.app"}

// Profile is p as a Seatbelt profile for macOS's sandbox-exec -p: deny by
// default, then read and run under p.Read, write under p.Write, and TCP
// connections to p.Ports on the local machine when p.RestrictTCP (any
// otherwise). Reading a file's metadata (stat) is allowed everywhere, as
// path lookups need it; mach-lookup, sysctl reads and POSIX shared memory
// are allowed as every program needs them. It is untried on a Mac.
func Profile(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-fork)\n(allow process-exec)\n(allow signal (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm)\n(allow file-read-metadata)\n")
	b.WriteString("(allow file-read* file-map-executable\n")
	for _, d := range append(append([]string(nil), macRead...), p.Read...) {
		fmt.Fprintf(&b, "  (subpath %s)\n", quote(d))
	}
	b.WriteString(")\n(allow file-read* file-write* file-map-executable\n")
	for _, d := range p.Write {
		fmt.Fprintf(&b, "  (subpath %s)\n", quote(d))
	}
	b.WriteString(")\n")
	if !p.RestrictTCP {
		b.WriteString("(allow network*)\n")
	} else {
		b.WriteString("(allow network-bind network-inbound)\n(allow network-outbound (remote unix-socket))\n")
		for _, port := range p.Ports {
			fmt.Fprintf(&b, "(allow network-outbound (remote tcp \"localhost:%d\"))\n", port)
		}
	}
	return b.String()
}

// quote writes s as a Seatbelt (Scheme) string.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
