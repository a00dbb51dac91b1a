package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/logfile"
)

// writeLog writes n records to h's log as mcptray serve does.
func (h *home) writeLog(from, n int) {
	h.t.Helper()
	log, closeLog, err := logfile.NewLogger(h.paths.LogFile(), slog.LevelInfo, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := from; i < from+n; i++ {
		log.Info("server connected", "name", fmt.Sprintf("s%03d", i))
	}
	if err := closeLog(); err != nil {
		h.t.Fatal(err)
	}
}

// TestLogs: mcptray logs says where the log is, prints its newest lines
// (100, or -n) formatted for people, and says so when there is none.
func TestLogs(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	out := h.must("logs")
	if !strings.Contains(out, "There is no log yet at ~/.local/state/mcptray/logs/mcptray.log") {
		t.Errorf("logs with no log: %q", out)
	}
	if err := os.MkdirAll(filepath.Dir(h.paths.LogFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.paths.LogFile(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := h.must("logs"); !strings.Contains(out, "is empty") {
		t.Errorf("logs with an empty log: %q", out)
	}

	h.writeLog(0, 150)
	out = h.must("logs")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 101 || lines[0] != "Log: ~/.local/state/mcptray/logs/mcptray.log" {
		t.Fatalf("logs printed %d lines, starting %q; want where the log is and 100 lines", len(lines), lines[0])
	}
	if l := lines[1]; !strings.HasSuffix(l, " INFO  server connected name=s050") {
		t.Errorf("the first line shown is %q; want s050's, formatted", l)
	}
	if l := lines[100]; !strings.HasSuffix(l, "name=s149") {
		t.Errorf("the last line shown is %q; want s149's", l)
	}
	out = h.must("logs", "-n", "2")
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 3 || !strings.HasSuffix(lines[1], "name=s148") {
		t.Errorf("logs -n 2: %q", out)
	}
	h.fails(2, "-n takes a number", "logs", "-n", "-3")
	h.fails(2, "no arguments", "logs", "extra")
}

// TestLogsFollow: mcptray logs -f prints the newest lines, then a line
// written after it started, until it is stopped.
func TestLogsFollow(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeLog(0, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := Run(ctx, []string{"logs", "-f", "-n", "1"}, Env{
			Stdout: w, Stderr: w, Paths: &h.paths, Store: h.store,
			Lookup: func(string) (string, bool) { return "", false },
		})
		w.Close()
		done <- code
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timer := time.NewTimer(20 * time.Second)
	defer timer.Stop()
	expect := func(want string) {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("logs -f ended before printing %q", want)
				}
				if strings.HasSuffix(l, want) {
					return
				}
				if strings.Contains(l, "name=s000") || strings.Contains(l, "name=s001") {
					t.Errorf("logs -f -n 1 printed an older line: %q", l)
				}
			case <-timer.C:
				t.Fatalf("waited 20s for logs -f to print %q", want)
			}
		}
	}
	expect("name=s002")
	h.writeLog(3, 1)
	expect("name=s003")
	cancel()
	for range lines {
	}
	if code := <-done; code != 0 {
		t.Errorf("logs -f stopped with exit code %d, want 0", code)
	}
}
