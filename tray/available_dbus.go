//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/godbus/dbus/v5"
)

// watcherName is the bus name of the StatusNotifier host's watcher, where
// fyne.io/systray registers its icon.
const watcherName = "org.kde.StatusNotifierWatcher"

// Available reports whether a tray icon can be shown: nil when a D-Bus
// session bus is reachable and a StatusNotifier host (the panel that draws
// tray icons) is listening on it, and otherwise an error that says in plain
// words what is missing. Without a session bus fyne.io/systray only logs and
// its end panics, so call Available before Run, and run without a tray when
// it fails.
func Available() error {
	c, err := connectSession()
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var has bool
	err = c.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, watcherName).Store(&has)
	if err != nil {
		return fmt.Errorf("asking the session bus for a StatusNotifier host: %w", err)
	}
	if !has {
		return errors.New("no StatusNotifier host: on GNOME install the AppIndicator and KStatusNotifierItem Support extension")
	}
	return nil
}

// connectSession opens a private connection to the session bus, never
// launching a bus of its own: a bus nobody else is on shows no tray and no
// notification.
func connectSession() (*dbus.Conn, error) {
	// Without the variable godbus looks in $XDG_RUNTIME_DIR, and sets the
	// variable when it finds the bus there.
	a := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	unset := a == "" || a == "autolaunch:"
	c, err := dbus.SessionBusPrivateNoAutoStartup()
	if err == nil {
		if err = c.Auth(nil); err == nil {
			err = c.Hello()
		}
		if err != nil {
			c.Close()
		}
	}
	switch {
	case err == nil:
		return c, nil
	case unset:
		return nil, errors.New("no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
	default:
		return nil, fmt.Errorf("no session bus: %w", err)
	}
}
