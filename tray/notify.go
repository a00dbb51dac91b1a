package tray

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// Notice is one desktop notification.
type Notice struct {
	// Server is the server it is about, by its name in mcptray (not
	// sanitised): clicking the notification opens the window there.
	Server string
	// Title and Body are its text, sanitised.
	Title, Body string
}

// Notices returns the notifications that the change from prev to next
// deserves: one for each server that has just started waiting for approval
// or for a sign-in. A server that stays in that state is not notified
// again; one that leaves it and comes back is. Nothing is notified while
// mcptray's window is open (windowOpen), where the person sees it already,
// nor for suppressed servers, which never run.
func Notices(prev, next service.Snapshot, windowOpen bool) []Notice {
	if windowOpen {
		return nil
	}
	before := map[string]service.State{}
	for _, sv := range prev.Servers {
		if sv.Suppressed == "" {
			before[sv.Name] = sv.State
		}
	}
	var out []Notice
	for _, sv := range next.Servers {
		if sv.Suppressed != "" {
			continue
		}
		if st, ok := before[sv.Name]; ok && st == sv.State {
			continue
		}
		n := name(sv)
		switch sv.State {
		case service.AwaitingApproval:
			out = append(out, Notice{
				Server: sv.Name,
				Title:  n + " is waiting for approval",
				Body:   "mcptray runs it only once you approve it. Click to review it.",
			})
		case service.NeedsAuth:
			out = append(out, Notice{
				Server: sv.Name,
				Title:  n + " needs you to sign in",
				Body:   "Click to sign in from mcptray.",
			})
		}
	}
	return append(out, heldNotices(prev, next)...)
}

// The freedesktop notification service.
const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
)

// notifier shows Notices through the desktop's notification service and
// calls onClick with a notice's server when the person clicks one. Without
// a session bus or a notification service it shows nothing and says so at
// debug level only: notifications are a nicety, never a reason to fail.
type notifier struct {
	log     *slog.Logger
	onClick func(server string)

	conn *dbus.Conn // nil when there is no session bus
	sigs chan *dbus.Signal
	done chan struct{}

	mu  sync.Mutex
	ids map[uint32]string // notification id → server
}

// newNotifier connects to the session bus and listens for clicks on the
// notifications it shows until close.
func newNotifier(log *slog.Logger, onClick func(server string)) *notifier {
	n := &notifier{log: log, onClick: onClick, ids: map[uint32]string{}, done: make(chan struct{})}
	c, err := connectSession()
	if err != nil {
		log.Debug("no desktop notifications", "err", err)
		close(n.done)
		return n
	}
	err = c.AddMatchSignal(
		dbus.WithMatchObjectPath(notifyPath),
		dbus.WithMatchInterface(notifyIface),
	)
	if err != nil {
		log.Debug("notifications cannot be clicked", "err", err)
	}
	n.conn = c
	n.sigs = make(chan *dbus.Signal, 16)
	c.Signal(n.sigs)
	go n.listen()
	return n
}

// listen handles the notification service's signals until the connection
// closes.
func (n *notifier) listen() {
	defer close(n.done)
	for sig := range n.sigs {
		if sig.Path != notifyPath || len(sig.Body) < 2 {
			continue
		}
		id, ok := sig.Body[0].(uint32)
		if !ok {
			continue
		}
		n.mu.Lock()
		server, known := n.ids[id]
		switch sig.Name {
		case notifyIface + ".NotificationClosed":
			delete(n.ids, id)
		case notifyIface + ".ActionInvoked":
			if action, _ := sig.Body[1].(string); action != "default" {
				known = false
			}
		default:
			known = false
		}
		n.mu.Unlock()
		if known && n.onClick != nil {
			n.onClick(server)
		}
	}
}

// notify shows a notice and returns its id, or 0 when it could not. A
// failure is logged at debug level and otherwise ignored.
func (n *notifier) notify(ctx context.Context, nt Notice) uint32 {
	if n.conn == nil {
		return 0
	}
	var id uint32
	err := n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".Notify", 0,
		"mcptray",               // app_name
		uint32(0),               // replaces_id
		"",                      // app_icon
		sanitize.Line(nt.Title), // summary
		sanitize.String(nt.Body),
		[]string{"default", "Open mcptray"},
		map[string]dbus.Variant{},
		int32(-1), // the server's default timeout
	).Store(&id)
	if err != nil {
		n.log.Debug("showing a notification", "err", err)
		return 0
	}
	n.mu.Lock()
	n.ids[id] = nt.Server
	n.mu.Unlock()
	return id
}

// withdraw takes back the notification id (notify's) when it says what
// is no longer so. A failure is logged at debug level.
func (n *notifier) withdraw(ctx context.Context, id uint32) {
	if n.conn == nil || id == 0 {
		return
	}
	err := n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".CloseNotification", 0, id).Err
	if err != nil {
		n.log.Debug("closing a notification", "err", err)
	}
}

// close stops listening and waits until the listener is done.
func (n *notifier) close() error {
	if n.conn == nil {
		return nil
	}
	err := n.conn.Close()
	<-n.done
	if err != nil {
		return fmt.Errorf("closing the notifications' bus connection: %w", err)
	}
	return nil
}
