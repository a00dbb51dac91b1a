package conn

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/test/mcpserver"
)

func TestTidy(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"transport error: failed to send request: failed to send request: Post \"http://x/mcp\": EOF": `failed to send request: Post "http://x/mcp": EOF`,
		"transport error: transport closed": "transport closed",
		"exited with status 3":              "exited with status 3",
	} {
		if got := tidy(in); got != want {
			t.Errorf("tidy(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCallErrorsInPlainWords: a cancelled call says "cancelled", and a call
// to a server that went away says so without mcp-go's wrapping twice over;
// errors.Is still finds what happened.
func TestCallErrorsInPlainWords(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(server.NewStreamableHTTPServer(mcpserver.New(mcpserver.Options{})))
	t.Cleanup(srv.Close)
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(remoteEntry("gone", srv.URL+"/mcp", config.HTTP))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "gone", Connected)

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as Ctrl-C does
	_, err := m.CallTool(ctx, "gone", "echo", json.RawMessage(`{"text":"x"}`))
	if err == nil || err.Error() != "calling echo on gone: cancelled" || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call: %v; want \"calling echo on gone: cancelled\"", err)
	}

	srv.CloseClientConnections()
	srv.Close()
	_, err = m.CallTool(context.Background(), "gone", "echo", json.RawMessage(`{"text":"x"}`))
	if err == nil {
		t.Fatal("a call to a server that is gone succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, "transport error") || strings.Count(msg, "failed to send request") > 1 {
		t.Errorf("a call to a server that is gone: %q; want it without mcp-go's wrapping", msg)
	}
	t.Logf("a call to a server that is gone: %v", err)
}

// TestWaitSettledSaysWhoIsStarting: WaitSettled that runs out of time says
// which server was still starting and for how long it waited, not "context
// deadline exceeded".
func TestWaitSettledSaysWhoIsStarting(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(stdioEntry("hang", "-hang-init"))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := m.WaitSettled(ctx)
	if err == nil || !regexp.MustCompile(`^hang did not finish starting within \d+ms$`).MatchString(err.Error()) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitSettled = %v; want \"hang did not finish starting within 300ms\"", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if err := m.WaitSettled(ctx); err == nil || err.Error() != "cancelled" {
		t.Errorf("WaitSettled, cancelled = %v; want \"cancelled\"", err)
	}
}
