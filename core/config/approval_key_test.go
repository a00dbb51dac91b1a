package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestApprovalKey(t *testing.T) {
	t.Parallel()
	local := func() Server {
		return Server{Name: "db", ConfigName: "db", Scope: Local, Transport: Stdio, Command: "npx",
			Args: []string{"-y", "db-mcp"}, Cwd: "/work", Env: map[string]string{"DB": "prod", "LOG": "1"}, EnvFile: "/work/.env"}
	}
	remote := func() Server {
		return Server{Name: "api", ConfigName: "api", Scope: Project, Transport: HTTP, URL: "https://api.example/mcp",
			Headers: map[string]string{"Authorization": "Bearer one", "X-Team": "a"}}
	}
	tests := []struct {
		name    string
		base    func() Server
		edit    func(*Server)
		changes bool
	}{
		{"command", local, func(s *Server) { s.Command = "bunx" }, true},
		{"an arg", local, func(s *Server) { s.Args[1] = "evil-mcp" }, true},
		{"one more arg", local, func(s *Server) { s.Args = append(s.Args, "--write") }, true},
		{"args reordered", local, func(s *Server) { s.Args[0], s.Args[1] = s.Args[1], s.Args[0] }, true},
		{"an arg split in two", local, func(s *Server) { s.Args = []string{"-y db-mcp"} }, true},
		{"cwd", local, func(s *Server) { s.Cwd = "/elsewhere" }, true},
		{"an env value", local, func(s *Server) { s.Env["DB"] = "staging" }, true},
		{"an env name", local, func(s *Server) { s.Env["NODE_OPTIONS"] = s.Env["LOG"]; delete(s.Env, "LOG") }, true},
		{"one more env", local, func(s *Server) { s.Env["NODE_OPTIONS"] = "--require /tmp/x.js" }, true},
		{"env value moved between names", local, func(s *Server) { s.Env["DB"], s.Env["LOG"] = s.Env["LOG"], s.Env["DB"] }, true},
		{"env removed", local, func(s *Server) { s.Env = nil }, true},
		{"envFile", local, func(s *Server) { s.EnvFile = "/work/.env.prod" }, true},
		{"transport", remote, func(s *Server) { s.Transport = SSE }, true},
		{"url", remote, func(s *Server) { s.URL = "https://evil.example/mcp" }, true},
		{"a header name", remote, func(s *Server) { s.Headers["X-Other"] = s.Headers["X-Team"]; delete(s.Headers, "X-Team") }, true},
		{"one more header", remote, func(s *Server) { s.Headers["X-Debug"] = "1" }, true},

		{"nothing", local, func(s *Server) {}, false},
		{"a header value", remote, func(s *Server) { s.Headers["Authorization"] = "Bearer rotated" }, false},
		{"the name", local, func(s *Server) { s.Name, s.ConfigName = "database", "database" }, false},
		{"the position in the file", local, func(s *Server) { s.Origin.Line, s.Origin.Column = 40, 3 }, false},
		{"the file it came from", local, func(s *Server) { s.Origin.File = "/other/.mcp.json" }, false},
		{"disabled", local, func(s *Server) { s.Disabled = true }, false},
		{"oauth settings", remote, func(s *Server) { s.OAuth = &OAuth{ClientID: "x"} }, false},
		{"env map order", local, func(s *Server) { s.Env = map[string]string{"LOG": "1", "DB": "prod"} }, false},
		{"nil and empty env", func() Server { s := local(); s.Env = nil; return s }, func(s *Server) { s.Env = map[string]string{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := tt.base(), tt.base()
			tt.edit(&b)
			ka, kb := ApprovalKey(&a), ApprovalKey(&b)
			if len(ka) != 64 {
				t.Fatalf("key %q is not a SHA-256 in hex", ka)
			}
			if (ka != kb) != tt.changes {
				t.Errorf("editing %s: key changed = %v, want %v", tt.name, ka != kb, tt.changes)
			}
		})
	}
}

// TestApprovalKeyHidesValues: the key may be stored and shown; it must not
// carry a secret in a readable form.
func TestApprovalKeyHidesValues(t *testing.T) {
	t.Parallel()
	s := Server{Transport: Stdio, Command: "x", Env: map[string]string{"TOKEN": "sk-live-secret"}}
	if k := ApprovalKey(&s); strings.Contains(k, "sk-live") || strings.Contains(k, "TOKEN") {
		t.Errorf("key %q shows what it hashes", k)
	}
}

// TestApprovalFollowsContent walks a local server through the person's
// decisions and edits to its .mcp.json, loading from disk each time.
func TestApprovalFollowsContent(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	dir := h.folder(t, "app")
	h.userFile(t, "", dir)
	mcpJSON := filepath.Join(dir, ".mcp.json")
	write := func(server string) { writeFile(t, mcpJSON, `{"mcpServers": {`+server+`}}`) }
	l := h.loader(map[string]string{"TOKEN": "a"})
	decide := func(e *Entry, a Approval) {
		t.Helper()
		if err := l.Approvals.Record(e.ApprovalKey, Decision{Approval: a, Name: e.Name, File: e.Origin.File, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	state := func(step string, want Approval) *Entry {
		t.Helper()
		set := l.Load()
		if len(set.Problems) > 0 {
			t.Fatalf("%s: problems:%s", step, problemText(set.Problems))
		}
		e := entryNamed(t, set, "tool")
		if e.Approval != want || e.Runnable() != (want == Approved) {
			t.Fatalf("%s: approval %s (runnable %v), want %s", step, e.Approval, e.Runnable(), want)
		}
		return e
	}

	write(`"tool": {"command": "node", "args": ["server.js"], "env": {"TOKEN": "${TOKEN}"}}`)
	e := state("new server", Undecided)
	decide(e, Approved)
	state("after approving", Approved)

	write(`"tool": {"command": "node", "args": ["server.js", "--write"], "env": {"TOKEN": "${TOKEN}"}}`)
	e = state("args changed", Undecided)

	decide(e, Denied)
	state("after denying", Denied)
	state("denial remembered", Denied)

	write(`"tool": {"command": "node", "args": ["server.js"], "env": {"TOKEN": "${TOKEN}"}}`)
	state("back to what was approved", Approved)

	write("\n\n  \"other\": {\"url\": \"https://x.example\"},\n  \"tool\": {\n \"env\": {\"TOKEN\": \"${TOKEN}\"}, \"args\": [\"server.js\"], \"command\": \"node\"}")
	state("moved and keys reordered", Approved)

	l.Lookup = mapLookup(map[string]string{"TOKEN": "b"}) // an env value changes what runs
	state("env value changed through the environment", Undecided)

	// Only local and project servers wait for approval.
	set := l.Load()
	if o := entryNamed(t, set, "other"); o.Scope != Local || o.Approval != Undecided {
		t.Errorf("other: %s %s", o.Scope, o.Approval)
	}
}
