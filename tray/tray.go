package tray

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/systray"

	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// Service is what the tray needs of the mcptray service it runs beside, in
// the same process. Every method must return soon after its ctx ends: when
// the tray ends, Run cancels the actions still running and waits for them.
type Service interface {
	// Snapshot returns every server's state now.
	Snapshot(ctx context.Context) (service.Snapshot, error)
	// Subscribe returns a channel that receives a value whenever
	// something may have changed (a hint to call Snapshot again) and is
	// closed when the service ends.
	Subscribe(ctx context.Context) (<-chan struct{}, error)
	// Retry tries server name again now.
	Retry(ctx context.Context, name string) error
	// SignIn signs in to server name. It may take minutes (the person
	// signs in in a browser): the tray never calls it on its loop.
	SignIn(ctx context.Context, name string) error
	// PauseAll stops every server until ResumeAll.
	PauseAll(ctx context.Context) error
	// ResumeAll starts the servers again after PauseAll.
	ResumeAll(ctx context.Context) error
}

// Options are what Run needs besides its Service. Every field may be left
// zero.
type Options struct {
	// Logger gets the tray's log; nil discards it.
	Logger *slog.Logger
	// OpenWindow opens mcptray's window, at server when it is not "" (a
	// server's line, "Review N servers…", a click on a notification). It
	// is called off the tray's loop and may take its time.
	OpenWindow func(server string)
	// Quit is called when the person picks Quit, after the tray is gone
	// and before Run returns, on Run's goroutine.
	Quit func()
	// WindowOpen reports whether mcptray's window is open, in which case
	// no notification is shown. It is called on the tray's loop at each
	// change, so it must answer at once; nil means never open.
	WindowOpen func() bool
	// Dark picks the icons drawn for a dark panel.
	Dark bool
	// Today, when set, sums up the calls the apps made through mcptray
	// today, and those the flow guard held, for a line of the menu
	// (activity.go): the service's ActivityToday. It must answer soon.
	Today func(ctx context.Context) (service.ActivitySummary, error)
	// Sets, when set, are the sets the menu lists, and SetTray makes one
	// the tray's: the set every app that follows the tray gets
	// (sets.go). They must answer soon.
	Sets    func(ctx context.Context) (service.SetsView, error)
	SetTray func(ctx context.Context, name string) error
	// Questions, when set, are the network proxy's questions, which the
	// tray shows and answers (questions.go); nil shows none.
	Questions Questions
}

// coalesce is how long the tray waits after a change notice for more before
// it reads a snapshot: a config reload changes many servers at once, and one
// menu rebuild is enough for them.
const coalesce = 100 * time.Millisecond

// ran is set by the first Run: fyne.io/systray keeps its state in globals
// and cannot start a second time in one process.
var ran atomic.Bool

// Run shows the tray icon and menu for b's snapshots and keeps them up to
// date until ctx ends, the person picks Quit (then it calls Options.Quit) or
// b's change channel closes; then it removes the icon and returns nil.
// Actions picked in the menu run off the tray's loop; their errors are
// logged and, when a person would want to know, shown as a notification.
// When it starts, Run notifies every server that already waits for
// approval or a sign-in; after that, only changes (see Notices).
//
// Call Available first: Run fails when there is no tray to show, and it
// runs only once per process (fyne.io/systray keeps global state).
//
// Run blocks on the calling goroutine, which must be the main goroutine:
// on macOS and Windows it runs the system's event loop (systray.Run), which
// needs the main thread. On Linux and the BSDs the tray is pure Go over
// D-Bus and any goroutine would do, but main should call it the same way
// everywhere. On Linux the icon and menu live on the shared session bus
// connection (dbus.SessionBus), which fyne.io/systray closes when the tray
// ends; godbus opens a new one for the next caller. fyne.io/systray writes
// its own errors ("systray error: …") to the standard log package.
func Run(ctx context.Context, b Service, opts Options) error {
	if err := Available(); err != nil {
		return fmt.Errorf("no tray: %w", err)
	}
	if !ran.CompareAndSwap(false, true) {
		return errors.New("the tray can run only once per process")
	}
	t := &tray{b: b, opts: opts, log: opts.Logger, clicks: make(chan Item, 16)}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	err := runSystray(ctx, t)
	if t.quit && opts.Quit != nil {
		opts.Quit()
	}
	return err
}

