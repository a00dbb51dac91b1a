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

// TestBundleOpensInRunning: a file manager opens a bundle with mcptray
// while mcptray runs: the running one's window is asked to open it (by
// its full path), and the second mcptray ends at once.
func TestBundleOpensInRunning(t *testing.T) {
	dir := t.TempDir()
	p := config.Paths{Home: dir, UserConfigDir: filepath.Join(dir, ".config"), RuntimeDir: filepath.Join(dir, "run")}
	opened := make(chan string, 1)
	inst, err := instance.Listen(instance.Options{Service: service.Options{Paths: p, Store: secrettest.New()}, Window: true,
		OpenWindow: func(string) error { return errors.New("the window was asked for a server") },
		OpenBundle: func(file string) error { opened <- file; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "Downloads", "weather.mcpb")
	var out, errs bytes.Buffer
	code := Run(ctx, Options{Paths: p, Bundle: file, Stdout: &out, Stderr: &errs, Logger: slog.New(slog.DiscardHandler)})
	if code != 0 || !strings.Contains(out.String(), "its window opens the bundle") {
		t.Errorf("exit %d, said %q and %q", code, out.String(), errs.String())
	}
	select {
	case got := <-opened:
		if got != file {
			t.Errorf("the running mcptray was asked to open %q, want %q", got, file)
		}
	default:
		t.Error("the running mcptray was not asked to open the bundle")
	}

	// A path that is not full is refused: the running mcptray reads it
	// from a folder of its own.
	cl, err := control.Dial(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.OpenBundle(ctx, "weather.mcpb"); err == nil || !strings.Contains(err.Error(), "full path") {
		t.Errorf("a relative path: %v", err)
	}
}

// TestBundleStartsMcptray: opened with a bundle while mcptray does not
// run, mcptray starts and opens its window at the bundle's install
// dialog (the window process gets --bundle FILE).
func TestBundleStartsMcptray(t *testing.T) {
	dir := t.TempDir()
	p := config.Paths{Home: dir, UserConfigDir: filepath.Join(dir, ".config"), RuntimeDir: filepath.Join(dir, "run")}
	args := filepath.Join(dir, "window-args")
	file := filepath.Join(dir, "weather.mcpb")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The window: a shell that writes down how it was started and ends,
	// which (with no tray) quits mcptray.
	window := []string{"/bin/sh", "-c", `printf '%s\n' "$@" >"$0"`, args}
	var out, errs bytes.Buffer
	code := Run(ctx, Options{Paths: p, Store: secrettest.New(), Bundle: file, Window: window,
		TrayAvailable: func() error { return errors.New("no StatusNotifier host") },
		Stdout:        &out, Stderr: &errs, Logger: slog.New(slog.DiscardHandler)})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	got, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "--bundle\n"+file+"\n") {
		t.Errorf("the window was started with %q; want --bundle %s", got, file)
	}
}
