package window

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

func TestParsePasteShapes(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string // name=what it runs or reaches
	}{
		{"mcpServers", `{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@mcp/files"], "env": {"ROOT": "/tmp"}}}}`,
			[]string{"files=npx -y @mcp/files"}},
		{"bare", `{"git": {"command": "uvx", "args": ["mcp-server-git"]}, "web": {"url": "https://mcp.example.com/mcp"}}`,
			[]string{"git=uvx mcp-server-git", "web=https://mcp.example.com/mcp"}},
		{"VS Code", `{"inputs": [], "servers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}`,
			[]string{"gh=https://api.githubcopilot.com/mcp/"}},
		{"JSONC", "{\n  // from the README\n  \"mcpServers\": {\n    \"memory\": {\"command\": \"npx\", \"args\": [\"-y\", \"@mcp/memory\",],},\n  },\n}",
			[]string{"memory=npx -y @mcp/memory"}},
		{"without braces", `"time": {"command": "uvx", "args": ["mcp-server-time"]},`, []string{"time=uvx mcp-server-time"}},
		{"URL", "https://mcp.notion.com/mcp", []string{"notion=https://mcp.notion.com/mcp"}},
		{"loopback URL", "http://127.0.0.1:8931/mcp", []string{"local-8931=http://127.0.0.1:8931/mcp"}},
	} {
		got, err := parsePaste(tt.text)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var list []string
		for _, p := range got {
			what := p.server.URL
			if p.server.Transport == config.Stdio {
				what = commandLine(p.server.Command, p.server.Args)
			}
			list = append(list, p.name+"="+what)
		}
		if strings.Join(list, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s: understood %q, want %q", tt.name, list, tt.want)
		}
	}
}

func TestParsePasteRefuses(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{"empty", "  ", "Paste a server's JSON snippet"},
		{"broken JSON", `{"mcpServers": {"a": {"command": "x"}`, "Copy the whole snippet"},
		{"no name", `{"command": "npx", "args": ["x"]}`, "without its name"},
		{"no server", `{"mcpServers": {}}`, "names no server"},
		{"not a server", `{"a": 1}`, `a is not a server`},
		{"command and url", `{"a": {"command": "x", "url": "https://a.example"}}`, `has both a "command" and a "url"`},
		{"words", "please add github", "neither a JSON snippet nor a web address"},
		{"ftp", "ftp://files.example.com/mcp", "cannot connect to a ftp: address"},
		// The service's checks, which its Add makes again: a password in the
		// URL would be kept in config.json in plain text.
		{"password in a URL", "https://me:hunter2@mcp.notion.com/mcp", "user name or password"},
		{"password in a snippet", `{"notion": {"url": "https://me:hunter2@mcp.notion.com/mcp"}}`, "user name or password"},
		{"built-in name", `{"mcptray": {"command": "x"}}`, "built-in server"},
	} {
		_, err := parsePaste(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.want)
		}
	}
}

func TestPastedDescribeHidesValues(t *testing.T) {
	got, err := parsePaste(`{"a": {"command": "run", "env": {"API_TOKEN": "s3cret-value"}}, "b": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer abc123"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	text := got[0].describe() + "\n" + got[1].describe()
	for _, want := range []string{"API_TOKEN", "Authorization", "values not shown"} {
		if !strings.Contains(text, want) {
			t.Errorf("the preview lacks %q:\n%s", want, text)
		}
	}
	for _, secret := range []string{"s3cret-value", "abc123"} {
		if strings.Contains(text, secret) {
			t.Errorf("the preview shows the value %q:\n%s", secret, text)
		}
	}
}
