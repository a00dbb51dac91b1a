package autostart

import (
	"path/filepath"
	"strings"

	"github.com/mcptray/mcptray/core/config"
)

// desktopEntryPath is the XDG autostart entry: autostart/ in
// $XDG_CONFIG_HOME, which paths.UserConfigDir already follows.
func desktopEntryPath(p config.Paths) string {
	return filepath.Join(p.UserConfigDir, "autostart", ID+".desktop")
}

// DesktopEntry is the XDG autostart entry that starts exe at login.
func DesktopEntry(exe string) string {
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=mcptray\n" +
		"Comment=Keeps your MCP servers running and shows their state in the tray\n" +
		"Exec=" + desktopExec(exe, Arg) + "\n" +
		"Icon=" + ID + "\n" +
		"Terminal=false\n" +
		"NoDisplay=true\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// desktopExec quotes args for an Exec key: the Desktop Entry
// Specification's quoting (double quotes around an argument with a
// reserved character, a backslash before ", `, $ and \ inside them), then
// its string escaping (a backslash doubled) and a literal % doubled.
func desktopExec(args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n\"'\\><~|&;$*?#()`") {
			quoted[i] = a
			continue
		}
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range a {
			if strings.ContainsRune("\"`$\\", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		quoted[i] = b.String()
	}
	line := strings.Join(quoted, " ")
	line = strings.ReplaceAll(line, `\`, `\\`)
	line = strings.ReplaceAll(line, "\n", `\n`)
	return strings.ReplaceAll(line, "%", "%%")
}

// desktopEntryOn reports whether the desktop starts an entry: not when its
// own settings hid it (Hidden=true) or switched it off
// (X-GNOME-Autostart-enabled=false, what GNOME's and others' "Startup
// Applications" write).
func desktopEntryOn(entry string) bool {
	group := ""
	for _, line := range strings.Split(entry, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			group = line
			continue
		}
		if group != "[Desktop Entry]" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if (k == "Hidden" && v == "true") || (k == "X-GNOME-Autostart-enabled" && v == "false") {
			return false
		}
	}
	return true
}
