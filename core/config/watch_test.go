package config

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	testDebounce = 20 * time.Millisecond
	// updateDeadline is generous: a loaded machine running -race can be
	// slow, and a test that passes waits only as long as it must.
	updateDeadline = 5 * time.Second
)

// update is a Set the watcher sent, and what changed against the one it
// sent before (or the first Load), as conn.Manager.Apply will find.
type update struct {
	Set     *Set
	Changes Changes
}

// watching starts l.Watch from a fresh Load and stops it when the test ends,
// checking that the channel closes.
func watching(t *testing.T, l *Loader) (<-chan update, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	first := l.Load()
	sets, err := l.Watch(ctx, slog.New(slog.DiscardHandler), first, testDebounce)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	updates := make(chan update)
	go func() {
		defer close(updates)
		last := first
		for set := range sets {
			updates <- update{Set: set, Changes: Diff(last, set)}
			last = set
		}
	}()
	t.Cleanup(func() {
		cancel()
		waitClosed(t, updates)
	})
	return updates, cancel
}

func waitClosed[T any](t *testing.T, updates <-chan T) {
	t.Helper()
	deadline := time.After(updateDeadline)
	for {
		select {
		case _, ok := <-updates:
			if !ok {
				return
			}
		case <-deadline:
			t.Error("the updates channel did not close after cancel")
			return
		}
	}
}

// next waits for the next update.
func next(t *testing.T, updates <-chan update, waitingFor string) update {
	t.Helper()
	select {
	case u, ok := <-updates:
		if !ok {
			t.Fatalf("the updates channel closed while waiting for %s", waitingFor)
		}
		return u
	case <-time.After(updateDeadline):
		t.Fatalf("no update within %v while waiting for %s", updateDeadline, waitingFor)
	}
	return update{}
}

// waitFor takes updates until one whose Set satisfies ok.
func waitFor(t *testing.T, updates <-chan update, what string, ok func(*Set) bool) update {
	t.Helper()
	for {
		if u := next(t, updates, what); ok(u.Set) {
			return u
		}
	}
}

// expectChanges waits for the next update and checks what it changed.
func expectChanges(t *testing.T, updates <-chan update, added, removed, changed []string) update {
	t.Helper()
	u := next(t, updates, "a change")
	for _, x := range []struct {
		what      string
		got, want []string
	}{{"added", names(u.Changes.Added), added}, {"removed", names(u.Changes.Removed), removed}, {"changed", names(u.Changes.Changed), changed}} {
		if len(x.got)+len(x.want) > 0 && !reflect.DeepEqual(x.got, x.want) {
			t.Fatalf("update %s %q, want %q (problems:%s)", x.what, x.got, x.want, problemText(u.Set.Problems))
		}
	}
	if len(u.Set.Problems) > 0 {
		t.Fatalf("update has problems:%s", problemText(u.Set.Problems))
	}
	return u
}

