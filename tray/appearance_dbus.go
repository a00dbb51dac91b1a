//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"
)

// PrefersDark reports whether the tray icons drawn for a dark panel suit
// this desktop. It asks the desktop portal's color-scheme setting (1 means
// dark, 2 light); when the portal cannot say, it answers true, since most
// Linux panels (GNOME's top bar among them) are dark whatever the theme.
func PrefersDark() bool {
	c, err := connectSession()
	if err != nil {
		return true
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var v dbus.Variant
	err = c.Object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop").
		CallWithContext(ctx, "org.freedesktop.portal.Settings.ReadOne", 0, "org.freedesktop.appearance", "color-scheme").Store(&v)
	if err != nil {
		return true
	}
	scheme, ok := v.Value().(uint32)
	return !ok || scheme != 2
}