// tray is a running tray. Its fields are the loop's own, except where said.
type tray struct {
	b    Service
	opts Options
	log  *slog.Logger

	// clicks receives the items the person picks, from one goroutine per
	// menu item.
	clicks chan Item
	// wg counts the goroutines that run actions and open the window.
	wg    sync.WaitGroup
	notes *notifier

	prev service.Snapshot   // for Notices
	asks []control.Question // the proxy's questions waiting, oldest first
	// askNotes are the notifications of the questions waiting, by
	// question id (0 while one is being shown), taken back as each goes;
	// shared with the goroutines that show them.
	askNotesMu sync.Mutex
	askNotes   map[string]uint32
	shown      *Menu // what the tray shows now, nil before the first
	quit       bool  // the person picked Quit
}

// loop keeps the tray up to date and acts on clicks until ctx ends, Quit is
// picked or the service ends. systray must have started.
func (t *tray) loop(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	changes, err := t.b.Subscribe(ctx)
	if err != nil {
		cancel()
		return fmt.Errorf("subscribing to changes: %w", err)
	}
	t.notes = newNotifier(t.log, func(server string) { t.open(server) })
	defer func() {
		// Closes every item's ClickedCh, which ends its goroutine.
		systray.ResetMenu()
		if err := t.notes.close(); err != nil {
			t.log.Debug("closing notifications", "err", err)
		}
		cancel()
		t.wg.Wait()
	}()

	// Following first: once the menu shows, the proxy's questions come
	// here rather than open the window.
	asks := t.followQuestions(ctx)
	t.refresh(ctx)
	var later <-chan time.Time
	ticks, stopTicks := t.todayTicks()
	defer stopTicks()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticks:
			t.refresh(ctx)
		case _, ok := <-changes:
			if !ok {
				t.log.Debug("the service ended: removing the tray")
				return nil
			}
			if later == nil {
				later = time.After(coalesce)
			}
		case <-later:
			later = nil
			t.refresh(ctx)
		case q, ok := <-asks:
			if !ok {
				asks = nil
				continue
			}
			t.question(ctx, q)
		case it := <-t.clicks:
			if it.Action == QuitAction {
				t.quit = true
				return nil
			}
			t.act(ctx, it)
		}
	}
}

// refresh reads a snapshot and shows it, with notifications for what
// changed.
func (t *tray) refresh(ctx context.Context) {
	s, err := t.b.Snapshot(ctx)
	if err != nil {
		if ctx.Err() == nil {
			t.log.Warn("reading the servers' state for the tray", "err", err)
		}
		return
	}
	open := t.opts.WindowOpen != nil && t.opts.WindowOpen()
	if notices := Notices(t.prev, s, open); len(notices) > 0 {
		t.goDo(func() {
			for _, n := range notices {
				t.notify(ctx, n)
			}
		})
	}
	t.prev = s
	t.show(t.menu(ctx, s))
}

// menu is what the tray shows for s: Build's menu with the questions
// waiting and today's count of calls.
func (t *tray) menu(ctx context.Context, s service.Snapshot) Menu {
	return t.today(ctx, withQuestions(t.withSets(ctx, Build(s)), t.asks))
}

// notify shows a notification and returns its id (0 when it could not),
// giving up after a few seconds: a notification service that has to be
// started may keep the caller waiting.
func (t *tray) notify(ctx context.Context, n Notice) uint32 {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return t.notes.notify(ctx, n)
}

