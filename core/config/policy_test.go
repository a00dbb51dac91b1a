package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// policyFrom parses an enterprise file's text into its policy.
func policyFrom(t *testing.T, data string) (*Policy, []Problem) {
	t.Helper()
	d, p := parseDocument(Source{Scope: Enterprise, File: "/etc/mcptray/managed.json"}, []byte(data))
	if p != nil {
		t.Fatalf("enterprise file: %s", p)
	}
	return d.policy()
}

func TestPolicyBlocks(t *testing.T) {
	t.Parallel()
	stdio := func(name, cmd string, args ...string) Server {
		return Server{Name: name, ConfigName: name, Scope: User, Transport: Stdio, Command: cmd, Args: args}
	}
	remote := func(name, url string) Server {
		return Server{Name: name, ConfigName: name, Scope: Imported, Transport: HTTP, URL: url}
	}
	tests := []struct {
		name    string
		policy  string
		server  Server
		blocked string // a part of the reason; "" means allowed
	}{
		{"no lists", `{}`, stdio("a", "a"), ""},
		{"deny by name", `{"deniedMcpServers": [{"serverName": "evil"}]}`, stdio("evil", "x"), `denies name "evil"`},
		{"deny by name, other name", `{"deniedMcpServers": [{"serverName": "evil"}]}`, stdio("good", "x"), ""},
		{"deny by name matches the name as written", `{"deniedMcpServers": [{"serverName": "evil"}]}`,
			Server{Name: "evil-2", ConfigName: "evil", Scope: User, Transport: Stdio, Command: "x"}, "denies"},
		{"deny by command, exact", `{"deniedMcpServers": [{"serverCommand": ["npx", "-y", "bad"]}]}`, stdio("b", "npx", "-y", "bad"), `denies command "npx -y bad"`},
		{"deny by command, other args", `{"deniedMcpServers": [{"serverCommand": ["npx", "-y", "bad"]}]}`, stdio("b", "npx", "-y", "bad", "--x"), ""},
		{"deny by command, prefix is not enough", `{"deniedMcpServers": [{"serverCommand": ["npx"]}]}`, stdio("b", "npx", "-y", "bad"), ""},
		{"command rule never matches a remote server", `{"deniedMcpServers": [{"serverCommand": ["https://a.example"]}]}`, remote("r", "https://a.example"), ""},
		{"deny by url, exact", `{"deniedMcpServers": [{"serverUrl": "https://bad.example/mcp"}]}`, remote("r", "https://bad.example/mcp"), `denies url "https://bad.example/mcp"`},
		{"deny by url wildcard", `{"deniedMcpServers": [{"serverUrl": "https://*.bad.example/*"}]}`, remote("r", "https://eu.bad.example/v1/mcp"), "denies"},
		{"url wildcard anchored", `{"deniedMcpServers": [{"serverUrl": "https://*.bad.example/*"}]}`, remote("r", "https://bad.example.good.example/x"), ""},
		{"url dots are literal", `{"deniedMcpServers": [{"serverUrl": "https://a.example/mcp"}]}`, remote("r", "https://aXexample/mcp"), ""},
		{"url rule never matches a stdio server", `{"deniedMcpServers": [{"serverUrl": "*"}]}`, stdio("s", "x"), ""},
		{"allow list, listed by name", `{"allowedMcpServers": [{"serverName": "ok"}]}`, stdio("ok", "x"), ""},
		{"allow list, listed by url", `{"allowedMcpServers": [{"serverUrl": "https://*.corp.example/*"}]}`, remote("r", "https://mcp.corp.example/mcp"), ""},
		{"allow list, listed by command", `{"allowedMcpServers": [{"serverCommand": ["uvx", "corp-mcp"]}]}`, stdio("c", "uvx", "corp-mcp"), ""},
		{"allow list, unlisted", `{"allowedMcpServers": [{"serverName": "ok"}]}`, stdio("other", "x"), "allows only listed servers"},
		{"empty allow list blocks everything", `{"allowedMcpServers": []}`, stdio("a", "a"), "allows only listed servers"},
		{"deny wins over allow", `{"allowedMcpServers": [{"serverName": "both"}], "deniedMcpServers": [{"serverName": "both"}]}`, stdio("both", "x"), "denies"},
		{"deny list alone allows the rest", `{"deniedMcpServers": [{"serverName": "x"}]}`, remote("r", "https://a.example"), ""},
		{"enterprise servers are never filtered", `{"allowedMcpServers": [], "deniedMcpServers": [{"serverName": "corp"}]}`,
			Server{Name: "corp", ConfigName: "corp", Scope: Enterprise, Transport: Stdio, Command: "corp"}, ""},
		{"dynamic servers are filtered", `{"allowedMcpServers": []}`,
			Server{Name: "d", ConfigName: "d", Scope: Dynamic, Transport: Stdio, Command: "d"}, "allows only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, problems := policyFrom(t, tt.policy)
			if len(problems) > 0 {
				t.Fatal(problemText(problems))
			}
			got := p.Blocks(&tt.server)
			if tt.blocked == "" && got != "" || tt.blocked != "" && !strings.Contains(got, tt.blocked) {
				t.Errorf("Blocks = %q, want %q", got, tt.blocked)
			}
			if got != "" && !strings.Contains(got, p.File) {
				t.Errorf("reason %q does not name the policy file", got)
			}
		})
	}
	if got := (*Policy)(nil).Blocks(&Server{Scope: Local}); got != "" {
		t.Errorf("a nil policy blocks: %q", got)
	}
}

