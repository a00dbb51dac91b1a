package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scopeFiles writes one server under name into the file that scope reads
// in home h, with project folder dir registered.
func scopeFile(t *testing.T, h testHome, scope Scope, dir, servers string) {
	t.Helper()
	switch scope {
	case Enterprise:
		writeFile(t, h.paths.Enterprise, `{"mcpServers": `+servers+`}`)
	case User:
		h.userFile(t, servers, dir)
	case Imported:
		writeFile(t, filepath.Join(h.paths.Home, ".cursor", "mcp.json"), `{"mcpServers": `+servers+`}`)
	case Local:
		writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": `+servers+`}`)
	case Project:
		writeFile(t, filepath.Join(dir, ".vscode", "mcp.json"), `{"servers": `+servers+`}`)
	case Managed:
		writeFile(t, filepath.Join(h.paths.PluginsDir(), "shared-plugin", ".mcp.json"), `{"mcpServers": `+servers+`}`)
	default:
		t.Fatalf("no file for scope %s", scope)
	}
}

// TestScopePrecedence puts one server (one signature) in every scope from
// some scope down, under a different name in each: the most trusted scope
// present must run it and every other copy must say it gave way to it.
func TestScopePrecedence(t *testing.T) {
	t.Parallel()
	const shared = `{"command": "npx", "args": ["-y", "shared-mcp"]}`
	for first := range Scopes() {
		present := Scopes()[first:]
		t.Run("from "+present[0].String(), func(t *testing.T) {
			t.Parallel()
			h := newTestHome(t)
			dir := h.folder(t, "app")
			h.userFile(t, "", dir) // registers the folder even without user servers
			l := h.loader(nil)
			for _, s := range present {
				name := "from-" + s.String()
				if s == Dynamic {
					l.Dynamic = []Server{{Name: name, ConfigName: name, Transport: Stdio, Command: "npx", Args: []string{"-y", "shared-mcp"}}}
					continue
				}
				scopeFile(t, h, s, dir, fmt.Sprintf(`{%q: %s}`, name, shared))
			}
			set := l.Load()
			if len(set.Problems) > 0 {
				t.Fatalf("problems:%s", problemText(set.Problems))
			}
			winner := "from-" + present[0].String()
			if len(set.Servers) != 1 || set.Servers[0].Name != winner || set.Servers[0].Scope != present[0] {
				t.Fatalf("servers %q, want only %q", names(set.Servers), winner)
			}
			if got := len(set.Suppressed); got != len(present)-1 {
				t.Fatalf("suppressed %q, want %d", names(set.Suppressed), len(present)-1)
			}
			for i, e := range set.Suppressed {
				if e.Scope != present[i+1] {
					t.Errorf("suppressed[%d] is from %s, want %s (most trusted first)", i, e.Scope, present[i+1])
				}
				if e.SuppressedBy != winner || !strings.Contains(e.Suppressed, `same server as "`+winner+`"`) ||
					!strings.Contains(e.Suppressed, present[0].String()+" scope") || e.Runnable() {
					t.Errorf("%s: SuppressedBy %q, reason %q; want it to give way to %q", e.Name, e.SuppressedBy, e.Suppressed, winner)
				}
				if e.Signature != set.Servers[0].Signature {
					t.Errorf("%s: signature %s differs from the winner's %s", e.Name, e.Signature, set.Servers[0].Signature)
				}
			}
		})
	}
}

// TestNameCollisions: different servers under one name are all kept; the
// most trusted keeps the plain name and the others are numbered, the same
// way on every load.
func TestNameCollisions(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	dir := h.folder(t, "app")
	scopeFile(t, h, Enterprise, dir, `{"docs": {"command": "corp-docs"}}`)
	scopeFile(t, h, User, dir, `{"docs": {"command": "my-docs"}, "notes": {"command": "notes"}}`)
	scopeFile(t, h, Imported, dir, `{"docs": {"url": "https://docs.example/mcp"}, "docs-2": {"command": "literal"}}`)
	scopeFile(t, h, Local, dir, `{"docs": {"command": "./docs"}, "notes": {"command": "other-notes"}}`)
	scopeFile(t, h, Managed, dir, `{"docs": {"command": "${CLAUDE_PLUGIN_ROOT}/docs"}}`)
	writeFile(t, filepath.Join(h.paths.PluginsDir(), "b-plugin", ".mcp.json"), `{"mcpServers": {"docs": {"command": "b"}}}`)
	writeFile(t, filepath.Join(h.paths.PluginsDir(), "a-plugin", ".mcp.json"), `{"mcpServers": {"docs": {"command": "a"}}}`)
	want := []struct{ name, command, url string }{
		{"docs", "corp-docs", ""},
		{"docs-2", "my-docs", ""},
		{"notes", "notes", ""},
		{"docs-3", "", "https://docs.example/mcp"},
		{"docs-2-2", "literal", ""},
		{"docs-4", "./docs", ""},
		{"notes-2", "other-notes", ""},
		{"docs-5", "a", ""}, // plugins in folder-name order
		{"docs-6", "b", ""},
		{"docs-7", filepath.Join(h.paths.PluginsDir(), "shared-plugin", "docs"), ""},
	}
	l := h.loader(nil)
	first := l.Load()
	for try := 0; try < 5; try++ {
		set := l.Load()
		if len(set.Problems) > 0 || len(set.Suppressed) > 0 {
			t.Fatalf("problems:%s\nsuppressed %q", problemText(set.Problems), names(set.Suppressed))
		}
		if len(set.Servers) != len(want) {
			t.Fatalf("servers %q", names(set.Servers))
		}
		for i, w := range want {
			e := set.Servers[i]
			if e.Name != w.name || e.Command != w.command || e.URL != w.url {
				t.Errorf("load %d: server %d = %q (%q %q), want %q (%q %q)", try, i, e.Name, e.Command, e.URL, w.name, w.command, w.url)
			}
			if e.Name != e.ConfigName && !strings.HasPrefix(e.Name, e.ConfigName+"-") {
				t.Errorf("%q renamed from %q", e.Name, e.ConfigName)
			}
		}
		if d := Diff(first, set); !d.Empty() {
			t.Errorf("load %d differs from the first: %+v", try, d)
		}
	}
}

