package service

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/service/apps"
)

// TestAppsStates: an app's state follows its config, when this mcptray
// connected it (by the service's clock) and the gateway's sessions.
func TestAppsStates(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeJSON(filepath.Join(h.dir, ".config", "mcptray", "config.json"), map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{"command": "files-mcp", "disabled": true}}})
	h.writeJSON(filepath.Join(h.dir, ".claude.json"), map[string]any{"mcpServers": map[string]any{
		"mcptray":  map[string]any{"command": "/opt/bin/mcptray", "args": []string{"stdio"}},
		"my-files": map[string]any{"command": "files-mcp"},
		"notes":    map[string]any{"command": "notes-mcp", "disabled": true}}})
	var mu sync.Mutex // the service reads the clock and the sessions on its goroutines
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	var sessions []AppSession
	var roster *apps.Roster // the gateway's sessions, as core/instance gives them
	s := h.start(false, func(o *Options) {
		o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		o.GatewayCommand = "/opt/bin/mcptray"
		o.Only = []string{}
		roster = apps.New(apps.Options{Paths: o.Paths, Now: o.Now, Sessions: func() []AppSession { mu.Lock(); defer mu.Unlock(); return sessions }})
		o.Apps = roster
	})
	changed := roster.Changed
	ctx := context.Background()
	app := func(name string) App {
		t.Helper()
		a, err := s.app(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	cc := app("Claude Code")
	if !cc.Found || !cc.Connected || cc.State != AppIdle || !strings.Contains(cc.Hint, "If Claude Code is open, quit Claude Code fully") {
		t.Errorf("Claude Code, connected before mcptray started: %+v", cc)
	}
	if len(cc.Movable) != 1 || cc.Movable[0].Name != "my-files" || cc.Movable[0].RunsAs != "files" {
		t.Errorf("Claude Code's movable servers: %+v", cc.Movable)
	}
	if _, err := s.ConnectApp(ctx, ConnectRequest{App: "claude-code", Move: []string{"notes"}}); err == nil || CodeOf(err) != NotAllowed {
		t.Errorf("moving a server mcptray runs from nowhere else: %v", err)
	}
	if _, err := s.ConnectApp(ctx, ConnectRequest{App: "notepad"}); CodeOf(err) != NotFound {
		t.Errorf("connecting an unknown app: %v", err)
	}

	res, err := s.ConnectApp(ctx, ConnectRequest{App: "claude-code", Move: []string{"my-files"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.App.State != AppWaiting || len(res.App.Movable) != 0 || len(res.Moved) != 1 {
		t.Errorf("just connected, my-files moved: %+v", res)
	}
	advance(ArrivalWindow - time.Second)
	if a := app("Claude Code"); a.State != AppWaiting {
		t.Errorf("just under two minutes: %+v", a)
	}
	advance(2 * time.Second)
	if a := app("Claude Code"); a.State != AppNotArrived || !strings.Contains(a.Status, "has not started it in 2 minutes") {
		t.Errorf("two minutes: %+v", a)
	}

	mu.Lock()
	sessions = []AppSession{
		{Client: "claude-code", App: "Claude Code", Face: "stdio", Started: now, LastSeen: now, Listed: true, Tools: 45},
		{Client: "cursor-vscode", App: "Cursor", Face: "stdio", Started: now, LastSeen: now, Listed: true, Tools: 45, ToolLimit: 40, ToolWarning: "Cursor sees 45 tools"},
		{Client: "my-script", Face: "http", Started: now, LastSeen: now},
	}
	mu.Unlock()
	notices, _ := s.Subscribe(ctx)
	changed()
	select {
	case <-notices:
	case <-time.After(deadline):
		t.Fatal("no change notice when the sessions changed")
	}
	if a := app("Claude Code"); a.State != AppInUse || a.Status != "in use — sees 45 tools" || a.ToolWarning != "" {
		t.Errorf("Claude Code in use: %+v", a)
	}
	if a := app("Cursor"); a.State != AppInUse || a.Connected || a.ToolWarning == "" || !strings.Contains(a.Hint, "until you quit it fully") {
		t.Errorf("Cursor in use through a config of its own, near its limit: %+v", a)
	}
	if a := app("my-script"); a.Key != "" || a.State != AppInUse || a.Status != "in use — has not asked for the tools yet" {
		t.Errorf("an app mcptray knows only from its session: %+v", a)
	}
}

// TestGatewayToken: the first ask makes the gateway's token and keeps it in
// the keychain; every later ask, and asks made at once, get that one.
func TestGatewayToken(t *testing.T) {
	h := newHome(t)
	s := h.start(false)
	ctx := context.Background()
	toks := make(chan string, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			tok, err := s.GatewayToken(ctx)
			if err != nil {
				t.Error(err)
			}
			toks <- tok
		})
	}
	wg.Wait()
	close(toks)
	first := <-toks
	for tok := range toks {
		if tok != first {
			t.Fatalf("asks made at once got %q and %q", first, tok)
		}
	}
	if len(first) < 40 {
		t.Errorf("token %q: want a long one", first)
	}
	kept, err := h.store.Get(ctx, gatewayTokenKey)
	if err != nil || string(kept) != first {
		t.Errorf("the keychain holds %q, %v; want the token", kept, err)
	}
	if again, _ := s.GatewayToken(ctx); again != first {
		t.Errorf("a later ask got %q, want %q", again, first)
	}
}