func TestPolicyMalformed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		data         string
		line, column int
		message      string
		wantAllow    []Rule // the good rules are still read
	}{
		{"rule with two fields", `{"allowedMcpServers": [{"serverName": "a"}, {"serverName": "b", "serverUrl": "https://b"}]}`,
			1, 45, "exactly one of", []Rule{{ServerName: "a"}}},
		{"empty rule", `{"allowedMcpServers": [{}]}`, 1, 24, "exactly one of", []Rule{}},
		{"rule is a string", "{\n\"allowedMcpServers\": [\"github\"]}", 2, 23, "exactly one of", []Rule{}},
		{"command is a string", `{"deniedMcpServers": [{"serverCommand": "npx bad"}]}`, 1, 23, "exactly one of", nil},
		{"command holds a number", `{"deniedMcpServers": [{"serverCommand": ["npx", 1]}]}`, 1, 23, "exactly one of", nil},
		{"list is an object", `{"deniedMcpServers": {"serverName": "x"}}`, 1, 22, `"deniedMcpServers" must be a list of rules`, nil},
		{"list is null", `{"allowedMcpServers": null}`, 1, 23, `"allowedMcpServers" must be a list of rules`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, problems := policyFrom(t, tt.data)
			if len(problems) != 1 {
				t.Fatalf("problems:%s", problemText(problems))
			}
			if pr := problems[0]; pr.Line != tt.line || pr.Column != tt.column || !strings.Contains(pr.Message, tt.message) {
				t.Errorf("problem %s, want %d:%d %q", pr.Error(), tt.line, tt.column, tt.message)
			}
			if !reflect.DeepEqual(p.Allow, tt.wantAllow) {
				t.Errorf("Allow = %+v, want %+v", p.Allow, tt.wantAllow)
			}
			// A broken policy holds back everything but the enterprise's own.
			for _, s := range []Server{
				{Name: "a", ConfigName: "a", Scope: User, Transport: Stdio, Command: "a"},
				{Name: "r", ConfigName: "r", Scope: Imported, Transport: HTTP, URL: "https://r"},
			} {
				if why := p.Blocks(&s); !strings.Contains(why, "policy") || !strings.Contains(why, "held back") {
					t.Errorf("Blocks(%s) = %q, want it held back by the policy", s.Name, why)
				}
			}
			if why := p.Blocks(&Server{Scope: Enterprise, Transport: Stdio, Command: "corp"}); why != "" {
				t.Errorf("the enterprise's own server is held back: %q", why)
			}
		})
	}
}

