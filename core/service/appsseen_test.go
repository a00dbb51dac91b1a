package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAppsSeenAfterRestart: when a connected app last used the gateway,
// and how many tools it was given, outlive mcptray; apps the gateway does
// not recognise are not kept.
func TestAppsSeenAfterRestart(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeJSON(filepath.Join(h.dir, ".claude.json"), map[string]any{"mcpServers": map[string]any{
		"mcptray": map[string]any{"command": "/opt/bin/mcptray", "args": []string{"stdio"}}}})
	h.writeJSON(filepath.Join(h.dir, ".cursor", "mcp.json"), map[string]any{"mcpServers": map[string]any{
		"mcptray": map[string]any{"command": "/opt/bin/mcptray", "args": []string{"stdio"}}}})
	used := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	clock := func(at time.Time) func(*Options) {
		return func(o *Options) { o.Now = func() time.Time { return at }; o.Only = []string{} }
	}
	ctx := context.Background()

	first := h.start(false, clock(used))
	var mu sync.Mutex
	sessions := []AppSession{
		{Client: "claude-code", App: "Claude Code", Face: "stdio", Started: used.Add(-time.Hour), LastSeen: used.Add(-time.Hour), Listed: true, Tools: 12},
		{Client: "my-script", Face: "http", Started: used, LastSeen: used, Listed: true, Tools: 3},
	}
	saved := make(chan struct{}, 1)
	first.apps.mu.Lock()
	first.apps.seen.saved = func() {
		select {
		case saved <- struct{}{}:
		default:
		}
	}
	first.apps.mu.Unlock()
	changed := first.FollowApps(func() []AppSession { mu.Lock(); defer mu.Unlock(); return sessions })
	changed() // Claude Code arrived: the first news is written at once
	select {
	case <-saved:
	case <-time.After(deadline):
		t.Fatal("an app's arrival was not kept")
	}
	file := h.paths.AppsSeenFile()
	if got, err := readAppsSeen(file); err != nil || !got["claude-code"].LastSeen.Equal(used.Add(-time.Hour)) {
		t.Fatalf("kept on arrival: %+v, %v", got, err)
	}
	// Claude Code is seen again, and starts a session that has not asked
	// for the tools: it keeps the count it was given.
	mu.Lock()
	sessions = append(sessions, AppSession{Client: "claude-code", App: "Claude Code", Face: "stdio", Started: used, LastSeen: used})
	mu.Unlock()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "my-script") || !strings.Contains(string(b), `"claude-code"`) {
		t.Errorf("the file keeps the apps the gateway recognises, by their key:\n%s", b)
	}

	later := h.start(false, clock(used.Add(3*time.Hour+10*time.Minute)))
	cc, err := later.app(ctx, "Claude Code")
	if err != nil {
		t.Fatal(err)
	}
	if !cc.LastSeen.Equal(used) || cc.LastTools != 12 || cc.State != AppIdle || cc.Status != "connected — last used 3 hours ago, when it saw 12 tools" {
		t.Errorf("Claude Code after a restart: %+v", cc)
	}
	if cur, err := later.app(ctx, "Cursor"); err != nil || !cur.LastSeen.IsZero() || cur.Status != "connected — not used since mcptray started" {
		t.Errorf("Cursor, never seen: %+v, %v", cur, err)
	}
}

// TestAppsSeenDamaged: a damaged file is forgotten, not fatal, and written
// anew.
func TestAppsSeenDamaged(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeJSON(filepath.Join(h.dir, ".claude.json"), map[string]any{"mcpServers": map[string]any{
		"mcptray": map[string]any{"command": "/opt/bin/mcptray", "args": []string{"stdio"}}}})
	if err := os.MkdirAll(h.paths.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.paths.AppsSeenFile(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	s := h.start(false, func(o *Options) { o.Now = func() time.Time { return now }; o.Only = []string{} })
	cc, err := s.app(context.Background(), "Claude Code")
	if err != nil || cc.Status != "connected — not used since mcptray started" {
		t.Fatalf("Claude Code with a damaged file: %+v, %v", cc, err)
	}
	s.FollowApps(func() []AppSession {
		return []AppSession{{Client: "claude-code", App: "Claude Code", LastSeen: now.Add(-time.Minute)}}
	})
	s.Close()
	got, err := readAppsSeen(h.paths.AppsSeenFile())
	if err != nil || !got["claude-code"].LastSeen.Equal(now.Add(-time.Minute)) {
		t.Errorf("written anew: %+v, %v", got, err)
	}
}

// appsSeenFile is the file's form.
type appsSeenFile struct {
	Version int                `json:"version"`
	Apps    map[string]appSeen `json:"apps"`
}

// TestAppsSeenBounded: the file keeps the most recently seen apps only.
func TestAppsSeenBounded(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	s := h.start(false, func(o *Options) { o.Only = []string{} })
	var sessions []AppSession
	for i := range maxAppsSeen + 10 {
		sessions = append(sessions, AppSession{App: fmt.Sprintf("App %d", i), LastSeen: now.Add(time.Duration(i) * time.Minute)})
	}
	s.FollowApps(func() []AppSession { return sessions })
	s.Close()
	b, err := os.ReadFile(h.paths.AppsSeenFile())
	if err != nil {
		t.Fatal(err)
	}
	var f appsSeenFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Apps) != maxAppsSeen {
		t.Fatalf("%d apps kept, want %d", len(f.Apps), maxAppsSeen)
	}
	if _, ok := f.Apps["app-0"]; ok {
		t.Error("the app seen longest ago was kept")
	}
	if _, ok := f.Apps[fmt.Sprintf("app-%d", maxAppsSeen+9)]; !ok {
		t.Error("the app seen last was not kept")
	}
}
