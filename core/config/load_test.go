package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestLoadEveryApp puts a config in every place mcptray reads and checks
// where each server lands.
func TestLoadEveryApp(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	shop := h.folder(t, "shop")
	writeFile(t, h.paths.Enterprise, `{"mcpServers": {"corp": {"command": "corp"}}}`)
	h.userFile(t, `{"mine": {"command": "mine"}}`, shop)
	writeFile(t, filepath.Join(h.paths.UserConfigDir, "Claude", "claude_desktop_config.json"), `{"mcpServers": {"desktop": {"command": "d"}}}`)
	writeFile(t, filepath.Join(h.paths.Home, ".claude.json"), `{
  "mcpServers": {"cc-user": {"command": "cc"}},
  "projects": {"`+shop+`": {"mcpServers": {"cc-project": {"command": "ccp", "env": {"D": "${workspaceFolder}"}}}}}
}`)
	writeFile(t, filepath.Join(h.paths.Home, ".cursor", "mcp.json"), `{"mcpServers": {"cursor": {"url": "https://cursor.example/mcp"}}}`)
	writeFile(t, filepath.Join(h.paths.UserConfigDir, "Code", "User", "mcp.json"), `{"servers": {"vscode": {"type": "sse", "url": "https://vs.example/sse"}}, // c
}`)
	writeFile(t, filepath.Join(shop, ".mcp.json"), `{"mcpServers": {"local": {"command": "l"}}}`)
	writeFile(t, filepath.Join(shop, ".vscode", "mcp.json"), `{"servers": {"vsproj": {"command": "${workspaceFolder}/v"}}}`)
	writeFile(t, filepath.Join(shop, ".cursor", "mcp.json"), `{"mcpServers": {"cursorproj": {"command": "c"}}}`)
	plugin := filepath.Join(h.paths.PluginsDir(), "notes")
	writeFile(t, filepath.Join(plugin, ".mcp.json"), `{"mcpServers": {"plugin": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/p"}}}`)
	writeFile(t, filepath.Join(h.paths.PluginsDir(), "stray-file.json"), `{"mcpServers": {"stray": {"command": "x"}}}`)

	l := h.loader(nil)
	l.Dynamic = []Server{{Name: "dyn", ConfigName: "dyn", Scope: User, Transport: Stdio, Command: "dyn"}}
	set := l.Load()
	if len(set.Problems) > 0 {
		t.Fatalf("problems:%s", problemText(set.Problems))
	}
	want := []struct {
		name     string
		scope    Scope
		app      string
		file     string
		folder   string
		approval Approval
	}{
		{"corp", Enterprise, "your organisation", h.paths.Enterprise, "", NotNeeded},
		{"mine", User, "mcptray", h.paths.UserFile(), "", NotNeeded},
		{"desktop", Imported, "Claude Desktop", filepath.Join(h.paths.UserConfigDir, "Claude", "claude_desktop_config.json"), "", NotNeeded},
		{"cc-user", Imported, "Claude Code", filepath.Join(h.paths.Home, ".claude.json"), "", NotNeeded},
		{"cc-project", Imported, "Claude Code", filepath.Join(h.paths.Home, ".claude.json"), shop, NotNeeded},
		{"cursor", Imported, "Cursor", filepath.Join(h.paths.Home, ".cursor", "mcp.json"), "", NotNeeded},
		{"vscode", Imported, "VS Code", filepath.Join(h.paths.UserConfigDir, "Code", "User", "mcp.json"), "", NotNeeded},
		{"dyn", Dynamic, "", "", "", NotNeeded},
		{"local", Local, ".mcp.json", filepath.Join(shop, ".mcp.json"), shop, Undecided},
		{"vsproj", Project, "VS Code project", filepath.Join(shop, ".vscode", "mcp.json"), shop, Undecided},
		{"cursorproj", Project, "Cursor project", filepath.Join(shop, ".cursor", "mcp.json"), shop, Undecided},
		{"plugin", Managed, "plugin notes", filepath.Join(plugin, ".mcp.json"), "", NotNeeded},
	}
	if len(set.Servers) != len(want) {
		t.Fatalf("servers %q", names(set.Servers))
	}
	for i, w := range want {
		e := set.Servers[i]
		if e.Name != w.name || e.Scope != w.scope || e.Origin.App != w.app || e.Origin.File != w.file || e.Origin.Folder != w.folder || e.Approval != w.approval {
			t.Errorf("server %d = %q %s %q %q folder %q %s\nwant %q %s %q %q folder %q %s", i,
				e.Name, e.Scope, e.Origin.App, e.Origin.File, e.Origin.Folder, e.Approval,
				w.name, w.scope, w.app, w.file, w.folder, w.approval)
		}
	}
	if e := entryNamed(t, set, "cc-project"); e.Cwd != shop || e.Env["D"] != shop {
		t.Errorf("Claude Code project server: cwd %q, env %q; want the project %q", e.Cwd, e.Env, shop)
	}
	if e := entryNamed(t, set, "vsproj"); e.Command != shop+"/v" || e.Cwd != shop {
		t.Errorf("VS Code project server: command %q cwd %q", e.Command, e.Cwd)
	}
	if e := entryNamed(t, set, "plugin"); e.Command != plugin+"/bin/p" || e.Cwd != plugin {
		t.Errorf("plugin server: command %q cwd %q; want under %q", e.Command, e.Cwd, plugin)
	}
	if !reflect.DeepEqual(set.Folders, []string{shop}) {
		t.Errorf("folders %q", set.Folders)
	}

	files := l.Files(set)
	for _, f := range []string{
		h.paths.Enterprise, h.paths.UserFile(), h.paths.ApprovalsFile(),
		filepath.Join(h.paths.Home, ".claude.json"), filepath.Join(shop, ".mcp.json"),
		filepath.Join(shop, ".vscode", "mcp.json"), h.paths.PluginsDir(), filepath.Join(plugin, ".mcp.json"),
	} {
		if !slices.Contains(files, f) {
			t.Errorf("Files does not list %s", f)
		}
	}
}