func TestRuleString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		r    Rule
		want string
	}{
		{Rule{ServerName: "gh"}, `name "gh"`},
		{Rule{ServerCommand: []string{"npx", "-y", "x"}}, `command "npx -y x"`},
		{Rule{ServerURL: "https://*.example/*"}, `url "https://*.example/*"`},
	} {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
	if (Rule{}).Matches(&Server{Name: "", Transport: Stdio}) {
		t.Error("an empty rule matches")
	}
}

// TestPolicyThroughLoad runs the lists over every scope of a temporary home.
func TestPolicyThroughLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		enterprise string
		running    []string
		blocked    map[string]string // name → a part of its reason
		problem    string            // a part of the one expected problem; "" none
	}{
		{
			name: "allow and deny lists",
			enterprise: `{
  "mcpServers": {"corp": {"command": "corp-mcp"}},
  "allowedMcpServers": [{"serverName": "notes"}, {"serverUrl": "https://*.corp.example/*"}, {"serverCommand": ["uvx", "shop"]}, {"serverName": "evil"}],
  "deniedMcpServers": [{"serverName": "evil"}, {"serverName": "corp"}]
}`,
			running: []string{"corp", "notes", "shop", "wiki"},
			blocked: map[string]string{"evil": `denies name "evil"`, "random": "allows only listed", "outside": "allows only listed"},
		},
		{
			name:       "malformed policy holds back everything but the enterprise's own",
			enterprise: `{"mcpServers": {"corp": {"command": "corp-mcp"}}, "deniedMcpServers": [{"serverName": "evil", "serverUrl": "https://x"}]}`,
			running:    []string{"corp"},
			blocked: map[string]string{"notes": "policy", "shop": "policy", "wiki": "policy", "evil": "policy",
				"random": "policy", "outside": "policy"},
			problem: "exactly one of",
		},
		{
			name:       "unparsable policy file holds back everything",
			enterprise: `{"allowedMcpServers": [`,
			blocked: map[string]string{"notes": "cannot be read", "shop": "policy", "wiki": "policy", "evil": "policy",
				"random": "policy", "outside": "policy"},
			problem: "is not valid JSON",
		},
		{
			name:    "no policy file allows everything",
			running: []string{"notes", "shop", "evil", "wiki", "random", "outside"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newTestHome(t)
			if tt.enterprise != "" {
				writeFile(t, h.paths.Enterprise, tt.enterprise)
			}
			h.userFile(t, `{"notes": {"command": "notes-mcp"}, "shop": {"command": "uvx", "args": ["shop"]}, "evil": {"command": "evil"}}`)
			writeFile(t, filepath.Join(h.paths.Home, ".cursor", "mcp.json"),
				`{"mcpServers": {"wiki": {"url": "https://wiki.corp.example/mcp"}, "random": {"command": "random"}, "outside": {"url": "https://corp.example.evil/mcp"}}}`)
			set := h.loader(nil).Load()

			if !reflect.DeepEqual(names(set.Servers), tt.running) && len(set.Servers)+len(tt.running) > 0 {
				t.Errorf("running %q, want %q", names(set.Servers), tt.running)
			}
			if len(set.Suppressed) != len(tt.blocked) {
				t.Errorf("suppressed %q, want %d", names(set.Suppressed), len(tt.blocked))
			}
			for _, e := range set.Suppressed {
				if want, ok := tt.blocked[e.Name]; !ok || !strings.Contains(e.Suppressed, want) || e.SuppressedBy != "" || e.Runnable() {
					t.Errorf("%s suppressed with %q (by %q), want a reason containing %q", e.Name, e.Suppressed, e.SuppressedBy, want)
				}
			}
			switch {
			case tt.problem == "" && len(set.Problems) > 0:
				t.Errorf("problems:%s", problemText(set.Problems))
			case tt.problem != "" && (len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, tt.problem) || set.Problems[0].File != h.paths.Enterprise):
				t.Errorf("problems:%s\nwant one about the policy containing %q", problemText(set.Problems), tt.problem)
			}
		})
	}
}
