package traytest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service.
const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
)

// Notification is one notification a program asked for.
type Notification struct {
	ID            uint32
	App           string
	Summary, Body string
	Actions       []string
}

// Notifications stands in for the desktop's notification service: it
// keeps what programs ask it to show, and clicks them on request.
type Notifications struct {
	conn *dbus.Conn

	mu     sync.Mutex
	lastID uint32
	shown  []Notification
	closed []uint32      // the ids programs closed (CloseNotification)
	more   chan struct{} // closed and replaced at each notification and each close
}

// StartNotifications serves org.freedesktop.Notifications on a connection
// of its own until the test ends, waiting for its turn when another test
// serves it.
func StartNotifications(ctx context.Context, t testing.TB) *Notifications {
	t.Helper()
	conn := Connect(t)
	n := &Notifications{conn: conn, more: make(chan struct{})}
	if err := conn.ExportMethodTable(map[string]any{
		"Notify":               n.notify,
		"CloseNotification":    n.closeNotification,
		"GetCapabilities":      func() ([]string, *dbus.Error) { return []string{"actions", "body"}, nil },
		"GetServerInformation": func() (string, string, string, string, *dbus.Error) { return "traytest", "mcptray", "1", "1.2", nil },
	}, notifyPath, notifyIface); err != nil {
		t.Fatalf("exporting the notification service: %v", err)
	}
	if err := own(ctx, conn, notifyName); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *Notifications) notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lastID++
	n.shown = append(n.shown, Notification{ID: n.lastID, App: app, Summary: summary, Body: body, Actions: actions})
	close(n.more)
	n.more = make(chan struct{})
	return n.lastID, nil
}

func (n *Notifications) closeNotification(id uint32) *dbus.Error {
	n.mu.Lock()
	n.closed = append(n.closed, id)
	close(n.more)
	n.more = make(chan struct{})
	n.mu.Unlock()
	// 3: closed by a call to CloseNotification.
	if err := n.conn.Emit(notifyPath, notifyIface+".NotificationClosed", id, uint32(3)); err != nil {
		return dbus.MakeFailedError(err)
	}
	return nil
}

// Shown returns every notification shown so far, oldest first.
func (n *Notifications) Shown() []Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Notification(nil), n.shown...)
}

// WaitClosed returns once a program has closed notification id (as
// mcptray does when what it said is no longer so), or ctx's error.
func (n *Notifications) WaitClosed(ctx context.Context, id uint32) error {
	for {
		n.mu.Lock()
		closed, more := slices.Contains(n.closed, id), n.more
		n.mu.Unlock()
		if closed {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for notification %d to be closed: %w", id, ctx.Err())
		case <-more:
		}
	}
}

// Wait returns the notifications shown so far as soon as ok accepts them,
// or ctx's error.
func (n *Notifications) Wait(ctx context.Context, ok func([]Notification) bool) ([]Notification, error) {
	for {
		n.mu.Lock()
		shown, more := append([]Notification(nil), n.shown...), n.more
		n.mu.Unlock()
		if ok(shown) {
			return shown, nil
		}
		select {
		case <-ctx.Done():
			return shown, fmt.Errorf("waiting for a notification: %w", ctx.Err())
		case <-more:
		}
	}
}

// Click clicks notification id as a person does (its "default" action).
func (n *Notifications) Click(id uint32) error {
	if err := n.conn.Emit(notifyPath, notifyIface+".ActionInvoked", id, "default"); err != nil {
		return fmt.Errorf("clicking notification %d: %w", id, err)
	}
	return nil
}

// own makes conn the owner of name, waiting in the bus's queue while
// another connection has it, until ctx ends.
func own(ctx context.Context, conn *dbus.Conn, name string) error {
	sigs := make(chan *dbus.Signal, 16)
	conn.Signal(sigs)
	defer conn.RemoveSignal(sigs)
	reply, err := conn.RequestName(name, 0)
	if err != nil {
		return fmt.Errorf("asking for %s: %w", name, err)
	}
	if reply == dbus.RequestNameReplyPrimaryOwner || reply == dbus.RequestNameReplyAlreadyOwner {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			conn.ReleaseName(name)
			return fmt.Errorf("waiting for another %s to leave: %w", name, ctx.Err())
		case sig, ok := <-sigs:
			if !ok {
				return fmt.Errorf("waiting for %s: connection closed", name)
			}
			if sig.Name == "org.freedesktop.DBus.NameAcquired" && len(sig.Body) == 1 && sig.Body[0] == name {
				return nil
			}
		}
	}
}
