package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

const deadline = 20 * time.Second

// home is a person's home with its apps' configs.
type home struct {
	t     *testing.T
	dir   string
	paths config.Paths
}

func newHome(t *testing.T) *home {
	t.Helper()
	dir := t.TempDir()
	paths, err := config.NewPaths("linux", func(k string) (string, bool) {
		if k == "HOME" {
			return dir, true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	return &home{t: t, dir: dir, paths: paths}
}

// writeJSON writes v as JSON to path under the home.
func (h *home) writeJSON(path string, v any) {
	h.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// run runs r's writer, as the service does from Start to Close; stop ends
// it and waits until its last write is done.
func run(r *Roster) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	return func() { cancel(); <-done }
}

// find is the app called name in r's list.
func find(t *testing.T, r *Roster, name string) App {
	t.Helper()
	list := r.List(&config.Set{})
	i := slices.IndexFunc(list, func(a App) bool { return a.Name == name })
	if i < 0 {
		t.Fatalf("no app called %q in %+v", name, list)
	}
	return list[i]
}

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
	clock := func(at time.Time) func() time.Time { return func() time.Time { return at } }

	var mu sync.Mutex
	sessions := []Session{
		{Client: "claude-code", App: "Claude Code", Face: "stdio", Started: used.Add(-time.Hour), LastSeen: used.Add(-time.Hour), Listed: true, Tools: 12},
		{Client: "my-script", Face: "http", Started: used, LastSeen: used, Listed: true, Tools: 3},
	}
	first := New(Options{Paths: h.paths, Now: clock(used), Sessions: func() []Session { mu.Lock(); defer mu.Unlock(); return slices.Clone(sessions) }})
	saved := make(chan struct{}, 1)
	first.mu.Lock()
	first.seen.saved = func() {
		select {
		case saved <- struct{}{}:
		default:
		}
	}
	first.mu.Unlock()
	stop := run(first)
	first.Changed() // Claude Code arrived: the first news is written at once
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
	sessions = append(sessions, Session{Client: "claude-code", App: "Claude Code", Face: "stdio", Started: used, LastSeen: used})
	mu.Unlock()
	stop()

	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "my-script") || !strings.Contains(string(b), `"claude-code"`) {
		t.Errorf("the file keeps the apps the gateway recognises, by their key:\n%s", b)
	}

	later := New(Options{Paths: h.paths, Now: clock(used.Add(3*time.Hour + 10*time.Minute))})
	if cc := find(t, later, "Claude Code"); !cc.LastSeen.Equal(used) || cc.LastTools != 12 || cc.State != Idle || cc.Status != "connected — last used 3 hours ago, when it saw 12 tools" {
		t.Errorf("Claude Code after a restart: %+v", cc)
	}
	if cur := find(t, later, "Cursor"); !cur.LastSeen.IsZero() || cur.Status != "connected — not used since mcptray started" {
		t.Errorf("Cursor, never seen: %+v", cur)
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
	var mu sync.Mutex
	var sessions []Session // none until Claude Code arrives
	r := New(Options{Paths: h.paths, Now: func() time.Time { return now }, Sessions: func() []Session { mu.Lock(); defer mu.Unlock(); return sessions }})
	stop := run(r)
	if cc := find(t, r, "Claude Code"); cc.Status != "connected — not used since mcptray started" {
		t.Fatalf("Claude Code with a damaged file: %+v", cc)
	}
	mu.Lock()
	sessions = []Session{{Client: "claude-code", App: "Claude Code", LastSeen: now.Add(-time.Minute)}}
	mu.Unlock()
	r.Changed()
	stop()
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
	var sessions []Session
	for i := range maxAppsSeen + 10 {
		sessions = append(sessions, Session{App: fmt.Sprintf("App %d", i), LastSeen: now.Add(time.Duration(i) * time.Minute)})
	}
	r := New(Options{Paths: h.paths, Sessions: func() []Session { return sessions }})
	run(r)()
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

// TestAppsSeenByTheGivenName: a session that came with the name mcptray
// gave its app counts for that app, even with another app's clientInfo:
// the writer calling itself Cursor neither makes Cursor in use nor is
// kept as Cursor seen.
func TestAppsSeenByTheGivenName(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeJSON(filepath.Join(h.dir, ".cursor", "mcp.json"), map[string]any{"mcpServers": map[string]any{
		"mcptray": map[string]any{"command": "/opt/bin/mcptray", "args": []string{"stdio", "--app", "cursor"}}}})
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	sessions := []Session{{Client: "cursor-vscode", App: "Cursor", Named: "writer", Face: "stdio", Started: now, LastSeen: now}}
	r := New(Options{Paths: h.paths, Now: func() time.Time { return now }, Sessions: func() []Session { return sessions }})
	if cur := find(t, r, "Cursor"); cur.State == InUse || len(cur.Sessions) != 0 || !cur.LastSeen.IsZero() {
		t.Errorf("Cursor, claimed by the writer: %+v", cur)
	}
	if w := find(t, r, "writer"); w.State != InUse || len(w.Sessions) != 1 {
		t.Errorf("the writer: %+v", w)
	}
	if seen := seenOf(sessions); len(seen) != 1 || seen["writer"].LastSeen.IsZero() {
		t.Errorf("kept as seen: %+v", seen)
	}
}
