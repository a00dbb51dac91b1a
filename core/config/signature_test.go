package config

import (
	"reflect"
	"testing"
)

func TestSignature(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    Server
		want string
	}{
		{"stdio with args", Server{Transport: Stdio, Command: "cmd", Args: []string{"a"}}, `stdio:["cmd","a"]`},
		{"stdio without args", Server{Transport: Stdio, Command: "npx"}, `stdio:["npx"]`},
		{"stdio quotes and spaces", Server{Transport: Stdio, Command: `C:\Program Files\x.exe`, Args: []string{`say "hi"`, ""}},
			`stdio:["C:\\Program Files\\x.exe","say \"hi\"",""]`},
		{"name, env and cwd do not count", Server{Name: "x", Transport: Stdio, Command: "cmd", Args: []string{"a"},
			Env: map[string]string{"K": "v"}, Cwd: "/tmp"}, `stdio:["cmd","a"]`},
		{"http", Server{Transport: HTTP, URL: "https://example.com/mcp"}, "url:https://example.com/mcp"},
		{"sse", Server{Transport: SSE, URL: "https://example.com/sse"}, "url:https://example.com/sse"},
		{"ws", Server{Transport: WebSocket, URL: "wss://example.com/ws"}, "url:wss://example.com/ws"},
		{"headers do not count", Server{Transport: HTTP, URL: "https://example.com/mcp", Headers: map[string]string{"A": "b"}}, "url:https://example.com/mcp"},
		{"in-process by name", Server{Name: "memory", Transport: InProcess}, "in-process:memory"},
	}
	for _, tt := range tests {
		if got := Signature(&tt.s); got != tt.want {
			t.Errorf("%s: Signature = %s, want %s", tt.name, got, tt.want)
		}
	}
	// Args are not joined: ["a b"] and ["a", "b"] run different programs.
	one := Server{Transport: Stdio, Command: "x", Args: []string{"a b"}}
	two := Server{Transport: Stdio, Command: "x", Args: []string{"a", "b"}}
	if Signature(&one) == Signature(&two) {
		t.Errorf("%q and %q share a signature", one.Args, two.Args)
	}
}

// TestSameContentIsOneServer: two names, one content, one server; the
// first read wins within a scope and the other says why it gave way.
func TestSameContentIsOneServer(t *testing.T) {
	t.Parallel()
	data := `{"mcpServers": {
  "fs": {"command": "npx", "args": ["-y", "server-filesystem", "/data"]},
  "files": {"command": "npx", "args": ["-y", "server-filesystem", "/data"], "env": {"X": "1"}},
  "other": {"command": "npx", "args": ["-y", "server-filesystem", "/other"]},
  "web": {"url": "https://mcp.example/mcp"},
  "web-sse": {"type": "sse", "url": "https://mcp.example/mcp"}
}}`
	servers, problems := parse(Source{Scope: User, App: "mcptray", Format: MCPServers}, Vars{}, data)
	if len(problems) > 0 {
		t.Fatal(problemText(problems))
	}
	set := merge(servers, nil, nil)
	if want := []string{"fs", "other", "web"}; !reflect.DeepEqual(names(set.Servers), want) {
		t.Errorf("servers %q, want %q", names(set.Servers), want)
	}
	if want := []string{"files", "web-sse"}; !reflect.DeepEqual(names(set.Suppressed), want) {
		t.Fatalf("suppressed %q, want %q", names(set.Suppressed), want)
	}
	for i, by := range []string{"fs", "web"} {
		if s := set.Suppressed[i]; s.SuppressedBy != by || s.Suppressed == "" || s.Runnable() {
			t.Errorf("%s: SuppressedBy %q (%q), runnable %v; want suppressed by %q", s.Name, s.SuppressedBy, s.Suppressed, s.Runnable(), by)
		}
	}
}

func TestSignatureDoesNotEscapeHTML(t *testing.T) {
	t.Parallel()
	s := Server{Transport: Stdio, Command: "sh", Args: []string{"-c", "a && b <x>"}}
	if got, want := Signature(&s), `stdio:["sh","-c","a && b <x>"]`; got != want {
		t.Errorf("Signature = %s, want %s", got, want)
	}
}
