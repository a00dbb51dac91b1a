package conn

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestServerExitsMidCall: the caller gets an error, the server is failed,
// and it is restarted with backoff.
func TestServerExitsMidCall(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(stdioEntry("crashy"))); err != nil {
		t.Fatal(err)
	}
	first := waitState(t, m, "crashy", Connected)
	_, err := m.CallTool(context.Background(), "crashy", "crash", nil)
	if err == nil {
		t.Fatal("a call whose server died returned no error")
	}
	failed := waitState(t, m, "crashy", Failed)
	if !strings.Contains(failed.Status.Err, "exit") {
		t.Errorf("failed with %q; want it to say how the program exited", failed.Status.Err)
	}
	again := waitFor(t, m, "crashy", "a restart", func(i ServerInfo) bool {
		return i.Status.State == Connected && i.Status.Since.After(first.Status.Since)
	})
	if len(again.Tools) == 0 {
		t.Error("restarted without tools")
	}
}

func TestServerHangsOnInitialize(t *testing.T) {
	t.Parallel()
	opts := testOptions()
	opts.ConnectTimeout = 300 * time.Millisecond
	opts.MinBackoff = time.Hour // one failure is enough to look at
	m := newTestManager(t, opts)
	if err := m.Apply(setOf(stdioEntry("slow", "-hang-init"))); err != nil {
		t.Fatal(err)
	}
	got := waitState(t, m, "slow", Failed)
	if !strings.Contains(got.Status.Err, "did not answer within 300ms") {
		t.Errorf("failed with %q", got.Status.Err)
	}
}

func TestServerNeverAnswersACall(t *testing.T) {
	t.Parallel()
	opts := testOptions()
	opts.ToolCallTimeout = 300 * time.Millisecond
	m := newTestManager(t, opts)
	if err := m.Apply(setOf(stdioEntry("stuck", "-hang-tool", "stuck"))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "stuck", Connected)
	start := time.Now()
	_, err := m.CallTool(context.Background(), "stuck", "stuck", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call that is never answered: %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("the call took %v with a 300ms timeout", waited)
	}
	// A caller's own deadline counts too, and the server stays usable.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := m.CallTool(ctx, "stuck", "stuck", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("with the caller's deadline: %v", err)
	}
	// A caller's deadline later than the Manager's bound (the gateway's
	// calls end after DefaultToolCallTimeout) does not replace it.
	late, cancelLate := context.WithTimeout(context.Background(), DefaultToolCallTimeout)
	defer cancelLate()
	start = time.Now()
	if _, err := m.CallTool(late, "stuck", "stuck", nil); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("with a later deadline of the caller's: %v after %v", err, time.Since(start))
	}
	if _, err := m.CallTool(context.Background(), "stuck", "echo", json.RawMessage(`{"text":"still here"}`)); err != nil {
		t.Errorf("the server is unusable after a timed-out call: %v", err)
	}
}

func TestGarbageOnStdout(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(stdioEntry("noisy", "-garbage-stdout"))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "noisy", Connected)
	res, err := m.CallTool(context.Background(), "noisy", "echo", json.RawMessage(`{"text":"ok"}`))
	if err != nil || text(t, res) != "ok" {
		t.Errorf("echo through garbage: %v", err)
	}
}

func TestStderrFloodIsBounded(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(stdioEntry("chatty", "-stderr-flood", "20000000"))); err != nil {
		t.Fatal(err)
	}
	info := waitState(t, m, "chatty", Connected)
	if n := len(info.Stderr); n == 0 || n > 64<<10 {
		t.Errorf("stderr tail holds %d bytes; want some, at most 64 KiB", n)
	}
}
