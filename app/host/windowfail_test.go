//go:build unix

package host

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/control"
)

// told is what a windows' tell was asked to show.
type told struct{ title, text string }

// windowRunning starts the window command script (run by /bin/sh), as the
// tray starts the window, with no tray (closing it quits): its tells
// arrive on the first channel, and its quit on the second once the
// window's end is dealt with.
func windowRunning(t *testing.T, script string) (*windows, <-chan told, <-chan struct{}) {
	t.Helper()
	tells := make(chan told, 4)
	quit := make(chan struct{})
	w := &windows{
		cmd:     []string{"/bin/sh", "-c", script},
		log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		tell:    func(title, text string) { tells <- told{title, text} },
		logFile: filepath.Join(t.TempDir(), "window.log"),
		stderr:  io.Discard,
	}
	w.noTrayQuits("no StatusNotifier host", func() { close(quit) })
	if err := w.show(control.WindowRequest{}); err != nil {
		t.Fatalf("starting the window: %v", err)
	}
	return w, tells, quit
}

// waitTold returns what the person was told, failing the test when
// nothing is within the deadline.
func waitTold(t *testing.T, tells <-chan told) told {
	t.Helper()
	select {
	case m := <-tells:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("the person was told nothing")
		return told{}
	}
}

// TestWindowThatCannotOpenSaysWhy: a window that cannot open (no OpenGL
// 2.1) says why on its stderr and ends; the person is shown those words,
// without the prefix that marks them, and where the window's log is.
func TestWindowThatCannotOpenSaysWhy(t *testing.T) {
	t.Parallel()
	w, tells, _ := windowRunning(t, `echo "time=x level=WARN msg=noise" >&2
echo "mcptray window: it needs OpenGL 2.1, which this computer's graphics driver does not offer." >&2
echo "mcptray window: To fix it: install the driver of your graphics card's maker." >&2
exit 3`)
	m := waitTold(t, tells)
	if m.title != "mcptray's window could not open" {
		t.Errorf("title %q", m.title)
	}
	for _, want := range []string{
		"It needs OpenGL 2.1, which this computer's graphics driver does not offer.\nTo fix it: install",
		"There is no tray", w.logFile,
	} {
		if !strings.Contains(m.text, want) {
			t.Errorf("the words lack %q:\n%s", want, m.text)
		}
	}
	if strings.Contains(m.text, "mcptray window:") || strings.Contains(m.text, "noise") {
		t.Errorf("the words carry the window's markers or noise:\n%s", m.text)
	}
}

// TestWindowCrashIsTold: a window that crashes (a Go panic, its stack on
// stderr) is reported by its first line, not its stack.
func TestWindowCrashIsTold(t *testing.T) {
	t.Parallel()
	_, tells, _ := windowRunning(t, `echo "panic: runtime error: invalid memory address or nil pointer dereference" >&2
echo "goroutine 1 [running]:" >&2
exit 2`)
	m := waitTold(t, tells)
	if m.title != "mcptray's window stopped" {
		t.Errorf("title %q", m.title)
	}
	if !strings.Contains(m.text, "It ended unexpectedly: panic: runtime error: invalid memory address") || strings.Contains(m.text, "goroutine") {
		t.Errorf("the words:\n%s", m.text)
	}
}

// TestWindowClosedIsNotTold: a window the person closes ends with 0,
// which is no failure: nothing is shown, and mcptray without a tray quits.
func TestWindowClosedIsNotTold(t *testing.T) {
	t.Parallel()
	_, tells, quit := windowRunning(t, `echo "time=x level=WARN msg=noise" >&2; exit 0`)
	select {
	case <-quit:
	case <-time.After(10 * time.Second):
		t.Fatal("the window's end was not seen")
	}
	select {
	case m := <-tells:
		t.Errorf("a closed window was reported: %+v", m)
	default:
	}
}

// TestWindowEndedByTrayIsNotTold: the window the tray ends as it quits
// (killed, so its exit is an error) is not reported as a failure.
func TestWindowEndedByTrayIsNotTold(t *testing.T) {
	t.Parallel()
	w, tells, _ := windowRunning(t, `echo started >&2; exec sleep 60`)
	w.close()
	select {
	case m := <-tells:
		t.Errorf("the window the tray ended was reported: %+v", m)
	default:
	}
}

// TestWindowOutputKeepsItsBeginning: what the window writes is passed on
// whole, and only its beginning kept, however much it writes.
func TestWindowOutputKeepsItsBeginning(t *testing.T) {
	t.Parallel()
	var passed strings.Builder
	o := &windowOutput{to: &passed}
	first := "panic: first\n"
	_, _ = o.Write([]byte(first))
	for range 100 {
		_, _ = o.Write([]byte(strings.Repeat("x", 1000)))
	}
	if got := o.String(); len(got) != keepOutput || !strings.HasPrefix(got, first) {
		t.Errorf("kept %d bytes beginning %q", len(got), got[:min(20, len(got))])
	}
	if passed.Len() != len(first)+100*1000 {
		t.Errorf("passed on %d bytes", passed.Len())
	}
}