// show makes the tray show m, changing only what differs from what it shows.
func (t *tray) show(m Menu) {
	old := t.shown
	t.shown = &m
	if old == nil || old.Icon != m.Icon {
		systray.SetIcon(t.systemIcon(assets.TrayIcon(m.Icon, t.opts.Dark)))
	}
	if old == nil || old.Tooltip != m.Tooltip {
		systray.SetTooltip(m.Tooltip)
	}
	if old != nil && slices.Equal(old.Items, m.Items) {
		return
	}
	systray.ResetMenu()
	var ready sync.WaitGroup
	var last *systray.MenuItem
	var lastLabel string
	for _, it := range m.Items {
		if it.Separator {
			systray.AddSeparator()
			continue
		}
		mi := systray.AddMenuItem(it.Label, "")
		last, lastLabel = mi, it.Label
		if it.Disabled {
			mi.Disable()
			continue
		}
		ready.Add(1)
		go t.forward(mi.ClickedCh, it, &ready)
	}
	// Every item's goroutine is waiting for clicks before the new menu is
	// announced: fyne.io/systray drops a click nobody is waiting for.
	ready.Wait()
	if last != nil {
		// fyne.io/systray announces a new layout (LayoutUpdated) only when
		// an existing item changes, not when one is added: without this,
		// panels would keep showing the items before the last separator.
		last.SetTitle(lastLabel)
	}
}

// forward passes the clicks on one menu item to the loop until the item is
// removed. A click while the loop has 16 waiting is dropped.
func (t *tray) forward(clicked <-chan struct{}, it Item, ready *sync.WaitGroup) {
	ready.Done()
	for range clicked {
		select {
		case t.clicks <- it:
		default:
			t.log.Debug("tray click dropped: too many waiting", "item", it.Label)
		}
	}
}

// act does what a picked item says, off the loop.
func (t *tray) act(ctx context.Context, it Item) {
	name := sanitize.Line(it.Server)
	switch it.Action {
	case OpenAction:
		t.open(it.Server)
	case SignInAction:
		t.run(ctx, it.Server, "Couldn't sign in to "+name, func(ctx context.Context) error {
			return t.b.SignIn(ctx, it.Server)
		})
	case RetryAction:
		t.run(ctx, it.Server, "Couldn't retry "+name, func(ctx context.Context) error {
			return t.b.Retry(ctx, it.Server)
		})
	case PauseAction:
		t.run(ctx, "", "Couldn't pause the servers", t.b.PauseAll)
	case ResumeAction:
		t.run(ctx, "", "Couldn't resume the servers", t.b.ResumeAll)
	case AllowOnceAction:
		t.answer(ctx, it, true, false)
	case AllowAlwaysAction:
		t.answer(ctx, it, true, true)
	case DenyAction:
		t.answer(ctx, it, false, false)
	case SetTrayAction:
		if t.opts.SetTray != nil {
			t.run(ctx, "", "Couldn't switch the tray's set", func(ctx context.Context) error {
				return t.opts.SetTray(ctx, it.Set)
			})
		}
	}
}

// open opens the window at server, off the loop.
func (t *tray) open(server string) {
	if t.opts.OpenWindow == nil {
		t.log.Debug("no window to open", "server", server)
		return
	}
	t.goDo(func() { t.opts.OpenWindow(server) })
}

// run calls f off the loop; when it fails, it logs and notifies with
// failed as the title.
func (t *tray) run(ctx context.Context, server, failed string, f func(context.Context) error) {
	t.goDo(func() {
		err := f(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		t.log.Warn("tray action failed", "what", failed, "err", err)
		t.notify(ctx, Notice{Server: server, Title: failed, Body: sanitize.Line(err.Error())})
	})
}

// goDo runs f on a goroutine that loop waits for before it returns.
func (t *tray) goDo(f func()) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		f()
	}()
}