// TestLoadSurvivesBrokenFiles: every broken file is one problem, and every
// other file still loads.
func TestLoadSurvivesBrokenFiles(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	good, dirAsFile, badJSON := h.folder(t, "good"), h.folder(t, "dir"), h.folder(t, "bad")
	h.userFile(t, `{"mine": {"command": "mine"}}`, good, dirAsFile, badJSON)
	writeFile(t, filepath.Join(h.paths.UserConfigDir, "Claude", "claude_desktop_config.json"), "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"x\"\n  }\n")
	writeFile(t, filepath.Join(h.paths.Home, ".cursor", "mcp.json"), `{"mcpServers": {"cursor": {"command": "c"}}}`)
	writeFile(t, filepath.Join(h.paths.UserConfigDir, "Code", "User", "mcp.json"), `{"servers": {"ok": {"command": "ok"}, "broken": {"command": "b", "args": "--x"}}}`)
	claude := filepath.Join(h.paths.Home, ".claude.json")
	writeFile(t, claude, `{"mcpServers": {}}`)
	if err := os.Truncate(claude, MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(good, ".mcp.json"), `{"mcpServers": {"good": {"command": "g"}}}`)
	if err := os.MkdirAll(filepath.Join(dirAsFile, ".mcp.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(badJSON, ".mcp.json"), `["mcpServers"]`)
	writeFile(t, filepath.Join(badJSON, ".vscode", "mcp.json"), `{"servers": {"vs": {"command": "vs"}}}`)

	set := h.loader(nil).Load()
	if want := []string{"mine", "cursor", "ok", "good", "vs"}; !reflect.DeepEqual(names(set.Servers), want) {
		t.Errorf("servers %q, want %q", names(set.Servers), want)
	}
	want := []struct {
		file         string
		line, column int
		server       string
		message      string
	}{
		{filepath.Join(h.paths.UserConfigDir, "Claude", "claude_desktop_config.json"), 5, 1, "", "is not valid JSON"},
		{claude, 0, 0, "", "larger than"},
		{filepath.Join(h.paths.UserConfigDir, "Code", "User", "mcp.json"), 1, 74, "broken", `"args" must be a list of strings`},
		{filepath.Join(dirAsFile, ".mcp.json"), 0, 0, "", "is a folder"},
		{filepath.Join(badJSON, ".mcp.json"), 1, 1, "", "must hold a JSON object"},
	}
	if len(set.Problems) != len(want) {
		t.Fatalf("problems:%s", problemText(set.Problems))
	}
	for i, w := range want {
		p := set.Problems[i]
		if p.File != w.file || p.Line != w.line || p.Column != w.column || p.Server != w.server || !strings.Contains(p.Message, w.message) {
			t.Errorf("problem %d = %s\nwant %s:%d:%d server %q %q", i, p.Error(), w.file, w.line, w.column, w.server, w.message)
		}
	}
}

// TestLoadFolders: the folders list only takes full paths, and says which
// one it skipped.
func TestLoadFolders(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	a, b := h.folder(t, "a"), h.folder(t, "b")
	writeFile(t, filepath.Join(a, ".mcp.json"), `{"mcpServers": {"a": {"command": "a"}}}`)
	writeFile(t, filepath.Join(b, ".mcp.json"), `{"mcpServers": {"b": {"command": "b"}}}`)
	h.userFile(t, "", a, "relative/dir", b, "also/relative")

	set := h.loader(nil).Load()
	if !reflect.DeepEqual(set.Folders, []string{a, b}) {
		t.Errorf("folders %q, want %q", set.Folders, []string{a, b})
	}
	if !reflect.DeepEqual(names(set.Servers), []string{"a", "b"}) {
		t.Errorf("servers %q", names(set.Servers))
	}
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, `"relative/dir" is not a full path`) || set.Problems[0].File != h.paths.UserFile() {
		t.Errorf("problems:%s\nwant one naming relative/dir", problemText(set.Problems))
	}

	writeFile(t, h.paths.UserFile(), `{"mcpServers": {"u": {"command": "u"}}, "folders": "`+a+`"}`)
	set = h.loader(nil).Load()
	if len(set.Folders) != 0 || !reflect.DeepEqual(names(set.Servers), []string{"u"}) ||
		len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, `"folders" must be a list`) {
		t.Errorf("folders %q, servers %q, problems:%s", set.Folders, names(set.Servers), problemText(set.Problems))
	}
}