// replace writes path the way editors and mcptray do, so that a reload
// sees the old file or the new one and never an empty one.
func replace(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		// t.TempDir may sit on another file system: fall back to the folder.
		tmp = path + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWatch(t *testing.T) {
	t.Parallel()

	t.Run("add, change and delete a project's .mcp.json", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		dir := h.folder(t, "app")
		h.userFile(t, "", dir)
		updates, _ := watching(t, h.loader(nil))
		mcp := filepath.Join(dir, ".mcp.json")

		replace(t, mcp, `{"mcpServers": {"tool": {"command": "node", "args": ["v1.js"]}}}`)
		u := expectChanges(t, updates, []string{"tool"}, nil, nil)
		if e := u.Changes.Added[0]; e.Args[0] != "v1.js" || e.Approval != Undecided {
			t.Errorf("added %+v", e)
		}

		replace(t, mcp, `{"mcpServers": {"tool": {"command": "node", "args": ["v2.js"]}}}`)
		u = expectChanges(t, updates, nil, nil, []string{"tool"})
		if e := u.Changes.Changed[0]; e.Args[0] != "v2.js" {
			t.Errorf("changed to %+v", e)
		}

		if err := os.Remove(mcp); err != nil {
			t.Fatal(err)
		}
		u = expectChanges(t, updates, nil, []string{"tool"}, nil)
		if len(u.Set.Servers) != 0 || u.Changes.Removed[0].Args[0] != "v2.js" {
			t.Errorf("after removal: %+v", u)
		}
	})

	t.Run("a config whose folder did not exist", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		updates, _ := watching(t, h.loader(nil))
		cursor := filepath.Join(h.paths.Home, ".cursor", "mcp.json")

		replace(t, cursor, `{"mcpServers": {"linear": {"url": "https://mcp.linear.app/mcp"}}}`)
		u := expectChanges(t, updates, []string{"linear"}, nil, nil)
		if e := u.Changes.Added[0]; e.Scope != Imported || e.Origin.File != cursor {
			t.Errorf("added %+v", e)
		}
		// The new folder is watched from now on.
		replace(t, cursor, `{"mcpServers": {"linear": {"url": "https://mcp.linear.app/sse", "type": "sse"}}}`)
		u = expectChanges(t, updates, nil, nil, []string{"linear"})
		if e := u.Changes.Changed[0]; e.Transport != SSE {
			t.Errorf("changed to %+v", e)
		}
	})

	t.Run("a config several folders deep appears", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		updates, _ := watching(t, h.loader(nil))
		vscode := filepath.Join(h.paths.UserConfigDir, "Code", "User", "mcp.json")
		replace(t, vscode, `{"servers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}`)
		expectChanges(t, updates, []string{"gh"}, nil, nil)
		replace(t, vscode, `{"servers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}, "more": {"command": "m"}}}`)
		expectChanges(t, updates, []string{"more"}, nil, nil)
	})

	t.Run("quick writes end in the last state", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		dir := h.folder(t, "app")
		h.userFile(t, "", dir)
		updates, _ := watching(t, h.loader(nil))
		mcp := filepath.Join(dir, ".mcp.json")
		const n = 10
		for i := range n {
			replace(t, mcp, `{"mcpServers": {"tool": {"command": "v`+string(rune('0'+i))+`"}}}`)
		}
		last := -1
		for last != n-1 {
			u := next(t, updates, "the last write")
			if len(u.Set.Servers) != 1 || len(u.Set.Problems) > 0 {
				t.Fatalf("an update in between: servers %q, problems:%s", names(u.Set.Servers), problemText(u.Set.Problems))
			}
			v := int(u.Set.Servers[0].Command[1] - '0')
			if v < last {
				t.Fatalf("went back from v%d to v%d", last, v)
			}
			last = v
		}
	})

	t.Run("an approval is seen", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		dir := h.folder(t, "app")
		h.userFile(t, "", dir)
		writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"tool": {"command": "node"}}}`)
		l := h.loader(nil)
		updates, _ := watching(t, l)
		e := entryNamed(t, l.Load(), "tool")
		if err := l.Approvals.Record(e.ApprovalKey, Decision{Approval: Approved, Name: e.Name}); err != nil {
			t.Fatal(err)
		}
		u := expectChanges(t, updates, nil, nil, []string{"tool"})
		if got := u.Changes.Changed[0]; got.Approval != Approved || !got.Runnable() {
			t.Errorf("after approval: %s", got.Approval)
		}
	})

	t.Run("a folder added to the user file, then a config in it", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		dir := h.folder(t, "app")
		writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"first": {"command": "f"}}}`)
		updates, _ := watching(t, h.loader(nil))
		err := ModifyUserFile(h.paths.UserFile(), func(u *UserFile) error {
			u.Folders = append(u.Folders, dir)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		u := expectChanges(t, updates, []string{"first"}, nil, nil)
		if !reflect.DeepEqual(u.Set.Folders, []string{dir}) {
			t.Errorf("folders %q", u.Set.Folders)
		}
		replace(t, filepath.Join(dir, ".vscode", "mcp.json"), `{"servers": {"second": {"command": "s"}}}`)
		expectChanges(t, updates, []string{"second"}, nil, nil)
	})

	t.Run("a folder added, loaded at once by whoever wrote it, then its config changed", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		dir := h.folder(t, "app")
		mcp := filepath.Join(dir, ".mcp.json")
		writeFile(t, mcp, `{"mcpServers": {"first": {"command": "f"}}}`)
		l := h.loader(nil)
		skipped := make(chan struct{}, 10)
		l.Skipped = func() { skipped <- struct{}{} }
		updates, _ := watching(t, l)
		err := ModifyUserFile(h.paths.UserFile(), func(u *UserFile) error {
			u.Folders = append(u.Folders, dir)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// As the service does after its own write: the watcher then
		// finds every file as this load left it, and loads nothing.
		if e := entryNamed(t, l.Load(), "first"); e.Command != "f" {
			t.Fatalf("first runs %q", e.Command)
		}
		select {
		case <-skipped:
		case <-updates:
			// A slow machine: the watcher loaded the write itself
			// before the load above.
		case <-time.After(updateDeadline):
			t.Fatal("the watcher never looked at the write")
		}
		replace(t, mcp, `{"mcpServers": {"first": {"command": "f2"}, "second": {"command": "s"}}}`)
		u := waitFor(t, updates, "the folder's change", func(s *Set) bool { _, ok := s.Find("second"); return ok })
		if e := entryNamed(t, u.Set, "first"); e.Command != "f2" || e.Approval != Undecided {
			t.Errorf("first is %q, %s", e.Command, e.Approval)
		}
	})

	// Every scope's file may appear after mcptray started: an app
	// installed, a first server added in it, a policy rolled out.
	for _, c := range []struct {
		scope, rel, content string
		want                Scope
	}{
		{"Claude Desktop", ".config/Claude/claude_desktop_config.json", `{"mcpServers": {"s": {"command": "s"}}}`, Imported},
		{"Claude Code", ".claude.json", `{"mcpServers": {"s": {"command": "s"}}}`, Imported},
		{"Cursor", ".cursor/mcp.json", `{"mcpServers": {"s": {"command": "s"}}}`, Imported},
		{"VS Code", ".config/Code/User/mcp.json", `{"servers": {"s": {"command": "s"}}}`, Imported},
		{"mcptray's own", ".config/mcptray/config.json", `{"mcpServers": {"s": {"command": "s"}}}`, User},
		{"enterprise", "", `{"mcpServers": {"s": {"command": "s"}}}`, Enterprise},
		{"a plugin's", "", `{"mcpServers": {"s": {"command": "s"}}}`, Managed},
	} {
		t.Run(c.scope+" config made after start", func(t *testing.T) {
			t.Parallel()
			h := newTestHome(t)
			path := filepath.Join(h.paths.Home, c.rel)
			switch c.want {
			case User:
				path = h.paths.UserFile()
			case Enterprise:
				path = h.paths.Enterprise
			case Managed:
				path = filepath.Join(h.paths.PluginsDir(), "p", ".mcp.json")
			}
			updates, _ := watching(t, h.loader(nil))
			replace(t, path, c.content)
			u := expectChanges(t, updates, []string{"s"}, nil, nil)
			if e := u.Changes.Added[0]; e.Scope != c.want {
				t.Errorf("added %+v", e)
			}
		})
	}

	t.Run("a config linked from the person's dotfiles, edited there", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		target := filepath.Join(h.root, "dotfiles", "claude.json")
		writeFile(t, target, `{"mcpServers": {"a": {"command": "a"}}}`)
		link := filepath.Join(h.paths.Home, ".claude.json")
		if err := os.Symlink(target, link); err != nil {
			t.Skip("no symlinks here:", err)
		}
		updates, _ := watching(t, h.loader(nil))
		// In place, as some editors write.
		if err := os.WriteFile(target, []byte(`{"mcpServers": {"a": {"command": "a2"}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		u := expectChanges(t, updates, nil, nil, []string{"a"})
		if e := u.Changes.Changed[0]; e.Command != "a2" || e.Origin.File != link {
			t.Errorf("changed to %+v", e)
		}
		// By a rename, as others do.
		replace(t, target, `{"mcpServers": {"a": {"command": "a2"}, "b": {"command": "b"}}}`)
		expectChanges(t, updates, []string{"b"}, nil, nil)
		// The link pointed elsewhere: that file is followed now.
		other := filepath.Join(h.root, "dotfiles2", "claude.json")
		writeFile(t, other, `{"mcpServers": {"c": {"command": "c"}}}`)
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(other, link); err != nil {
			t.Fatal(err)
		}
		waitFor(t, updates, "the other file's server", func(s *Set) bool { _, ok := s.Find("c"); return ok })
		replace(t, other, `{"mcpServers": {"c": {"command": "c2"}}}`)
		u = expectChanges(t, updates, nil, nil, []string{"c"})
		if e := u.Changes.Changed[0]; e.Command != "c2" {
			t.Errorf("changed to %+v", e)
		}
	})

	t.Run("a config linked to a file beside it, in a home reached through a link", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		// The home's folder under a second name, as /home on some
		// systems, or /var on macOS: the link's target resolves to the
		// same folder under its other name.
		h.paths.Home = filepath.Join(h.root, "linked-home")
		h.paths.UserConfigDir = filepath.Join(h.paths.Home, ".config")
		if err := os.Symlink(filepath.Join(h.root, "home"), h.paths.Home); err != nil {
			t.Skip("no symlinks here:", err)
		}
		writeFile(t, filepath.Join(h.paths.Home, ".claude-real.json"), `{"mcpServers": {"a": {"command": "a"}}}`)
		if err := os.Symlink(".claude-real.json", filepath.Join(h.paths.Home, ".claude.json")); err != nil {
			t.Fatal(err)
		}
		updates, _ := watching(t, h.loader(nil))
		replace(t, filepath.Join(h.paths.Home, ".claude-real.json"), `{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}`)
		expectChanges(t, updates, []string{"b"}, nil, nil)
		// The home is still followed under its own name.
		replace(t, filepath.Join(h.paths.Home, ".cursor", "mcp.json"), `{"mcpServers": {"c": {"command": "c"}}}`)
		expectChanges(t, updates, []string{"c"}, nil, nil)
	})

	t.Run("a plugin is installed", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		h.userFile(t, "")
		updates, _ := watching(t, h.loader(nil))
		replace(t, filepath.Join(h.paths.PluginsDir(), "notes", ".mcp.json"), `{"mcpServers": {"notes": {"command": "${CLAUDE_PLUGIN_ROOT}/n"}}}`)
		u := expectChanges(t, updates, []string{"notes"}, nil, nil)
		if e := u.Changes.Added[0]; e.Scope != Managed || !strings.HasSuffix(e.Command, "/plugins/notes/n") {
			t.Errorf("added %+v", e)
		}
	})

	t.Run("a broken file is reported, then its fix", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		cursor := filepath.Join(h.paths.Home, ".cursor", "mcp.json")
		writeFile(t, cursor, `{"mcpServers": {"a": {"command": "a"}}}`)
		updates, _ := watching(t, h.loader(nil))
		replace(t, cursor, `{"mcpServers": {"a": {"command": "a"}`)
		u := next(t, updates, "the problem")
		if len(u.Set.Problems) != 1 || u.Set.Problems[0].File != cursor || len(u.Changes.Removed) != 1 {
			t.Fatalf("update %+v, problems:%s", u.Changes, problemText(u.Set.Problems))
		}
		replace(t, cursor, `{"mcpServers": {"a": {"command": "a"}}}`)
		expectChanges(t, updates, []string{"a"}, nil, nil)
	})

	t.Run("a folder deleted and made again is still watched", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		dir := h.folder(t, "app")
		h.userFile(t, "", dir)
		vscodeDir := filepath.Join(dir, ".vscode")
		writeFile(t, filepath.Join(vscodeDir, "mcp.json"), `{"servers": {"vs": {"command": "v1"}}}`)
		updates, _ := watching(t, h.loader(nil))

		// As a git checkout does: gone and back before any reload.
		if err := os.RemoveAll(vscodeDir); err != nil {
			t.Fatal(err)
		}
		replace(t, filepath.Join(vscodeDir, "mcp.json"), `{"servers": {"vs": {"command": "v2"}}}`)
		// A slow machine may reload in between and see it gone; either
		// way it must end up watching the new folder.
		waitFor(t, updates, "vs to run v2", func(s *Set) bool { e, ok := s.Find("vs"); return ok && e.Command == "v2" })
		replace(t, filepath.Join(vscodeDir, "mcp.json"), `{"servers": {"vs": {"command": "v3"}}}`)
		u := expectChanges(t, updates, nil, nil, []string{"vs"})
		if u.Changes.Changed[0].Command != "v3" {
			t.Errorf("changed to %q", u.Changes.Changed[0].Command)
		}
	})

	t.Run("cancel closes the channel", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		updates, cancel := watching(t, h.loader(nil))
		cancel()
		waitClosed(t, updates)
	})

	t.Run("cancel right after a change, with nobody reading", func(t *testing.T) {
		t.Parallel()
		h := newTestHome(t)
		dir := h.folder(t, "app")
		h.userFile(t, "", dir)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		l := h.loader(nil)
		updates, err := l.Watch(ctx, slog.New(slog.DiscardHandler), l.Load(), testDebounce)
		if err != nil {
			t.Fatal(err)
		}
		replace(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"x": {"command": "x"}}}`)
		// Nobody reads: the watcher must stop whether or not it has
		// reloaded yet.
		cancel()
		waitClosed(t, updates)
	})
}