func TestSetFind(t *testing.T) {
	t.Parallel()
	set := merge([]Server{
		{Name: "docs", ConfigName: "docs", Scope: User, Transport: Stdio, Command: "a"},
		{Name: "docs", ConfigName: "docs", Scope: Imported, Transport: Stdio, Command: "b"},
		{Name: "wiki", ConfigName: "wiki", Scope: Imported, Transport: Stdio, Command: "c"},
		{Name: "tool", ConfigName: "tool", Scope: Imported, Transport: Stdio, Command: "d"},
		{Name: "tool", ConfigName: "tool", Scope: Local, Transport: Stdio, Command: "e"},
		{Name: "tool-2", ConfigName: "tool-2", Scope: Local, Transport: Stdio, Command: "f"},
	}, nil, nil)
	tests := []struct {
		name, wantCommand string
	}{
		{"docs", "a"},
		{"docs-2", "b"},
		{"wiki", "c"},
		{"tool-2", "e"}, // the renamed server, not the one written as tool-2
		{"tool-2-2", "f"},
		{"nope", ""},
	}
	for _, tt := range tests {
		e, ok := set.Find(tt.name)
		if ok != (tt.wantCommand != "") || ok && e.Command != tt.wantCommand {
			t.Errorf("Find(%q) = %v, %v; want command %q", tt.name, e, ok, tt.wantCommand)
		}
	}
	// By the name in its file, only when that name is unambiguous.
	set2 := merge([]Server{
		{Name: "a", ConfigName: "a", Scope: User, Transport: Stdio, Command: "a"},
		{Name: "x", ConfigName: "same", Scope: User, Transport: Stdio, Command: "b"},
		{Name: "y", ConfigName: "same", Scope: User, Transport: Stdio, Command: "c"},
		{Name: "z", ConfigName: "once", Scope: User, Transport: Stdio, Command: "d"},
	}, nil, nil)
	if e, ok := set2.Find("once"); !ok || e.Command != "d" {
		t.Errorf("Find(once) = %v, %v", e, ok)
	}
	if e, ok := set2.Find("same"); ok {
		t.Errorf("Find(same) = %v, want none: two servers are called that", e)
	}
}

func TestEntryRunnable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    Entry
		want bool
	}{
		{Entry{Approval: NotNeeded}, true},
		{Entry{Approval: Approved}, true},
		{Entry{Approval: Undecided}, false},
		{Entry{Approval: Denied}, false},
		{Entry{Approval: NotNeeded, Suppressed: "blocked"}, false},
		{Entry{Approval: Undecided, Suppressed: "blocked"}, false},
		{Entry{Approval: Approved, Server: Server{Disabled: true}}, false},
		{Entry{Approval: Undecided, Server: Server{Disabled: true}}, false},
	}
	for _, tt := range tests {
		if got := tt.e.Runnable(); got != tt.want {
			t.Errorf("%+v.Runnable() = %v", tt.e, got)
		}
	}
}

// TestMergeCopies: a Set must not share slices or maps with what it was
// built from, or a later reload could change what a front end holds.
func TestMergeCopies(t *testing.T) {
	t.Parallel()
	in := []Server{{Name: "a", ConfigName: "a", Scope: User, Transport: Stdio, Command: "a",
		Args: []string{"x"}, Env: map[string]string{"K": "v"}, OAuth: &OAuth{Scopes: []string{"s"}}}}
	set := merge(in, nil, nil)
	in[0].Args[0], in[0].Env["K"], in[0].OAuth.Scopes[0] = "changed", "changed", "changed"
	got := set.Servers[0]
	if !reflect.DeepEqual(got.Args, []string{"x"}) || got.Env["K"] != "v" || got.OAuth.Scopes[0] != "s" {
		t.Errorf("the Set follows its input: %+v", got.Server)
	}
}

// TestBuiltinNameIsKept: a configured server called like mcptray's own
// built-in server is renamed, as any name clash is, so it is neither
// started and shadowed nor able to pass for the built-in one.
func TestBuiltinNameIsKept(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	writeFile(t, h.paths.UserFile(), `{"mcpServers": {"mcptray": {"command": "impostor"}}}`)
	set := h.loader(nil).Load()
	if len(set.Servers) != 1 || set.Servers[0].Name != "mcptray-2" || set.Servers[0].ConfigName != "mcptray" {
		t.Errorf("servers = %+v; want the configured one as mcptray-2", set.Servers)
	}
}
