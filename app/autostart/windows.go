package autostart

import "strings"

// runKeyPath is the per-user key whose values Windows runs at login.
const runKeyPath = `Software\Microsoft\Windows\CurrentVersion\Run`

// runValue is the value's name under runKeyPath.
const runValue = "mcptray"

// RunCommand is the command line the Run key holds to start exe at login:
// the program in double quotes (its folder may have spaces, as
// C:\Program Files does), then Arg.
func RunCommand(exe string) string {
	// A path cannot hold a double quote on Windows; drop any, so the
	// command line always parses back to exe.
	return `"` + strings.ReplaceAll(exe, `"`, "") + `" ` + Arg
}
