package config

import (
	"bytes"
	"cmp"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Seed corpora with realistic files of every format are in
// testdata/fuzz/<FuzzName>/; the f.Add seeds below are the edge cases.

// fuzzVars resolves variables whose name starts with S, so that inputs can
// reach both the set and the unset branches.
var fuzzVars = Vars{
	Lookup: func(name string) (string, bool) {
		if strings.HasPrefix(name, "S") {
			return "val-" + strings.ToLower(name), true
		}
		if name == "EMPTY" {
			return "", true
		}
		return "", false
	},
	Folder:     "/work/project",
	Home:       "/home/me",
	PluginRoot: "/plugins/p",
}

// checkParse parses data as src and checks what must hold whatever the
// input: no panic, problems that a person can act on, servers that can be
// started or reached.
func checkParse(t *testing.T, src Source, data []byte) {
	orig := bytes.Clone(data)
	vars := fuzzVars
	vars.Folder = src.Folder
	vars.PluginRoot = src.PluginRoot

	doc, p := parseDocument(src, data)
	if !bytes.Equal(data, orig) {
		t.Fatalf("parseDocument changed its input")
	}
	if p != nil {
		checkProblem(t, src.File, data, *p)
		if doc != nil {
			t.Fatalf("a document and a problem: %s", p)
		}
		return
	}
	servers, problems := doc.servers(vars)
	for _, p := range problems {
		checkProblem(t, src.File, data, p)
	}
	for _, s := range servers {
		checkServer(t, src, data, &s)
	}

	// Parsing is deterministic.
	doc2, _ := parseDocument(src, data)
	servers2, problems2 := doc2.servers(vars)
	if !reflect.DeepEqual(servers, servers2) || !reflect.DeepEqual(problems, problems2) {
		t.Fatalf("two parses of one input differ")
	}

	// Merging keeps every server once, under a unique name.
	set := merge(servers, nil, nil)
	if len(set.Servers)+len(set.Suppressed) != len(servers) {
		t.Fatalf("merge of %d servers gave %d + %d suppressed", len(servers), len(set.Servers), len(set.Suppressed))
	}
	seen := map[string]bool{}
	sigs := map[string]bool{}
	for _, e := range set.Servers {
		if seen[e.Name] || sigs[e.Signature] {
			t.Fatalf("name %q or signature %s twice in a Set", e.Name, e.Signature)
		}
		seen[e.Name], sigs[e.Signature] = true, true
		if e.Approval != NotNeeded && !src.Scope.NeedsApproval() || e.Approval != Undecided && src.Scope.NeedsApproval() {
			t.Fatalf("%s server %q has approval %s", src.Scope, e.Name, e.Approval)
		}
	}
	for _, e := range set.Suppressed {
		if !sigs[e.Signature] || e.SuppressedBy == "" || e.Suppressed == "" {
			t.Fatalf("suppressed %q without a winner: %+v", e.Name, e)
		}
	}
}

func checkProblem(t *testing.T, file string, data []byte, p Problem) {
	t.Helper()
	if p.File != file || strings.TrimSpace(p.Message) == "" {
		t.Fatalf("problem without a file or message: %+v", p)
	}
	// Messages are shown as they are: nothing in one may hide text or
	// break the line.
	if p.Message != sanitize.String(p.Message) || strings.ContainsAny(p.Message, "\n\t") {
		t.Fatalf("problem message %q holds characters that hide or break text", p.Message)
	}
	if p.Line == 0 {
		if p.Column != 0 {
			t.Fatalf("column without a line: %+v", p)
		}
		return
	}
	lines := bytes.Split(data, []byte("\n"))
	if p.Line < 1 || p.Line > len(lines) {
		t.Fatalf("problem at line %d of a %d-line input: %s", p.Line, len(lines), p.Error())
	}
	if max := utf8.RuneCount(lines[p.Line-1]) + 1; p.Column < 1 || p.Column > max {
		t.Fatalf("problem at column %d of a line of %d characters: %s", p.Column, max-1, p.Error())
	}
	if p.Server != sanitize.Line(p.Server) {
		t.Fatalf("problem names server %q unsanitised", p.Server)
	}
}

func checkServer(t *testing.T, src Source, data []byte, s *Server) {
	t.Helper()
	// The name shown is a clean line, marked where the name as written
	// hides something.
	if want, hidden := displayName(s.ConfigName); s.Name == "" || s.Name != want || s.NameHidden != hidden || sanitize.Line(s.Name) != s.Name {
		t.Fatalf("server name %q (hidden %v) for %q", s.Name, s.NameHidden, s.ConfigName)
	}
	if s.Scope != src.Scope || s.Origin.File != src.File || s.Origin.App != src.App {
		t.Fatalf("server %q has origin %+v in scope %s", s.Name, s.Origin, s.Scope)
	}
	checkProblem(t, src.File, data, Problem{File: src.File, Line: s.Origin.Line, Column: s.Origin.Column, Message: "position"})
	if s.Origin.Line < 1 {
		t.Fatalf("server %q has no position", s.Name)
	}
	sig := Signature(s)
	switch s.Transport {
	case Stdio:
		if strings.TrimSpace(s.Command) == "" || !strings.HasPrefix(sig, `stdio:[`) {
			t.Fatalf("stdio server %q: command %q, signature %s", s.Name, s.Command, sig)
		}
		if base := cmp.Or(src.Folder, src.PluginRoot); base != "" && (!filepath.IsAbs(s.Cwd) || s.EnvFile != "" && !filepath.IsAbs(s.EnvFile)) {
			t.Fatalf("server %q of folder %s has cwd %q, envFile %q", s.Name, base, s.Cwd, s.EnvFile)
		}
		if s.URL != "" || s.Headers != nil {
			t.Fatalf("stdio server %q keeps remote fields", s.Name)
		}
	case HTTP, SSE, WebSocket:
		u, err := url.Parse(s.URL)
		if err != nil || u.Host == "" || sig != "url:"+normalURL(s.URL) {
			t.Fatalf("remote server %q with url %q (%v), signature %s", s.Name, s.URL, err, sig)
		}
		want := map[string]bool{"http": s.Transport != WebSocket, "https": s.Transport != WebSocket, "ws": s.Transport == WebSocket, "wss": s.Transport == WebSocket}
		if !want[u.Scheme] {
			t.Fatalf("%s server %q with scheme %q", s.Transport, s.Name, u.Scheme)
		}
		if s.Command != "" || s.Args != nil || s.Env != nil || s.Cwd != "" {
			t.Fatalf("remote server %q keeps stdio fields", s.Name)
		}
	default:
		t.Fatalf("server %q has transport %q", s.Name, s.Transport)
	}
	if k := ApprovalKey(s); len(k) != 64 {
		t.Fatalf("approval key %q", k)
	}
}

func FuzzParseMCPServers(f *testing.F) {
	for _, s := range []string{
		``,
		`{}`,
		`null`,
		`{"mcpServers": null}`,
		`{"mcpServers": {"a": {"command": "npx", "args": ["-y", "x"]}}}`,
		`{"mcpServers": {"a": {"url": "https://a.example/mcp", "oauth": {"scopes": "a b"}}}}`,
		`{"mcpServers": {"": {"command": "x"}, "\u202e": {"url": "ws://x"}}}`,
		`{"mcpServers": {"a": {"command": "${SET:-x}", "cwd": "${workspaceFolder}/sub", "env": {"A": "${UNSET}"}}}}`,
		`{"mcpServers": {"a": {"type": "ws", "url": "https://x"}, "b": {"command": "", "url": ""}}}`,
		"{\"projects\": {\"/p\": {\"mcpServers\": {\"a\": {\"command\": \"a\"}}}, \"rel\": {\"mcpServers\": {\"b\": {\"command\": \"b\", \"cwd\": \"c\"}}}}}",
		"// comment é\n{/* ü */ \"mcpServers\": {\"a\": 1,},}",
		`{"mcpServers": {"a": {"command": "a", "args": "x", "env": {"A": 1}, "disabled": "no"}}}`,
		"{\"é\": 1, x}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return // the parser is linear; big inputs only slow the search
		}
		checkParse(t, Source{Scope: Local, App: ".mcp.json", File: "/work/project/.mcp.json", Format: MCPServers, Folder: "/work/project"}, data)
		checkParse(t, Source{Scope: Managed, App: "plugin p", File: "/plugins/p/.mcp.json", Format: MCPServers, PluginRoot: "/plugins/p"}, data)
		checkParse(t, Source{Scope: Imported, App: "Claude Code", File: "/home/me/.claude.json", Format: ClaudeCode}, data)
	})
}

