package logfile

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRotationKeepsNewest: writing past the size limit again and again
// keeps the newest lines, in at most MaxBackups+1 files, and Tail reads
// them back across the rotated files in order.
func TestRotationKeepsNewest(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "logs", "mcptray.log")
	w, err := Open(path, Options{MaxSizeMB: 1, MaxBackups: 2})
	if err != nil {
		t.Fatal(err)
	}
	// 1000-byte lines: 1048 fit in a megabyte, so 5000 lines rotate four
	// times and the two oldest rotated files are removed: 2904 lines are
	// left.
	const lines = 5000
	pad := strings.Repeat("x", 1000-len("line 0000 \n"))
	for i := range lines {
		if _, err := fmt.Fprintf(w, "line %04d %s\n", i, pad); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the log folder: %v, mode %v; want 0700", err, st.Mode().Perm())
	}
	// The rotated files are removed by a goroutine of lumberjack's: wait
	// for it.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for len(backups(path)) > 2 && time.Now().Before(deadline) {
		<-tick.C
	}
	if b := backups(path); len(b) != 2 {
		t.Fatalf("%d rotated files, want 2: %v", len(b), b)
	}

	got, err := Tail(path, 2500)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2500 {
		t.Fatalf("Tail(2500) read %d lines", len(got))
	}
	for i, l := range got {
		if want := fmt.Sprintf("line %04d ", lines-2500+i); !strings.HasPrefix(l, want) {
			t.Fatalf("line %d of the tail is %.20q…, want %q…", i, l, want)
		}
	}
	all, _ := Tail(path, -1)
	if first := all[0][:9]; first == "line 0000" || len(all) >= lines {
		t.Errorf("all %d lines are kept (the first is %q): nothing was dropped", len(all), first)
	}
	if !strings.HasPrefix(all[len(all)-1], fmt.Sprintf("line %04d", lines-1)) {
		t.Errorf("the newest line is %.20q…", all[len(all)-1])
	}
}

// TestTailAbsent: a log that was never written has no lines, and no error.
func TestTailAbsent(t *testing.T) {
	t.Parallel()
	got, err := Tail(filepath.Join(t.TempDir(), "none.log"), 10)
	if err != nil || len(got) != 0 {
		t.Errorf("Tail of a missing log: %q, %v", got, err)
	}
}

// TestFollow: Follow gives the newest lines, then a line written after it
// started, then lines written after the log was rotated, and ends with
// its context.
func TestFollow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray.log")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 100)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, path, 2, 10*time.Millisecond, func(ls []string) {
			for _, l := range ls {
				got <- l
			}
		})
	}()
	expect := func(want ...string) {
		t.Helper()
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		for _, w := range want {
			select {
			case l := <-got:
				if l != w {
					t.Fatalf("Follow gave %q, want %q", l, w)
				}
			case <-timer.C:
				t.Fatalf("waited 10s for %q", w)
			}
		}
	}
	expect("two", "three")

	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "four\nfi")
	expect("four")
	fmt.Fprint(f, "ve\n")
	f.Close()
	expect("five")

	// Rotate as lumberjack does: rename, then a new file.
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lj := w.(interface{ Rotate() error })
	if err := lj.Rotate(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(w, "six")
	expect("six")
	w.Close()

	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("Follow ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Follow did not end with its context")
	}
}

// TestFollowAbsent: Follow waits for a log that does not exist yet.
func TestFollowAbsent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray.log")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 10)
	go Follow(ctx, path, 10, 10*time.Millisecond, func(ls []string) {
		for _, l := range ls {
			got <- l
		}
	})
	if err := os.WriteFile(path, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-got:
		if l != "hello" {
			t.Errorf("Follow gave %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Follow gave nothing once the log appeared")
	}
}

// TestFormat: a JSON slog line reads as time, level, message and its
// attributes in order; anything else comes through as one clean line.
func TestFormat(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	log := slog.New(slog.NewJSONHandler(&b, nil))
	log.WithGroup("srv").Info("server connected", "name", "files", "tools", 3, "why", "it said \"hi\"\nthere")
	line := strings.TrimSpace(b.String())
	got := Format(line)
	if !strings.Contains(got, ` INFO  server connected srv.name=files srv.tools=3 srv.why="it said \"hi\"\nthere"`) {
		t.Errorf("Format(%s)\n = %s", line, got)
	}
	if _, err := time.ParseInLocation("2006-01-02 15:04:05", got[:19], time.Local); err != nil {
		t.Errorf("the line does not start with the time: %q", got)
	}
	for in, want := range map[string]string{
		"plain words":             "plain words",
		"--- started\x1b[2J here": "--- started[2J here",
		`{"not":"a record"}`:      `{"not":"a record"}`,
	} {
		if got := Format(in); got != want {
			t.Errorf("Format(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNewLogger: records at the level and above reach the file as JSON
// lines, and every record reaches the other handler by its own level.
func TestNewLogger(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "logs", "mcptray.log")
	var other strings.Builder
	log, closeLog, err := NewLogger(path, slog.LevelInfo, slog.NewTextHandler(&other, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("not kept")
	log.Info("kept", "n", 1, "in", 1500*time.Millisecond)
	log.Warn("everywhere")
	if err := closeLog(); err != nil {
		t.Fatal(err)
	}
	lines, err := Tail(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || !strings.Contains(lines[0], `"msg":"kept","n":1,"in":"1.5s"`) || !strings.Contains(lines[1], `"msg":"everywhere"`) {
		t.Errorf("the file holds %q", lines)
	}
	if o := other.String(); strings.Contains(o, "kept") || !strings.Contains(o, "everywhere") {
		t.Errorf("the other handler got %q", o)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the log file: %v, want mode 0600", err)
	}
}
