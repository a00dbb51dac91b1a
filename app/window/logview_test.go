package window

import (
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/core/logfile"
)

// TestLogView: Settings' Show log… opens the log's newest lines, formatted
// and selectable; a line logged while it is open shows up; Open log folder
// opens the log's folder.
func TestLogView(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "mcptray.log")
	log, closeLog, err := logfile.NewLogger(path, slog.LevelInfo, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	log.Info("mcptray starts in the tray", "pid", 42)

	h := newHarness(t, sampleSnapshot(), Options{LogFile: path})
	var mu sync.Mutex
	var opened []string
	h.do(func() {
		h.v.openURL = func(u *url.URL) error {
			mu.Lock()
			defer mu.Unlock()
			opened = append(opened, u.String())
			return nil
		}
		test.Tap(h.v.settingsButton)
		show := findButton(h.win.Canvas().Overlays().Top(), "Show log…")
		if show == nil {
			t.Fatal("Settings has no Show log… button")
		}
		test.Tap(show)
	})
	h.waitEach("activity settings", "sandbox check", "log") // Settings reads its activity section and the last check
	h.do(func() {
		top := h.win.Canvas().Overlays().Top()
		if got := strings.Join(labels(top), "\n"); !strings.Contains(got, "INFO  mcptray starts in the tray pid=42") {
			t.Fatalf("Show log… shows:\n%s", got)
		}
		test.Tap(findButton(top, "Close"))
	})

	// Again, to reach its widgets.
	var l *logView
	h.v.do(func() { l = h.v.showLog() })
	h.wait("log")
	text := func() string {
		var s string
		h.v.do(func() { s = l.text.Text })
		return s
	}
	h.do(func() {
		if got := l.text.Text; !strings.Contains(got, " INFO  mcptray starts in the tray pid=42") || !l.text.Selectable {
			t.Errorf("the log view shows %q (selectable: %v)", got, l.text.Selectable)
		}
		if !strings.Contains(l.where.Text, path) {
			t.Errorf("the log view does not say where the log is: %q", l.where.Text)
		}
	})

	log.Warn("a server failed", "server", "files")
	h.wait("log")
	if got := text(); !strings.HasSuffix(got, " WARN  a server failed server=files") {
		t.Errorf("after a new line the log view shows %q", got)
	}

	h.tap(l.folder)
	mu.Lock()
	defer mu.Unlock()
	if want := fileURL(filepath.Dir(path)).String(); len(opened) != 1 || opened[0] != want {
		t.Errorf("Open log folder opened %q, want %s", opened, want)
	}
}

// TestLogViewNoLog: with no log yet the view says so, and shows the first
// lines once they are written.
func TestLogViewNoLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "mcptray.log")
	h := newHarness(t, sampleSnapshot(), Options{LogFile: path})
	var l *logView
	h.do(func() {
		l = h.v.showLog()
		if !strings.Contains(l.where.Text, "There is no log yet at "+path) {
			t.Errorf("with no log the view says %q", l.where.Text)
		}
	})
	log, closeLog, err := logfile.NewLogger(path, slog.LevelInfo, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	log.Info("mcptray starts in the tray")
	h.wait("log")
	h.v.do(func() {
		if !strings.Contains(l.text.Text, "mcptray starts in the tray") || !strings.HasPrefix(l.where.Text, "mcptray's log") {
			t.Errorf("once written, the view shows %q under %q", l.text.Text, l.where.Text)
		}
	})
}
