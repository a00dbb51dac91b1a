// Package traytest reads and clicks a tray icon's menu over D-Bus, and
// stands in for the desktop's notification service, so that tests can drive
// mcptray's tray the way a panel does, without a desktop.
//
// A test runs inside a session bus (dbus-run-session), starts a watcher
// with StartWatcher, starts the tray, finds the tray's item with ItemOf
// (by process id, so that trays of other tests on the same bus are never
// mistaken for it), then reads the menu with ReadMenu or WaitMenu and
// clicks items by label with Click: item ids change whenever the menu is
// rebuilt, labels do not.
//
// It is test support only: mcptray itself never imports it.
package traytest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/tray/sniwatcher"
)

// NeedBus skips t when there is no D-Bus session bus to test on.
func NeedBus(t testing.TB) {
	t.Helper()
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Skip("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set): run the tests inside dbus-run-session")
	}
}

// Connect returns a private connection to the session bus, closed when the
// test ends. It skips t when there is no session bus.
func Connect(t testing.TB) *dbus.Conn {
	t.Helper()
	NeedBus(t)
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// StartWatcher serves a StatusNotifierWatcher on a connection of its own
// until the test ends, waiting for its turn when another test has one.
func StartWatcher(ctx context.Context, t testing.TB) *sniwatcher.Watcher {
	t.Helper()
	w, err := sniwatcher.Serve(ctx, Connect(t))
	if err != nil {
		t.Fatalf("starting a StatusNotifierWatcher: %v", err)
	}
	return w
}

// ItemOf waits until the process pid registers a tray item with w and
// returns it as "bus-name/object/path". conn is any session bus connection,
// used to ask the bus who owns each item.
func ItemOf(ctx context.Context, conn *dbus.Conn, w *sniwatcher.Watcher, pid int) (string, error) {
	var found string
	_, err := w.Wait(ctx, func(items []string) bool {
		for _, it := range items {
			name, _ := split(it)
			var p uint32
			err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, name).Store(&p)
			if err == nil && int(p) == pid {
				found = it
				return true
			}
		}
		return false
	})
	if err != nil {
		return "", fmt.Errorf("waiting for the tray item of process %d: %w", pid, err)
	}
	return found, nil
}

// split returns an item's bus name and object path.
func split(item string) (string, dbus.ObjectPath) {
	name, path, _ := strings.Cut(item, "/")
	return name, dbus.ObjectPath("/" + path)
}

// MenuItem is one line of a tray menu as com.canonical.dbusmenu gives it.
type MenuItem struct {
	// ID is the item's id in this version of the menu only.
	ID        int32
	Label     string
	Enabled   bool
	Visible   bool
	Separator bool
	Children  []MenuItem
}

// Labels returns the labels of items, "" for a separator.
func Labels(items []MenuItem) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Label)
	}
	return out
}

// menuPath returns the object path of an item's menu, from its Menu
// property.
func menuPath(ctx context.Context, conn *dbus.Conn, item string) (string, dbus.ObjectPath, error) {
	name, path := split(item)
	var v dbus.Variant
	err := conn.Object(name, path).CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0,
		"org.kde.StatusNotifierItem", "Menu").Store(&v)
	if err != nil {
		return "", "", fmt.Errorf("reading the menu path of %s: %w", item, err)
	}
	p, ok := v.Value().(dbus.ObjectPath)
	if !ok {
		return "", "", fmt.Errorf("the menu path of %s is a %s", item, v.Signature())
	}
	return name, p, nil
}

// ReadMenu returns the menu of a tray item (as ItemOf returns it), with
// GetLayout.
func ReadMenu(ctx context.Context, conn *dbus.Conn, item string) ([]MenuItem, error) {
	name, path, err := menuPath(ctx, conn, item)
	if err != nil {
		return nil, err
	}
	var rev uint32
	var root layout
	err = conn.Object(name, path).CallWithContext(ctx, "com.canonical.dbusmenu.GetLayout", 0,
		int32(0), int32(-1), []string{}).Store(&rev, &root)
	if err != nil {
		return nil, fmt.Errorf("reading the menu of %s: %w", item, err)
	}
	return children(root.Children)
}