func FuzzParseVSCode(f *testing.F) {
	for _, s := range []string{
		`{"servers": {}}`,
		`{"servers": {"a": {"type": "stdio", "command": "${workspaceFolder}/a", "envFile": "${workspaceFolder}/.env"}}}`,
		`{"inputs": [{"id": "t", "type": "promptString"}], "servers": {"a": {"type": "http", "url": "https://a", "headers": {"A": "${input:t}"}}}}`,
		"{\n  // c\n  \"servers\": {\"a\": {\"command\": \"a\",},},\n}",
		"/* x */ {\"servers\": {\"a\": {\"type\": \"sse\", \"url\": \"http://localhost:1/sse\"}}} // end",
		`{"servers": []}`,
		`{"servers": {"a": {"type": "websocket", "url": "wss://a/ws"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		checkParse(t, Source{Scope: Project, App: "VS Code project", File: "/work/project/.vscode/mcp.json", Format: VSCode, Folder: "/work/project"}, data)
		checkParse(t, Source{Scope: Imported, App: "VS Code", File: "/home/me/.config/Code/User/mcp.json", Format: VSCode}, data)
	})
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"", "plain", "$", "$$", "${", "${}", "}${", "${SET}", "${UNSET}", "${EMPTY}", "${EMPTY:-d}",
		"${UNSET:-default}", "${SET:-default}", "${env:SET}", "${input:x}", "${workspaceFolder}/a",
		"${userHome}", "${CLAUDE_PLUGIN_ROOT}", "${A:-${B}}", "a${SET}b${SET2}c", "${1A}", "${:-x}",
		"$${SET}", "${SET}}", "${UNSET:-$}{SET}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := fuzzVars.Expand(s)
		out2, err2 := fuzzVars.Expand(s)
		if out != out2 || (err == nil) != (err2 == nil) {
			t.Fatalf("Expand(%q) is not deterministic", s)
		}
		if err != nil {
			if out != "" || strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("Expand(%q) = %q, %v", s, out, err)
			}
			// The error becomes a Problem's message, shown as it is.
			if msg := err.Error(); msg != sanitize.String(msg) || strings.ContainsAny(msg, "\n\t") {
				t.Fatalf("Expand(%q) error %q holds characters that hide or break text", s, msg)
			}
			return
		}
		if !strings.Contains(s, "${") && out != s {
			t.Fatalf("Expand(%q) = %q; text without ${ must stay as it is", s, out)
		}
		// Every reference is resolved: when each $ of the input starts a
		// reference (and no value holds a $), none is left in the output.
		if strings.Count(s, "$") == strings.Count(s, "${") && strings.Contains(out, "$") {
			t.Fatalf("Expand(%q) = %q leaves a reference", s, out)
		}
		// Text outside references passes through: with no reference, the
		// input is the output; otherwise the text before the first one is
		// kept.
		if i := strings.Index(s, "${"); i >= 0 && !strings.HasPrefix(out, s[:i]) {
			t.Fatalf("Expand(%q) = %q loses the text before the first reference", s, out)
		}
	})
}

func FuzzPolicy(f *testing.F) {
	for _, s := range []string{
		`{"allowedMcpServers": [{"serverName": "a"}]}`,
		`{"deniedMcpServers": [{"serverCommand": ["npx", "x"]}, {"serverUrl": "https://*.x/*"}]}`,
		`{"allowedMcpServers": [{"serverName": "a", "serverUrl": "b"}]}`,
		`{"allowedMcpServers": {}}`,
		`{"deniedMcpServers": [1, "x", null, {}]}`,
		`{"allowedMcpServers": [{"serverUrl": "**?[("}]}`,
	} {
		f.Add([]byte(s))
	}
	servers := []Server{
		{Name: "a", ConfigName: "a", Scope: User, Transport: Stdio, Command: "npx", Args: []string{"x"}},
		{Name: "b", ConfigName: "b", Scope: Imported, Transport: HTTP, URL: "https://mcp.x/mcp"},
		{Name: "c", ConfigName: "c", Scope: Local, Transport: WebSocket, URL: "wss://c.example/ws"},
	}
	corp := Server{Name: "a", ConfigName: "a", Scope: Enterprise, Transport: Stdio, Command: "npx", Args: []string{"x"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		const file = "/etc/mcptray/managed.json"
		doc, p := parseDocument(Source{Scope: Enterprise, File: file}, data)
		if p != nil {
			checkProblem(t, file, data, *p)
			return
		}
		policy, problems := doc.policy()
		for _, p := range problems {
			checkProblem(t, file, data, p)
		}
		if (len(problems) > 0) != (policy.broken != "") {
			t.Fatalf("%d problems, broken %q", len(problems), policy.broken)
		}
		for _, rules := range [][]Rule{policy.Allow, policy.Deny} {
			for _, r := range rules {
				n := 0
				for _, set := range []bool{r.ServerName != "", r.ServerCommand != nil, r.ServerURL != ""} {
					if set {
						n++
					}
				}
				if n != 1 {
					t.Fatalf("rule %+v kept", r)
				}
			}
		}
		if why := policy.Blocks(&corp); why != "" {
			t.Fatalf("the enterprise's own server is blocked: %s", why)
		}
		for _, s := range servers {
			why := policy.Blocks(&s)
			denied := false
			for _, r := range policy.Deny {
				denied = denied || r.Matches(&s)
			}
			switch {
			case policy.broken != "" && !strings.Contains(why, "policy"):
				t.Fatalf("a broken policy lets %s through", s.Name)
			case denied && why == "":
				t.Fatalf("a denied server %s is not blocked", s.Name)
			case why != "" && !strings.Contains(why, file):
				t.Fatalf("reason %q does not name the policy file", why)
			}
		}
	})
}
