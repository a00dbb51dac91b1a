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
		{"url: scheme and host case", Server{Transport: HTTP, URL: "HTTPS://Example.COM/MCP"}, "url:https://example.com/MCP"},
		{"url: trailing slash", Server{Transport: HTTP, URL: "https://example.com/mcp/"}, "url:https://example.com/mcp"},
		{"url: root slash", Server{Transport: HTTP, URL: "https://example.com/"}, "url:https://example.com"},
		{"url: :443 for https", Server{Transport: HTTP, URL: "https://example.com:443/mcp"}, "url:https://example.com/mcp"},
		{"url: :80 for http", Server{Transport: HTTP, URL: "http://example.com:80/mcp"}, "url:http://example.com/mcp"},
		{"url: :443 for wss", Server{Transport: WebSocket, URL: "wss://example.com:443/ws"}, "url:wss://example.com/ws"},
		{"url: :80 for ws", Server{Transport: WebSocket, URL: "ws://example.com:80/ws"}, "url:ws://example.com/ws"},
		{"url: another port stays", Server{Transport: HTTP, URL: "https://example.com:8443/mcp"}, "url:https://example.com:8443/mcp"},
		{"url: :80 stays for https", Server{Transport: HTTP, URL: "https://example.com:80/mcp"}, "url:https://example.com:80/mcp"},
		{"url: IPv6", Server{Transport: HTTP, URL: "http://[::1]:80/mcp/"}, "url:http://[::1]/mcp"},
		{"url: IPv6 with a port", Server{Transport: HTTP, URL: "http://[::1]:3000/mcp"}, "url:http://[::1]:3000/mcp"},
		{"url: query stays", Server{Transport: HTTP, URL: "https://example.com/mcp/?Key=A"}, "url:https://example.com/mcp?Key=A"},
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

// TestOneURLWrittenTwoWaysIsOneServer: a URL that differs only in case,
// default port or a trailing slash names the server already listed.
func TestOneURLWrittenTwoWaysIsOneServer(t *testing.T) {
	t.Parallel()
	data := `{"mcpServers": {
  "a": {"url": "https://example.com/mcp"},
  "b": {"url": "https://Example.com/mcp/"},
  "c": {"url": "HTTPS://EXAMPLE.COM:443/mcp"}
}}`
	servers, problems := parse(Source{Scope: User, App: "mcptray", Format: MCPServers}, Vars{}, data)
	if len(problems) > 0 {
		t.Fatal(problemText(problems))
	}
	set := merge(servers, nil, nil)
	if got := names(set.Servers); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("servers %q, want only a: b and c are the same server", got)
	}
}