// layout is a dbusmenu layout, (ia{sv}av).
type layout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

func children(vs []dbus.Variant) ([]MenuItem, error) {
	out := make([]MenuItem, 0, len(vs))
	for _, v := range vs {
		var l layout
		if err := dbus.Store([]any{v.Value()}, &l); err != nil {
			return nil, fmt.Errorf("reading a menu item: %w", err)
		}
		it := MenuItem{ID: l.ID, Enabled: true, Visible: true}
		for k, p := range l.Props {
			switch k {
			case "label":
				it.Label, _ = p.Value().(string)
			case "enabled":
				it.Enabled, _ = p.Value().(bool)
			case "visible":
				it.Visible, _ = p.Value().(bool)
			case "type":
				it.Separator = p.Value() == "separator"
			}
		}
		kids, err := children(l.Children)
		if err != nil {
			return nil, err
		}
		if len(kids) > 0 {
			it.Children = kids
		}
		out = append(out, it)
	}
	return out, nil
}

// WaitMenu returns the menu of a tray item as soon as ok accepts it,
// reading it again each time the item says its layout changed, or ctx's
// error with the last menu read.
func WaitMenu(ctx context.Context, conn *dbus.Conn, item string, ok func([]MenuItem) bool) ([]MenuItem, error) {
	name, path, err := menuPath(ctx, conn, item)
	if err != nil {
		return nil, err
	}
	match := []dbus.MatchOption{
		dbus.WithMatchSender(name),
		dbus.WithMatchObjectPath(path),
		dbus.WithMatchInterface("com.canonical.dbusmenu"),
	}
	if err := conn.AddMatchSignalContext(ctx, match...); err != nil {
		return nil, fmt.Errorf("watching the menu of %s: %w", item, err)
	}
	defer conn.RemoveMatchSignal(match...)
	sigs := make(chan *dbus.Signal, 64)
	conn.Signal(sigs)
	defer conn.RemoveSignal(sigs)
	for {
		menu, err := ReadMenu(ctx, conn, item)
		if err != nil {
			return nil, err
		}
		if ok(menu) {
			return menu, nil
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return menu, fmt.Errorf("waiting for the menu of %s to change: %w; it is %q", item, ctx.Err(), Labels(menu))
			case sig, open := <-sigs:
				if !open {
					return menu, fmt.Errorf("waiting for the menu of %s: connection closed", item)
				}
				if sig.Path == path {
					break wait
				}
			}
		}
	}
}

// Find returns the item labelled label, looking into submenus too.
func Find(items []MenuItem, label string) (MenuItem, bool) {
	for _, it := range items {
		if it.Label == label {
			return it, true
		}
		if c, ok := Find(it.Children, label); ok {
			return c, true
		}
	}
	return MenuItem{}, false
}

// Click clicks the menu item labelled label, as a panel does when a
// person picks it.
func Click(ctx context.Context, conn *dbus.Conn, item, label string) error {
	menu, err := ReadMenu(ctx, conn, item)
	if err != nil {
		return err
	}
	it, ok := Find(menu, label)
	if !ok {
		return fmt.Errorf("no menu item %q in %q", label, Labels(menu))
	}
	if !it.Enabled {
		return fmt.Errorf("menu item %q is disabled", label)
	}
	name, path, err := menuPath(ctx, conn, item)
	if err != nil {
		return err
	}
	err = conn.Object(name, path).CallWithContext(ctx, "com.canonical.dbusmenu.Event", 0,
		it.ID, "clicked", dbus.MakeVariant(int32(0)), uint32(0)).Err
	if err != nil {
		return fmt.Errorf("clicking %q: %w", label, err)
	}
	return nil
}

// HasLabels reports whether menu's labels are want, in order.
func HasLabels(menu []MenuItem, want ...string) bool {
	return slices.Equal(Labels(menu), want)
}
