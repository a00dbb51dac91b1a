//go:build !(linux || freebsd || openbsd || netbsd) || android

package tray

import (
	"errors"

	"github.com/godbus/dbus/v5"
)

// Available reports whether a tray icon can be shown. macOS and Windows
// always have a place for one, so it returns nil there.
func Available() error { return nil }

// connectSession fails: notifications go over D-Bus, which these systems
// do not have.
func connectSession() (*dbus.Conn, error) {
	return nil, errors.New("no D-Bus session bus on this system")
}
