// Package sniwatcher is a small StatusNotifierWatcher for tests: it owns
// org.kde.StatusNotifierWatcher on a D-Bus session bus, as a desktop's panel
// does, so that a tray icon (fyne.io/systray) registers with it and can be
// read and clicked over D-Bus without a desktop. It claims a host is
// present and draws nothing.
//
// It is test support only: mcptray itself never imports it.
package sniwatcher

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
)

// The watcher's well-known name, object path and interface.
const (
	Name      = "org.kde.StatusNotifierWatcher"
	Path      = dbus.ObjectPath("/StatusNotifierWatcher")
	Interface = "org.kde.StatusNotifierWatcher"
)

// Watcher is a running StatusNotifierWatcher.
type Watcher struct {
	conn  *dbus.Conn
	props *prop.Properties

	mu      sync.Mutex
	items   []string      // "bus-name/object/path", in order of registration
	changed chan struct{} // closed and replaced whenever items change
}

// Serve makes conn the session bus's StatusNotifierWatcher until conn is
// closed. When another watcher owns the name, it waits in the bus's queue
// until that one leaves or ctx ends, so that tests that run at the same time
// take turns. conn should be a connection of its own (dbus.ConnectSessionBus):
// Serve listens to all of its signals.
func Serve(ctx context.Context, conn *dbus.Conn) (*Watcher, error) {
	w := &Watcher{conn: conn, changed: make(chan struct{})}
	if err := conn.Export(methods{w}, Path, Interface); err != nil {
		return nil, fmt.Errorf("exporting the watcher: %w", err)
	}
	props, err := prop.Export(conn, Path, prop.Map{Interface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		return nil, fmt.Errorf("exporting the watcher's properties: %w", err)
	}
	w.props = props
	node := &introspect.Node{Name: string(Path), Interfaces: []introspect.Interface{
		introspect.IntrospectData,
		prop.IntrospectData,
		{Name: Interface, Methods: introspect.Methods(methods{}), Properties: props.Introspection(Interface)},
	}}
	if err := conn.Export(introspect.NewIntrospectable(node), Path, "org.freedesktop.DBus.Introspectable"); err != nil {
		return nil, fmt.Errorf("exporting the watcher's introspection: %w", err)
	}

	sigs := make(chan *dbus.Signal, 16)
	conn.Signal(sigs)
	if err := conn.AddMatchSignal(
		dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
	); err != nil {
		return nil, fmt.Errorf("watching names on the bus: %w", err)
	}
	reply, err := conn.RequestName(Name, 0)
	if err != nil {
		return nil, fmt.Errorf("asking for %s: %w", Name, err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner && reply != dbus.RequestNameReplyAlreadyOwner {
		if err := awaitName(ctx, conn, sigs); err != nil {
			return nil, err
		}
	}
	go w.forgetGone(sigs)
	return w, nil
}

// awaitName waits for the bus to hand this connection the watcher's name.
func awaitName(ctx context.Context, conn *dbus.Conn, sigs <-chan *dbus.Signal) error {
	for {
		select {
		case <-ctx.Done():
			conn.ReleaseName(Name)
			return fmt.Errorf("waiting for another StatusNotifierWatcher to leave: %w", ctx.Err())
		case sig, ok := <-sigs:
			if !ok {
				return fmt.Errorf("waiting for %s: connection closed", Name)
			}
			if sig.Name == "org.freedesktop.DBus.NameAcquired" && len(sig.Body) == 1 && sig.Body[0] == Name {
				return nil
			}
		}
	}
}

// forgetGone unregisters the items of programs that leave the bus, until
// the connection closes.
func (w *Watcher) forgetGone(sigs <-chan *dbus.Signal) {
	for sig := range sigs {
		if sig.Name != "org.freedesktop.DBus.NameOwnerChanged" || len(sig.Body) != 3 {
			continue
		}
		name, _ := sig.Body[0].(string)
		newOwner, _ := sig.Body[2].(string)
		if newOwner != "" {
			continue
		}
		w.mu.Lock()
		var gone []string
		w.items = slices.DeleteFunc(w.items, func(it string) bool {
			if strings.HasPrefix(it, name+"/") {
				gone = append(gone, it)
				return true
			}
			return false
		})
		if len(gone) > 0 {
			w.changedLocked()
		}
		w.mu.Unlock()
		for _, it := range gone {
			w.conn.Emit(Path, Interface+".StatusNotifierItemUnregistered", it)
		}
	}
}

// Items returns the registered items, each as "bus-name/object/path".
func (w *Watcher) Items() []string {
	items, _ := w.snapshot()
	return items
}

// snapshot returns the items and a channel closed at their next change.
func (w *Watcher) snapshot() ([]string, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.items), w.changed
}

// Wait returns the registered items as soon as ok accepts them, or ctx's
// error.
func (w *Watcher) Wait(ctx context.Context, ok func(items []string) bool) ([]string, error) {
	for {
		items, changed := w.snapshot()
		if ok(items) {
			return items, nil
		}
		select {
		case <-ctx.Done():
			return items, fmt.Errorf("waiting for a tray item: %w", ctx.Err())
		case <-changed:
		}
	}
}

// changedLocked publishes a change of w.items; w.mu is held.
func (w *Watcher) changedLocked() {
	w.publish(slices.Clone(w.items))
	close(w.changed)
	w.changed = make(chan struct{})
}

// publish sets the RegisteredStatusNotifierItems property on the bus. A
// program that leaves as the watcher's connection closes (the end of a
// test) still reaches forgetGone; godbus then panics instead of returning
// an error, and with the connection gone there is nobody left to tell.
func (w *Watcher) publish(items []string) {
	defer func() {
		if r := recover(); r != nil && w.conn.Connected() {
			panic(r)
		}
	}()
	w.props.SetMust(Interface, "RegisteredStatusNotifierItems", items)
}

// methods are the watcher's D-Bus methods.
type methods struct{ w *Watcher }

// RegisterStatusNotifierItem registers an item: service is either a bus
// name, whose item is at /StatusNotifierItem, or an object path on the
// caller's connection (fyne.io/systray sends the path).
func (m methods) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	item := service + "/StatusNotifierItem"
	if strings.HasPrefix(service, "/") {
		item = string(sender) + service
	}
	w := m.w
	w.mu.Lock()
	if !slices.Contains(w.items, item) {
		w.items = append(w.items, item)
		w.changedLocked()
	}
	w.mu.Unlock()
	if err := w.conn.Emit(Path, Interface+".StatusNotifierItemRegistered", item); err != nil {
		return dbus.MakeFailedError(err)
	}
	return nil
}

// RegisterStatusNotifierHost accepts a host and does nothing: this watcher
// always says a host is there.
func (m methods) RegisterStatusNotifierHost(service string) *dbus.Error {
	return nil
}
