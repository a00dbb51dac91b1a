package host

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
)

// TestAtLoginLeavesRunningAlone: started at login while mcptray runs, it
// ends at once, asks the running one for nothing (no window opens) and
// says nothing.
func TestAtLoginLeavesRunningAlone(t *testing.T) {
	dir := t.TempDir()
	p := config.Paths{Home: dir, UserConfigDir: filepath.Join(dir, ".config"), RuntimeDir: filepath.Join(dir, "run")}
	ln, err := control.Listen(p) // the running one, which never answers
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code := Run(ctx, Options{Paths: p, AtLogin: true, Stdout: &out, Logger: slog.New(slog.DiscardHandler)})
	if code != 0 || out.Len() != 0 {
		t.Errorf("at login with mcptray running: exit %d, said %q; want 0 and nothing", code, out.String())
	}
	if ctx.Err() != nil {
		t.Error("it waited for the running mcptray")
	}
}

// TestWindowAtStart: the first launch opens the window, a launch at login
// never does and leaves the first launch for the person.
func TestWindowAtStart(t *testing.T) {
	dir := t.TempDir()
	p := config.Paths{Home: dir, UserConfigDir: filepath.Join(dir, ".config")}
	if windowAtStart(Options{Paths: p, AtLogin: true}) {
		t.Error("a launch at login opens the window")
	}
	if _, err := os.Stat(filepath.Join(p.Dir(), "launched")); err == nil {
		t.Error("a launch at login used up the first launch")
	}
	if !windowAtStart(Options{Paths: p}) {
		t.Error("the first launch does not open the window")
	}
	if windowAtStart(Options{Paths: p}) {
		t.Error("the second launch opens the window")
	}
}

// TestWaitForTray: a tray that comes up after mcptray is waited for; one
// that never does is given up on with its reason.
func TestWaitForTray(t *testing.T) {
	calls := 0
	late := func() error {
		calls++
		if calls < 3 {
			return errors.New("no StatusNotifier host")
		}
		return nil
	}
	if err := waitForTray(context.Background(), late, time.Minute, time.Millisecond); err != nil || calls != 3 {
		t.Errorf("a tray up at the third look: %v after %d looks", err, calls)
	}
	never := func() error { return errors.New("no StatusNotifier host") }
	if err := waitForTray(context.Background(), never, 20*time.Millisecond, time.Millisecond); err == nil || err.Error() != "no StatusNotifier host" {
		t.Errorf("no tray ever: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitForTray(ctx, never, time.Hour, time.Hour); err == nil {
		t.Error("quitting while waiting: no error")
	}
}

// TestStartedWhileInTheBackground: started while an mcptray without a tray
// or a window runs (mcptray serve, perhaps started by an app through
// mcptray stdio), mcptray says so in plain words and how to have it in the
// tray, and exits 1.
func TestStartedWhileInTheBackground(t *testing.T) {
	dir := t.TempDir()
	p := config.Paths{Home: dir, UserConfigDir: filepath.Join(dir, ".config"), RuntimeDir: filepath.Join(dir, "run")}
	// No window: mcptray serve.
	inst, err := instance.Listen(instance.Options{Service: service.Options{Paths: p, Store: secrettest.New()}})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := Run(ctx, Options{Paths: p, Stdout: &out, Stderr: &errs, Logger: slog.New(slog.DiscardHandler)})
	if code != 1 || out.Len() != 0 {
		t.Errorf("exit %d, said %q on stdout; want 1 and nothing", code, out.String())
	}
	for _, want := range []string{"already running in the background, without a tray or a window", "mcptray quit, then start mcptray again"} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("it said:\n%s\nwant it to say %q", errs.String(), want)
		}
	}
}
