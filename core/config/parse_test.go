package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseFormats reads one realistic file of every format mcptray knows
// and checks every field of every server it yields.
func TestParseFormats(t *testing.T) {
	t.Parallel()
	const project = "/home/me/code/shop"
	tests := []struct {
		name string
		src  Source
		env  map[string]string
		data string
		want []Server // Scope, Origin.File and Origin.App are filled in from src
	}{
		{
			name: "Claude Desktop stdio",
			src:  Source{Scope: Imported, App: "Claude Desktop", Format: MCPServers},
			data: `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
      "env": {"DEBUG": "1"}
    }
  },
  "globalShortcut": "Ctrl+Space"
}`,
			want: []Server{{
				Name: "filesystem", ConfigName: "filesystem", Transport: Stdio, Command: "npx",
				Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"},
				Env:  map[string]string{"DEBUG": "1"},
			}},
		},
		{
			name: "Cursor remote without type is http",
			src:  Source{Scope: Imported, App: "Cursor", Format: MCPServers},
			data: `{"mcpServers": {
  "linear": {"url": "https://mcp.linear.app/mcp", "headers": {"Authorization": "Bearer xyz"}},
  "legacy": {"type": "sse", "url": "http://localhost:8080/sse"}
}}`,
			want: []Server{
				{Name: "linear", ConfigName: "linear", Transport: HTTP, URL: "https://mcp.linear.app/mcp",
					Headers: map[string]string{"Authorization": "Bearer xyz"}, PlainKeys: []string{"Authorization"}},
				{Name: "legacy", ConfigName: "legacy", Transport: SSE, URL: "http://localhost:8080/sse"},
			},
		},
		{
			name: ".mcp.json in a project folder: cwd defaults to the folder, relative paths resolve against it",
			src:  Source{Scope: Local, App: ".mcp.json", Format: MCPServers, Folder: project},
			data: `{"mcpServers": {
  "db": {"type": "stdio", "command": "./bin/db-mcp", "args": ["--ro"], "envFile": ".env"},
  "tools": {"command": "python", "args": ["-m", "tools"], "cwd": "tools"},
  "abs": {"command": "node", "cwd": "/opt/abs"},
  "off": {"command": "node", "disabled": true, "alwaysAllow": ["x"], "autoApprove": []}
}}`,
			want: []Server{
				{Name: "db", ConfigName: "db", Transport: Stdio, Command: "./bin/db-mcp", Args: []string{"--ro"},
					EnvFile: filepath.Join(project, ".env"), Cwd: project, Origin: Origin{Folder: project}},
				{Name: "tools", ConfigName: "tools", Transport: Stdio, Command: "python", Args: []string{"-m", "tools"},
					Cwd: filepath.Join(project, "tools"), Origin: Origin{Folder: project}},
				{Name: "abs", ConfigName: "abs", Transport: Stdio, Command: "node", Cwd: "/opt/abs", Origin: Origin{Folder: project}},
				{Name: "off", ConfigName: "off", Transport: Stdio, Command: "node", Cwd: project, Disabled: true, Origin: Origin{Folder: project}},
			},
		},
		{
			name: "VS Code with comments, trailing commas and inputs",
			src:  Source{Scope: Project, App: "VS Code project", Format: VSCode, Folder: project},
			env:  map[string]string{"GH_HOST": "github.example.com"},
			data: `// VS Code writes JSON with comments
{
  "inputs": [
    {"type": "promptString", "id": "token", "description": "API token", "password": true},
  ],
  /* servers by name */
  "servers": {
    "github": {
      "type": "http",
      "url": "https://${GH_HOST}/mcp", // enterprise host
      "headers": {"X-Client": "vscode",},
    },
    "local": {
      "type": "stdio",
      "command": "${workspaceFolder}/bin/mcp",
      "args": ["--home", "${userHome}", "--host", "${env:GH_HOST}"],
      "envFile": "${workspaceFolder}/.env",
    },
  },
}`,
			want: []Server{
				{Name: "github", ConfigName: "github", Transport: HTTP, URL: "https://github.example.com/mcp",
					Headers: map[string]string{"X-Client": "vscode"}, Origin: Origin{Folder: project}},
				{Name: "local", ConfigName: "local", Transport: Stdio, Command: project + "/bin/mcp",
					Args:    []string{"--home", "/home/me", "--host", "github.example.com"},
					EnvFile: project + "/.env", Cwd: project, Origin: Origin{Folder: project}},
			},
		},
		{
			name: "VS Code servers key is servers, not mcpServers",
			src:  Source{Scope: Imported, App: "VS Code", Format: VSCode},
			data: `{"mcpServers": {"ignored": {"command": "x"}}, "servers": {"kept": {"command": "y"}}}`,
			want: []Server{{Name: "kept", ConfigName: "kept", Transport: Stdio, Command: "y"}},
		},
		{
			name: "Claude Code: top-level servers and each project's, cwd defaults to the project",
			src:  Source{Scope: Imported, App: "Claude Code", Format: ClaudeCode},
			data: `{
  "numStartups": 12,
  "mcpServers": {"everything": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}},
  "projects": {
    "/home/me/code/shop": {
      "allowedTools": [],
      "mcpServers": {
        "shopdb": {"command": "uvx", "args": ["shop-db-mcp"], "env": {"DB": "${workspaceFolder}/db.sqlite"}},
        "rel": {"command": "node", "args": ["s.js"], "cwd": "server"}
      }
    },
    "/home/me/code/empty": {"mcpServers": {}},
    "/home/me/code/none": {"history": []},
    "/home/me/code/odd": "not an object",
    "/home/me/code/blog": {"mcpServers": {"sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp"}}}
  }
}`,
			want: []Server{
				{Name: "everything", ConfigName: "everything", Transport: Stdio, Command: "npx",
					Args: []string{"-y", "@modelcontextprotocol/server-everything"}},
				{Name: "shopdb", ConfigName: "shopdb", Transport: Stdio, Command: "uvx", Args: []string{"shop-db-mcp"},
					Env: map[string]string{"DB": project + "/db.sqlite"}, Cwd: project, Origin: Origin{Folder: project}},
				{Name: "rel", ConfigName: "rel", Transport: Stdio, Command: "node", Args: []string{"s.js"},
					Cwd: filepath.Join(project, "server"), Origin: Origin{Folder: project}},
				{Name: "sentry", ConfigName: "sentry", Transport: HTTP, URL: "https://mcp.sentry.dev/mcp",
					Origin: Origin{Folder: "/home/me/code/blog"}},
			},
		},
		{
			name: "plugin manifest with ${CLAUDE_PLUGIN_ROOT}: cwd defaults to the plugin, relative paths resolve against it",
			src:  Source{Scope: Managed, App: "plugin notes", Format: MCPServers, PluginRoot: "/plugins/notes"},
			data: `{"mcpServers": {"notes": {
  "command": "${CLAUDE_PLUGIN_ROOT}/bin/notes",
  "args": ["--config", "${CLAUDE_PLUGIN_ROOT}/config.json", "--data", "${MCPTRAY_PLUGIN_ROOT}/data"],
  "env": {"NOTES_ROOT": "${CLAUDE_PLUGIN_ROOT}"}
}, "rel": {"command": "node", "args": ["s.js"], "cwd": "server", "envFile": ".env"}}}`,
			want: []Server{{
				Name: "notes", ConfigName: "notes", Transport: Stdio, Command: "/plugins/notes/bin/notes",
				Args: []string{"--config", "/plugins/notes/config.json", "--data", "/plugins/notes/data"},
				Env:  map[string]string{"NOTES_ROOT": "/plugins/notes"}, Cwd: "/plugins/notes",
			}, {
				Name: "rel", ConfigName: "rel", Transport: Stdio, Command: "node", Args: []string{"s.js"},
				Cwd: "/plugins/notes/server", EnvFile: "/plugins/notes/.env",
			}},
		},
		{
			name: "type aliases",
			src:  Source{Scope: User, App: "mcptray", Format: MCPServers},
			data: `{"mcpServers": {
  "a": {"type": "streamable-http", "url": "https://a.example/mcp"},
  "b": {"type": "streamableHttp", "url": "https://b.example/mcp"},
  "c": {"type": "streamable_http", "url": "https://c.example/mcp"},
  "d": {"type": "SSE", "url": "https://d.example/sse"},
  "e": {"type": "websocket", "url": "wss://e.example/ws"},
  "f": {"type": "ws", "url": "ws://localhost:9000"},
  "g": {"type": "HTTP", "url": "https://g.example/mcp"},
  "h": {"type": "Stdio", "command": "h"},
  "i": {"type": "", "command": "i"}
}}`,
			want: []Server{
				{Name: "a", ConfigName: "a", Transport: HTTP, URL: "https://a.example/mcp"},
				{Name: "b", ConfigName: "b", Transport: HTTP, URL: "https://b.example/mcp"},
				{Name: "c", ConfigName: "c", Transport: HTTP, URL: "https://c.example/mcp"},
				{Name: "d", ConfigName: "d", Transport: SSE, URL: "https://d.example/sse"},
				{Name: "e", ConfigName: "e", Transport: WebSocket, URL: "wss://e.example/ws"},
				{Name: "f", ConfigName: "f", Transport: WebSocket, URL: "ws://localhost:9000"},
				{Name: "g", ConfigName: "g", Transport: HTTP, URL: "https://g.example/mcp"},
				{Name: "h", ConfigName: "h", Transport: Stdio, Command: "h"},
				{Name: "i", ConfigName: "i", Transport: Stdio, Command: "i"},
			},
		},
		{
			name: "oauth block is kept whole",
			src:  Source{Scope: User, App: "mcptray", Format: MCPServers},
			data: `{"mcpServers": {
  "list": {"url": "https://a.example/mcp", "oauth": {
    "clientId": "abc", "clientSecret": "s3cret", "scopes": ["read", "write"],
    "authServerMetadataUrl": "https://idp.example/.well-known/oauth-authorization-server",
    "xaa": true, "callbackPort": 33418}},
  "spaced": {"url": "https://b.example/mcp", "oauth": {"scopes": "  read  write admin "}},
  "nulls": {"url": "https://c.example/mcp", "oauth": {"scopes": null}},
  "none": {"url": "https://d.example/mcp", "oauth": null}
}}`,
			want: []Server{
				{Name: "list", ConfigName: "list", Transport: HTTP, URL: "https://a.example/mcp", OAuth: &OAuth{
					ClientID: "abc", ClientSecret: "s3cret", Scopes: []string{"read", "write"},
					AuthServerMetadataURL: "https://idp.example/.well-known/oauth-authorization-server",
					XAA:                   true, CallbackPort: 33418}},
				{Name: "spaced", ConfigName: "spaced", Transport: HTTP, URL: "https://b.example/mcp",
					OAuth: &OAuth{Scopes: []string{"read", "write", "admin"}}},
				{Name: "nulls", ConfigName: "nulls", Transport: HTTP, URL: "https://c.example/mcp", OAuth: &OAuth{}},
				{Name: "none", ConfigName: "none", Transport: HTTP, URL: "https://d.example/mcp"},
			},
		},
		{
			name: "names with hidden characters are marked for display, kept as written in ConfigName",
			src:  Source{Scope: User, App: "mcptray", Format: MCPServers},
			data: `{"mcpServers": {"git\u202ehub\n  tools": {"command": "gh"}}}`,
			// Each hidden or changed character shows as '?': a name that
			// hides something must not read as one that does not.
			want: []Server{{Name: "git?hub? ?tools", NameHidden: true, ConfigName: "git\u202ehub\n  tools", Transport: Stdio, Command: "gh"}},
		},
		{
			name: "no servers at all",
			src:  Source{Scope: User, App: "mcptray", Format: MCPServers},
			data: `{"mcpServers": null, "other": 1}`,
		},
		{
			name: "servers key absent",
			src:  Source{Scope: Imported, App: "VS Code", Format: VSCode},
			data: `{}`,
		},
		{
			name: "null fields are as good as absent",
			src:  Source{Scope: User, App: "mcptray", Format: MCPServers},
			data: `{"mcpServers": {"n": {"type": null, "command": "n", "args": null, "env": null, "url": null, "disabled": null}}}`,
			want: []Server{{Name: "n", ConfigName: "n", Transport: Stdio, Command: "n"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.src.File = "/test/" + tt.src.App + ".json"
			vars := Vars{Lookup: mapLookup(tt.env), Folder: tt.src.Folder, Home: "/home/me", PluginRoot: tt.src.PluginRoot}
			got, problems := parse(tt.src, vars, tt.data)
			if len(problems) > 0 {
				t.Fatalf("unexpected problems:%s", problemText(problems))
			}
			for i := range got {
				if got[i].Origin.Line < 1 || got[i].Origin.Column < 1 {
					t.Errorf("server %q has no position: %+v", got[i].Name, got[i].Origin)
				}
				got[i].Origin.Line, got[i].Origin.Column = 0, 0
			}
			for i := range tt.want {
				tt.want[i].Scope = tt.src.Scope
				tt.want[i].Origin.File = tt.src.File
				tt.want[i].Origin.App = tt.src.App
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got servers %q, want %q", serverNames(got), serverNames(tt.want))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], tt.want[i]) {
					t.Errorf("server %d:\n got %+v\nwant %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestParsePositions checks that each server knows the line and column of
// its entry, counted the way an editor counts them.
func TestParsePositions(t *testing.T) {
	t.Parallel()
	data := "// comment é\n{\"servers\": {\n  \"a\": {\"command\": \"a\"},\n\t\"b\":   {\"url\": \"https://b.example\"},\n  /* ü */ \"c\": {\"command\": \"c\"}\n}}"
	got, problems := parse(Source{Format: VSCode}, Vars{}, data)
	if len(problems) > 0 {
		t.Fatalf("unexpected problems:%s", problemText(problems))
	}
	want := map[string][2]int{"a": {3, 8}, "b": {4, 9}, "c": {5, 16}}
	if len(got) != len(want) {
		t.Fatalf("got %q", serverNames(got))
	}
	for _, s := range got {
		if w := want[s.Name]; s.Origin.Line != w[0] || s.Origin.Column != w[1] {
			t.Errorf("server %q at %d:%d, want %d:%d", s.Name, s.Origin.Line, s.Origin.Column, w[0], w[1])
		}
	}
}

// TestParseMalformed feeds every kind of broken input: each must become a
// Problem located in the file, and only the broken part may be skipped.
func TestParseMalformed(t *testing.T) {
	t.Parallel()
	type want struct {
		line, column int
		server       string
		message      string // a part of the message
	}
	tests := []struct {
		name        string
		format      Format
		data        string
		want        []want
		wantServers []string // what still loads
	}{
		{
			name: "bad JSON", data: "{\n  \"mcpServers\": {\n    \"a\": {\"command\": x}\n  }\n}",
			want: []want{{3, 22, "", `is not valid JSON: a value must be a "quoted string", a number, true, false or null`}},
		},
		{
			name: "string with a raw tab", data: "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"TOKEN\": \"sk-live\tsecret\"}}}}",
			want: []want{{1, 56, "", `is not valid JSON: a string holds a control character (write a tab as \t`}},
		},
		{
			name: "token pasted without quotes", data: `{"mcpServers": {"a": {"command": "x", "env": {"TOKEN": sk-live-secret}}}}`,
			want: []want{{1, 56, "", `a value must be a "quoted string"`}},
		},
		{
			name: "unclosed object", data: `{"mcpServers": {"a": {"command": "x"}}`,
			want: []want{{1, 39, "", "is not valid JSON"}},
		},
		{
			name: "bad JSON after non-ASCII: column counts characters", data: `{"é": 1, x}`,
			want: []want{{1, 10, "", "is not valid JSON"}},
		},
		{
			name: "top level is a list", data: "\n\n  [1, 2]",
			want: []want{{3, 3, "", "must hold a JSON object"}},
		},
		{
			name: "top level is a string", data: `"mcpServers"`,
			want: []want{{1, 1, "", "must hold a JSON object"}},
		},
		{
			name: "mcpServers is a list", data: `{"mcpServers": []}`,
			want: []want{{1, 16, "", `"mcpServers" must be an object of servers by name`}},
		},
		{
			name: "VS Code servers is a string", format: VSCode, data: `{"servers": "none"}`,
			want: []want{{1, 13, "", `"servers" must be an object of servers by name`}},
		},
		{
			name: "a server that is not an object",
			data: "{\"mcpServers\": {\n  \"a\": \"npx a\",\n  \"b\": {\"command\": \"b\"}\n}}",
			want: []want{{2, 8, "a", "must be an object with a command or a url"}}, wantServers: []string{"b"},
		},
		{
			name: "args is a string",
			data: "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\", \"args\": \"oops\"},\n    \"b\": {\"command\": \"b\"}\n  }\n}",
			want: []want{{3, 35, "a", `"args" must be a list of strings`}}, wantServers: []string{"b"},
		},
		{
			name: "env value is a number", data: `{"mcpServers": {"a": {"command": "x", "env": {"PORT": 8080}}, "b": {"command": "b"}}}`,
			want: []want{{1, 46, "a", `"env" must be an object of strings`}}, wantServers: []string{"b"},
		},
		{
			name: "disabled is a string", data: `{"mcpServers": {"a": {"command": "x", "disabled": "yes"}}}`,
			want: []want{{1, 51, "a", `"disabled" must be true or false`}},
		},
		{
			name: "header value is a list", data: `{"mcpServers": {"a": {"url": "https://a.example", "headers": {"X": ["1"]}}}}`,
			want: []want{{1, 62, "a", `"headers" must be an object of strings`}},
		},
		{
			name: "command is a list", data: `{"mcpServers": {"a": {"command": ["npx", "a"]}}}`,
			want: []want{{1, 34, "a", `"command" must be a string`}},
		},
		{
			name: "oauth is a string", data: `{"mcpServers": {"a": {"url": "https://a.example", "oauth": "yes"}}}`,
			want: []want{{1, 60, "a", `"oauth" must be an object`}},
		},
		{
			name: "a type only Claude Code can use", data: `{"mcpServers": {"ide": {"type": "sse-ide", "url": "http://127.0.0.1:1234/sse"}}}`,
			want: []want{{1, 24, "ide", `type "sse-ide" is Claude Code's link to an IDE extension`}},
		},
		{
			name: "unknown type", data: `{"mcpServers": {"a": {"type": "grpc", "command": "x"}, "b": {"command": "b"}}}`,
			want: []want{{1, 22, "a", `unknown type "grpc"`}}, wantServers: []string{"b"},
		},
		{
			name: "neither command nor url", data: `{"mcpServers": {"a": {"args": ["x"]}}}`,
			want: []want{{1, 22, "a", `needs a "command"`}},
		},
		{
			name: "stdio without command", data: `{"mcpServers": {"a": {"type": "stdio", "url": "https://a.example"}}}`,
			want: []want{{1, 22, "a", `has no "command"`}},
		},
		{
			name: "remote without url", data: `{"mcpServers": {"a": {"type": "sse", "command": "x"}}}`,
			want: []want{{1, 22, "a", `is a remote (sse) server but has no "url"`}},
		},
		{
			name: "both command and url without type", data: `{"mcpServers": {"a": {"command": "x", "url": "https://a.example"}}}`,
			want: []want{{1, 22, "a", `has both a "command" and a "url"`}},
		},
		{
			name: "empty command", data: `{"mcpServers": {"a": {"command": "  "}}}`,
			want: []want{{1, 22, "a", `has an empty "command"`}},
		},
		{
			name: "ftp url", data: `{"mcpServers": {"a": {"url": "ftp://files.example/mcp"}}}`,
			want: []want{{1, 22, "a", `must start with http:// or https:// for a http server`}},
		},
		{
			name: "ws url without the ws type", data: `{"mcpServers": {"a": {"url": "wss://a.example/ws"}, "b": {"type": "sse", "url": "ws://b.example/ws"}}}`,
			want: []want{
				{1, 22, "a", `url "wss://a.example/ws" is a WebSocket address; add "type": "ws" to connect to it`},
				{1, 58, "b", `url "ws://b.example/ws" is a WebSocket address; set "type" to "ws" to connect to it`},
			},
		},
		{
			name: "ws with https url", data: `{"mcpServers": {"a": {"type": "ws", "url": "https://a.example/ws"}}}`,
			want: []want{{1, 22, "a", `must start with ws:// or wss://`}},
		},
		{
			name: "url without host", data: `{"mcpServers": {"a": {"url": "https:///mcp"}}}`,
			want: []want{{1, 22, "a", `is not a valid address`}},
		},
		{
			name: "url that does not parse", data: `{"mcpServers": {"a": {"url": "http://[::1"}}}`,
			want: []want{{1, 22, "a", `is not a valid address`}},
		},
		{
			name: "empty name", data: `{"mcpServers": {"": {"command": "x"}, "ok": {"command": "y"}}}`,
			want: []want{{1, 21, "", `has an empty name`}}, wantServers: []string{"ok"},
		},
		{
			name: "name of invisible characters only", data: `{"mcpServers": {"\u200b\u202e": {"command": "x"}}}`,
			want: []want{{1, 33, "", `has an empty name`}},
		},
		{
			name: "position after a non-ASCII comment counts characters", format: VSCode, data: `{"servers": {/* é */ "a": 5}}`,
			want: []want{{1, 27, "a", "must be an object"}},
		},
		{
			name: "several broken servers, each its own problem",
			data: "{\"mcpServers\": {\n\"a\": 1,\n\"b\": {\"command\": \"b\"},\n\"c\": {\"type\": \"x\"},\n\"d\": {\"url\": \"https://d.example\"}\n}}",
			want: []want{
				{2, 6, "a", "must be an object"},
				{4, 6, "c", `unknown type "x"`},
			},
			wantServers: []string{"b", "d"},
		},
		{
			name: "Claude Code projects is a list", format: ClaudeCode,
			data: `{"mcpServers": {"top": {"command": "t"}}, "projects": []}`,
			want: []want{{1, 55, "", `"projects" must be an object`}}, wantServers: []string{"top"},
		},
		{
			name: "Claude Code: one project's servers broken, the others load", format: ClaudeCode,
			data: "{\"projects\": {\n\"/a\": {\"mcpServers\": 3},\n\"/b\": {\"mcpServers\": {\"ok\": {\"command\": \"ok\"}, \"bad\": {\"command\": 1}}}\n}}",
			want: []want{
				{2, 22, "", `"mcpServers" must be an object`},
				{3, 67, "bad", `"command" must be a string`},
			},
			wantServers: []string{"ok"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const file = "/test/broken.json"
			got, problems := parse(Source{File: file, Format: tt.format}, Vars{}, tt.data)
			if g := serverNames(got); !reflect.DeepEqual(g, tt.wantServers) && len(g)+len(tt.wantServers) > 0 {
				t.Errorf("servers %q, want %q", g, tt.wantServers)
			}
			if len(problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:%s", len(problems), len(tt.want), problemText(problems))
			}
			for i, p := range problems {
				w := tt.want[i]
				if strings.Contains(p.Message, "sk-live") {
					t.Errorf("problem %d shows a secret: %s", i, p.Message)
				}
				if p.File != file || p.Line != w.line || p.Column != w.column || p.Server != w.server || !strings.Contains(p.Message, w.message) {
					t.Errorf("problem %d = %s (line %d, column %d, server %q)\nwant line %d, column %d, server %q, message containing %q",
						i, p.Error(), p.Line, p.Column, p.Server, w.line, w.column, w.server, w.message)
				}
			}
		})
	}
}

// TestParseDocumentLeavesInputAlone: comments are blanked in a copy, not in
// the caller's bytes.
func TestParseDocumentLeavesInputAlone(t *testing.T) {
	t.Parallel()
	in := []byte("{/* c */ \"mcpServers\": {}, // x\n}")
	orig := string(in)
	if _, p := parseDocument(Source{File: "f"}, in); p != nil {
		t.Fatal(p)
	}
	if string(in) != orig {
		t.Errorf("parseDocument changed its input to %q", in)
	}
}

func TestReadSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	writeFile(t, good, `{"mcpServers": {"a": {"command": "a"}}}`)
	folder := filepath.Join(dir, "folder.json")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json")
	writeFile(t, huge, `{"mcpServers": {}}`)
	if err := os.Truncate(huge, MaxFileSize+1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		file    string
		wantDoc bool
		message string // "" means no problem
	}{
		{"missing file is no problem", filepath.Join(dir, "missing.json"), false, ""},
		{"missing folder is no problem", filepath.Join(dir, "nope", "mcp.json"), false, ""},
		{"good file", good, true, ""},
		{"a folder where a file should be", folder, false, "is a folder, not a config file"},
		{"larger than MaxFileSize", huge, false, "is larger than 64 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, p := readSource(Source{File: tt.file})
			if (doc != nil) != tt.wantDoc {
				t.Errorf("document = %v, want one: %v", doc != nil, tt.wantDoc)
			}
			switch {
			case tt.message == "" && p != nil:
				t.Errorf("unexpected problem %s", p)
			case tt.message != "" && p == nil:
				t.Errorf("no problem, want one containing %q", tt.message)
			case p != nil && (!strings.Contains(p.Message, tt.message) || p.File != tt.file):
				t.Errorf("problem %s, want one about %s containing %q", p, tt.file, tt.message)
			}
		})
	}
}

func TestReadSourceUnreadable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root can read every file")
	}
	file := filepath.Join(t.TempDir(), "secret.json")
	writeFile(t, file, `{}`)
	if err := os.Chmod(file, 0); err != nil {
		t.Fatal(err)
	}
	_, p := readSource(Source{File: file})
	if p == nil || p.File != file || !strings.Contains(p.Message, "cannot be read") || p.Line != 0 {
		t.Errorf("problem = %v, want %s cannot be read, with no position", p, file)
	}
}

func TestParseTransport(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Transport{
		"stdio": Stdio, "STDIO": Stdio, "http": HTTP, "streamable-http": HTTP, "streamableHttp": HTTP,
		"streamable_http": HTTP, "sse": SSE, "ws": WebSocket, "WebSocket": WebSocket,
	} {
		if got, err := ParseTransport(in); got != want || err != nil {
			t.Errorf("ParseTransport(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "grpc", "in-process", "https", " stdio"} {
		if got, err := ParseTransport(in); err == nil {
			t.Errorf("ParseTransport(%q) = %q, want an error", in, got)
		}
	}
	// Types only Claude Code can use say what they are, not "unknown".
	for in, want := range map[string]string{
		"sse-ide":        "IDE extension",
		"ws-ide":         "IDE extension",
		"sdk":            "Claude Agent SDK",
		"claudeai-proxy": "claude.ai connector",
	} {
		_, err := ParseTransport(in)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "unknown") {
			t.Errorf("ParseTransport(%q) = %v; want it to say it is about %s", in, err, want)
		}
	}
	for tr, remote := range map[Transport]bool{Stdio: false, HTTP: true, SSE: true, WebSocket: true, InProcess: false} {
		if tr.Remote() != remote {
			t.Errorf("%s.Remote() = %v", tr, !remote)
		}
	}
}

func TestProblemError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "/a.json", Message: "cannot be read: permission denied"}, "/a.json: cannot be read: permission denied"},
		{Problem{File: "/a.json", Line: 3, Column: 7, Message: "is not valid JSON"}, "/a.json:3:7: is not valid JSON"},
		{Problem{File: "/a.json", Line: 2, Column: 1, Server: "db", Message: `has no "url"`}, `/a.json:2:1: server "db": has no "url"`},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestScopeText(t *testing.T) {
	t.Parallel()
	for i, s := range Scopes() {
		if int(s) != i {
			t.Fatalf("Scopes()[%d] = %d", i, s)
		}
		b, err := s.MarshalText()
		if err != nil || string(b) != s.String() {
			t.Errorf("%d.MarshalText() = %q, %v", s, b, err)
		}
		var back Scope
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("UnmarshalText(%q) = %v, %v", b, back, err)
		}
	}
	if len(Scopes()) != 7 {
		t.Errorf("%d scopes, want 7", len(Scopes()))
	}
	if _, err := Scope(99).MarshalText(); err == nil {
		t.Error("MarshalText of an unknown scope did not fail")
	}
	var s Scope
	if err := s.UnmarshalText([]byte("everyone")); err == nil {
		t.Error("UnmarshalText(everyone) did not fail")
	}
	for s, want := range map[Scope]bool{Local: true, Project: true, User: false, Enterprise: false, Imported: false, Dynamic: false, Managed: false} {
		if s.NeedsApproval() != want {
			t.Errorf("%s.NeedsApproval() = %v", s, !want)
		}
	}
}

func TestParseEmptyAndBOM(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"empty":      "",
		"blank":      " \n\t\n",
		"bom":        "\uFEFF{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}",
		"bom+broken": "\uFEFF{\"mcpServers\": {\"a\": {\"command\": }}}",
	} {
		d, p := parseDocument(Source{File: name, Format: MCPServers}, []byte(data))
		switch name {
		case "bom+broken":
			if p == nil || p.Line != 1 || p.Column != 35 {
				t.Errorf("%s: problem = %+v, want one at 1:35 (the BOM counts as one character)", name, p)
			}
			continue
		}
		if p != nil {
			t.Errorf("%s: %v", name, p)
			continue
		}
		servers, problems := d.servers(Vars{})
		if len(problems) != 0 || (name == "bom") != (len(servers) == 1) {
			t.Errorf("%s: servers %v, problems %v", name, servers, problems)
		}
	}
}
