package autostart

import (
	"encoding/xml"
	"path/filepath"
	"strings"

	"github.com/mcptray/mcptray/core/config"
)

// launchAgentPath is the per-user LaunchAgent, which launchd loads at login.
func launchAgentPath(p config.Paths) string {
	return filepath.Join(p.Home, "Library", "LaunchAgents", ID+".plist")
}

// LaunchAgent is the LaunchAgent property list that starts exe at login.
// It restarts mcptray after a crash, but not after the person chose Quit
// (a successful exit), as packaging/macos/dev.mcptray.mcptray.plist does.
func LaunchAgent(exe string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + ID + `</string>
	<key>ProgramArguments</key>
	<array>
		<string>` + xmlText(exe) + `</string>
		<string>` + Arg + `</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>30</integer>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>LimitLoadToSessionType</key>
	<string>Aqua</string>
</dict>
</plist>
`
}

func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
