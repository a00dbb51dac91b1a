//go:build !((linux || freebsd || openbsd || netbsd) && !android)

package tray

// PrefersDark reports whether the tray icons drawn for a dark panel suit
// this desktop. macOS draws template icons itself and Windows' taskbar is
// dark by default, so the dark-panel icons are the answer there.
func PrefersDark() bool { return true }
