//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/tray/traytest"
)

// childEnv names the test a re-executed test binary runs: fyne.io/systray
// keeps its state in globals and starts once per process, so each test that
// runs a tray runs in a process of its own.
const childEnv = "MCPTRAY_TRAY_TEST"

// today is what the started tray's Options.Today says of today's calls.
var today = service.ActivitySummary{Calls: 7, Held: 2}

// inSubprocess runs t in a new test process and returns false, or returns
// true when this is that process and t's body should run here.
func inSubprocess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		return true
	}
	traytest.NeedBus(t)
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run="+strings.Join(parts, "/"), "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in its own process: %v\n%s", t.Name(), err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s did not pass in its own process:\n%s", t.Name(), out)
	}
	if testing.Verbose() {
		t.Logf("%s", out)
	}
	return false
}

// fakeService is a Service whose snapshot the test sets and whose actions
// it watches.
type fakeService struct {
	mu      sync.Mutex
	snap    service.Snapshot
	changes chan struct{}
	calls   chan string // "retry fs", "sign-in notion", "pause", "resume"
	// signInErr is what SignIn returns; the other actions succeed.
	signInErr error
}

func newFake(s service.Snapshot) *fakeService {
	return &fakeService{snap: s, changes: make(chan struct{}, 1), calls: make(chan string, 16)}
}

// set changes the snapshot and sends a change notice.
func (f *fakeService) set(s service.Snapshot) {
	f.mu.Lock()
	f.snap = s
	f.mu.Unlock()
	select {
	case f.changes <- struct{}{}:
	default:
	}
}

func (f *fakeService) Snapshot(ctx context.Context) (service.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap, nil
}

func (f *fakeService) Subscribe(ctx context.Context) (<-chan struct{}, error) {
	return f.changes, nil
}

func (f *fakeService) call(what string) error {
	f.calls <- what
	return nil
}

func (f *fakeService) Retry(ctx context.Context, name string) error { return f.call("retry " + name) }
func (f *fakeService) PauseAll(ctx context.Context) error           { return f.call("pause") }
func (f *fakeService) ResumeAll(ctx context.Context) error          { return f.call("resume") }

func (f *fakeService) SignIn(ctx context.Context, name string) error {
	f.calls <- "sign-in " + name
	return f.signInErr
}

// receive returns the next value from ch, or fails t at ctx's end.
func receive[T any](ctx context.Context, t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("waiting for %s: %v", what, ctx.Err())
		panic("unreachable")
	}
}

// started is a tray running in this process, with what a test watches.
type started struct {
	conn   *dbus.Conn
	item   string
	fake   *fakeService
	opened chan string
	quit   chan struct{}
	done   chan error
	notes  *traytest.Notifications
}