// TestLoadBrokenUserFile: the person's own file can be broken too; every
// app's config still loads.
func TestLoadBrokenUserFile(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	writeFile(t, h.paths.UserFile(), `{"mcpServers": `)
	writeFile(t, filepath.Join(h.paths.Home, ".cursor", "mcp.json"), `{"mcpServers": {"cursor": {"command": "c"}}}`)
	set := h.loader(nil).Load()
	if !reflect.DeepEqual(names(set.Servers), []string{"cursor"}) || len(set.Problems) != 1 || set.Problems[0].File != h.paths.UserFile() {
		t.Errorf("servers %q, problems:%s", names(set.Servers), problemText(set.Problems))
	}
}

func TestLoadEmptyHome(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	set := h.loader(nil).Load()
	if len(set.Servers)+len(set.Suppressed)+len(set.Problems)+len(set.Folders) != 0 {
		t.Errorf("an empty home loads %+v", set)
	}
}

func TestNewLoader(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	l := NewLoader(h.paths)
	if l.Approvals == nil || l.Approvals.Path != h.paths.ApprovalsFile() || l.Lookup == nil {
		t.Fatalf("NewLoader = %+v", l)
	}
	// A nil Lookup falls back to the process environment.
	writeFile(t, filepath.Join(h.paths.Home, ".cursor", "mcp.json"), `{"mcpServers": {"p": {"command": "${PATH}"}}}`)
	l.Lookup = nil
	set := l.Load()
	if path, ok := os.LookupEnv("PATH"); ok && (len(set.Servers) != 1 || set.Servers[0].Command != path) {
		t.Errorf("servers %+v, problems:%s", set.Servers, problemText(set.Problems))
	}
}

// TestUnchangedSeesAWriteInTheSameTick: an editor that writes a config
// file in place with as many bytes, within the filesystem clock's tick
// of the load (here: the time put back as it was), is still a change.
func TestUnchangedSeesAWriteInTheSameTick(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	h.userFile(t, `{"a": {"command": "one"}}`)
	l := h.loader(nil)
	set := l.Load()
	if !l.Unchanged(set) {
		t.Fatal("a file just loaded counts as changed")
	}
	path := h.paths.UserFile()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(strings.Replace(string(b), "one", "two", 1))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if l.Unchanged(set) {
		t.Error("a write of the same size in the load's tick went unseen")
	}
}