// start runs a tray for fake until the test ends, with a watcher and, when
// notify is true, a notification service; more change its options.
func start(ctx context.Context, t *testing.T, fake *fakeService, notify bool, more ...func(*Options)) *started {
	t.Helper()
	s := &started{
		conn:   traytest.Connect(t),
		fake:   fake,
		opened: make(chan string, 16),
		quit:   make(chan struct{}),
		done:   make(chan error, 1),
	}
	w := traytest.StartWatcher(ctx, t)
	if notify {
		s.notes = traytest.StartNotifications(ctx, t)
	}
	if err := Available(); err != nil {
		t.Fatalf("Available() = %v with a watcher", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	opts := Options{
		Logger:     slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
		OpenWindow: func(server string) { s.opened <- server },
		Quit:       func() { close(s.quit) },
		WindowOpen: func() bool { return false },
		Today:      func(context.Context) (service.ActivitySummary, error) { return today, nil },
	}
	for _, f := range more {
		f(&opts)
	}
	go func() { s.done <- Run(runCtx, fake, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-s.done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	var err error
	if s.item, err = traytest.ItemOf(ctx, s.conn, w, os.Getpid()); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitMenu waits until the tray shows Build(snap), with start's count of
// today's calls.
func (s *started) waitMenu(ctx context.Context, t *testing.T, snap service.Snapshot) []traytest.MenuItem {
	t.Helper()
	var want []string
	for _, it := range withToday(Build(snap), today).Items {
		want = append(want, it.Label)
	}
	menu, err := traytest.WaitMenu(ctx, s.conn, s.item, func(m []traytest.MenuItem) bool {
		return traytest.HasLabels(m, want...)
	})
	if err != nil {
		t.Fatalf("%v\nwant %q", err, want)
	}
	return menu
}

func (s *started) click(ctx context.Context, t *testing.T, label string) {
	t.Helper()
	if err := traytest.Click(ctx, s.conn, s.item, label); err != nil {
		t.Fatal(err)
	}
}

// tooltip reads the tray item's tooltip title.
func (s *started) tooltip(ctx context.Context, t *testing.T) string {
	t.Helper()
	name, path, _ := strings.Cut(s.item, "/")
	var v dbus.Variant
	err := s.conn.Object(name, dbus.ObjectPath("/"+path)).CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0,
		"org.kde.StatusNotifierItem", "ToolTip").Store(&v)
	if err != nil {
		t.Fatalf("reading the tooltip: %v", err)
	}
	fields, ok := v.Value().([]any)
	if !ok || len(fields) != 4 {
		t.Fatalf("the tooltip is %#v", v.Value())
	}
	title, _ := fields[2].(string)
	return title
}

func TestRun(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	first := snap(
		sv("github", service.Connected, ""),
		sv("fs", service.Failed, "npx is not installed"),
		sv("notion", service.NeedsAuth, "the token expired"),
	)
	fake := newFake(first)
	fake.signInErr = errors.New("the browser did not open")
	tr := start(ctx, t, fake, true)

	menu := tr.waitMenu(ctx, t, first)
	if summary := menu[0]; summary.Label != "1 connected · 1 needs sign-in · 1 failed" || summary.Enabled {
		t.Errorf("summary line = %+v, want a disabled \"1 connected · 1 needs sign-in · 1 failed\"", summary)
	}
	if line := menu[1]; line.Label != "Today: 7 calls from your AI apps; the guard held 2" || !line.Enabled {
		t.Errorf("the line under the summary = %+v, want today's count of calls and of those the guard held", line)
	}
	for _, label := range []string{"github — connected", "fs — failed: npx is not installed", "notion — needs sign-in", "Retry fs", "Sign in to notion…"} {
		if it, ok := traytest.Find(menu, label); !ok || !it.Enabled {
			t.Errorf("menu item %q: %+v, found %v; want it enabled", label, it, ok)
		}
	}
	if got, want := tr.tooltip(ctx, t), "mcptray: 1 connected · 1 needs sign-in · 1 failed"; got != want {
		t.Errorf("tooltip = %q, want %q", got, want)
	}

	// notion needs a sign-in: a notification, which opens the window there.
	shown, err := tr.notes.Wait(ctx, func(n []traytest.Notification) bool { return len(n) > 0 })
	if err != nil {
		t.Fatal(err)
	}
	if shown[0].Summary != "notion needs you to sign in" || !slices.Contains(shown[0].Actions, "default") {
		t.Errorf("notification = %+v, want one for notion with a default action", shown[0])
	}
	if err := tr.notes.Click(shown[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := receive(ctx, t, tr.opened, "the window to open"); got != "notion" {
		t.Errorf("clicking the notification opened the window at %q, want notion", got)
	}

	tr.click(ctx, t, "Retry fs")
	if got := receive(ctx, t, fake.calls, "Retry"); got != "retry fs" {
		t.Errorf("clicking Retry fs called %q", got)
	}
	tr.click(ctx, t, "github — connected")
	if got := receive(ctx, t, tr.opened, "the window to open"); got != "github" {
		t.Errorf("clicking github's line opened the window at %q, want github", got)
	}
	tr.click(ctx, t, "Open mcptray")
	if got := receive(ctx, t, tr.opened, "the window to open"); got != "" {
		t.Errorf("clicking Open mcptray opened the window at %q, want no server", got)
	}

	// A failed sign-in says so in a notification.
	tr.click(ctx, t, "Sign in to notion…")
	if got := receive(ctx, t, fake.calls, "SignIn"); got != "sign-in notion" {
		t.Errorf("clicking Sign in to notion… called %q", got)
	}
	shown, err = tr.notes.Wait(ctx, func(n []traytest.Notification) bool { return len(n) > 1 })
	if err != nil {
		t.Fatal(err)
	}
	if n := shown[1]; n.Summary != "Couldn't sign in to notion" || n.Body != "the browser did not open" {
		t.Errorf("notification = %+v, want one that says the sign-in failed", n)
	}

	// The service changes: the menu follows, and a new server waiting for
	// approval is notified (notion, still needing a sign-in, is not).
	second := snap(
		sv("github", service.Connected, ""),
		sv("fs", service.Connected, ""),
		sv("notion", service.NeedsAuth, "the token expired"),
		sv("local", service.AwaitingApproval, ""),
	)
	fake.set(second)
	tr.waitMenu(ctx, t, second)
	shown, err = tr.notes.Wait(ctx, func(n []traytest.Notification) bool { return len(n) > 2 })
	if err != nil {
		t.Fatal(err)
	}
	if n := shown[2]; n.Summary != "local is waiting for approval" {
		t.Errorf("notification = %+v, want one for local", n)
	}
	tr.click(ctx, t, "Review 1 server waiting for approval…")
	if got := receive(ctx, t, tr.opened, "the window to open"); got != "local" {
		t.Errorf("clicking Review… opened the window at %q, want local", got)
	}
	tr.click(ctx, t, "Pause all")
	if got := receive(ctx, t, fake.calls, "PauseAll"); got != "pause" {
		t.Errorf("clicking Pause all called %q", got)
	}

	paused := second
	paused.Paused = true
	fake.set(paused)
	tr.waitMenu(ctx, t, paused)
	tr.click(ctx, t, "Resume all")
	if got := receive(ctx, t, fake.calls, "ResumeAll"); got != "resume" {
		t.Errorf("clicking Resume all called %q", got)
	}

	tr.click(ctx, t, "Quit")
	receive(ctx, t, tr.quit, "Quit")
	if err := receive(ctx, t, tr.done, "Run to return"); err != nil {
		t.Errorf("Run after Quit: %v", err)
	}
	tr.done <- nil // for the cleanup
	if n := len(tr.notes.Shown()); n != 3 {
		t.Errorf("%d notifications, want 3", n)
	}
}

// TestRunStops checks that the tray goes away when its context ends and
// when the service does, without a notification service on the bus.
func TestRunStops(t *testing.T) {
	for _, tt := range []struct {
		name string
		stop func(cancel context.CancelFunc, fake *fakeService)
	}{
		{"context", func(cancel context.CancelFunc, _ *fakeService) { cancel() }},
		{"service", func(_ context.CancelFunc, fake *fakeService) { close(fake.changes) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !inSubprocess(t) {
				return
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			s := snap(sv("github", service.Connected, ""))
			fake := newFake(s)
			w := traytest.StartWatcher(ctx, t)
			c := traytest.Connect(t)
			runCtx, stop := context.WithCancel(ctx)
			defer stop()
			quit := false
			done := make(chan error, 1)
			go func() { done <- Run(runCtx, fake, Options{Quit: func() { quit = true }}) }()
			item, err := traytest.ItemOf(ctx, c, w, os.Getpid())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := traytest.WaitMenu(ctx, c, item, func(m []traytest.MenuItem) bool {
				_, ok := traytest.Find(m, "Quit")
				return ok
			}); err != nil {
				t.Fatal(err)
			}

			tt.stop(stop, fake)
			if err := receive(ctx, t, done, "Run to return"); err != nil {
				t.Errorf("Run: %v", err)
			}
			if quit {
				t.Error("Options.Quit was called, but nobody picked Quit")
			}
			if _, err := w.Wait(ctx, func(items []string) bool { return !slices.Contains(items, item) }); err != nil {
				t.Errorf("the tray item is still registered: %v", err)
			}
			if err := Run(ctx, fake, Options{}); err == nil {
				t.Error("a second Run in one process did not fail")
			}
		})
	}
}

func TestAvailable(t *testing.T) {
	traytest.NeedBus(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	traytest.StartWatcher(ctx, t)
	if err := Available(); err != nil {
		t.Errorf("Available() with a watcher = %v, want nil", err)
	}

	t.Run("no session bus", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
		t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
		err := Available()
		if err == nil || err.Error() != "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)" {
			t.Errorf("Available() = %v, want the session bus to be missing", err)
		}
	})
	t.Run("bus gone", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+t.TempDir()+"/no-bus")
		err := Available()
		if err == nil || !strings.HasPrefix(err.Error(), "no session bus: ") {
			t.Errorf("Available() = %v, want no session bus", err)
		}
	})
	t.Run("no host", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", emptyBus(ctx, t))
		if err := Available(); err == nil || !strings.HasPrefix(err.Error(), "no StatusNotifier host: ") {
			t.Errorf("Available() = %v, want no StatusNotifier host", err)
		}
	})
}

// emptyBus starts a session bus that nothing else is on, for as long as the
// test runs, and returns its address. It skips t without dbus-daemon.
func emptyBus(ctx context.Context, t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("no dbus-daemon to start an empty bus with")
	}
	cmd := exec.CommandContext(ctx, "dbus-daemon", "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the empty bus's address: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestNotifierWithoutService checks that notifications fail quietly, never
// failing or holding up the tray, where nobody shows them.
func TestNotifierWithoutService(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, tt := range []struct {
		name string
		bus  func(t *testing.T) string
	}{
		{"no bus", func(t *testing.T) string {
			t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
			return ""
		}},
		{"no notification service", func(t *testing.T) string { return emptyBus(ctx, t) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", tt.bus(t))
			var logged strings.Builder
			log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
			n := newNotifier(log, func(string) { t.Error("a click on nothing") })
			n.notify(ctx, Notice{Server: "github", Title: "github needs you to sign in", Body: "Click."})
			if err := n.close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if !strings.Contains(logged.String(), "level=DEBUG") || strings.Contains(logged.String(), "level=WARN") {
				t.Errorf("log = %q, want debug lines only", logged.String())
			}
		})
	}
}
