package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"HOME":   "/home/me",
		"TOKEN":  "t0k",
		"EMPTY":  "",
		"A":      "a",
		"B":      "b",
		"DOLLAR": "${B}",
		"_x1":    "underscore",
	}
	full := Vars{Lookup: mapLookup(env), Folder: "/work/shop", Home: "/home/me", PluginRoot: "/plugins/p"}
	bare := Vars{Lookup: mapLookup(env)}
	tests := []struct {
		name    string
		vars    Vars
		in      string
		want    string
		wantErr string // a part of the error; "" means none
	}{
		{"no reference", full, "npx -y server", "npx -y server", ""},
		{"empty", full, "", "", ""},
		{"lone dollar", full, "$HOME and $", "$HOME and $", ""},
		{"dollar before brace-less text", full, "cost: $5, $$, a$", "cost: $5, $$, a$", ""},
		{"dollar then reference", full, "$${A}", "$a", ""},
		{"variable", full, "${HOME}", "/home/me", ""},
		{"variable inside text", full, "--dir=${HOME}/data", "--dir=/home/me/data", ""},
		{"several references", full, "${A}-${B}:${A}", "a-b:a", ""},
		{"adjacent references", full, "${A}${B}", "ab", ""},
		{"underscore and digits in a name", full, "${_x1}", "underscore", ""},
		{"set but empty without default", full, "[${EMPTY}]", "[]", ""},
		{"default when unset", full, "${PORT:-8080}", "8080", ""},
		{"default when empty", full, "${EMPTY:-fallback}", "fallback", ""},
		{"default ignored when set", full, "${A:-other}", "a", ""},
		{"empty default", full, "x${PORT:-}y", "xy", ""},
		{"default holding :-", full, "${PORT:-a:-b}", "a:-b", ""},
		{"default holding spaces and $", full, "${PORT:-with space $5}", "with space $5", ""},
		{"closing brace after a reference is text", full, "${A}}", "a}", ""},
		{"a value is not expanded again", full, "${DOLLAR}", "${B}", ""},
		{"env: prefix", full, "Bearer ${env:TOKEN}", "Bearer t0k", ""},
		{"workspaceFolder", full, "${workspaceFolder}/bin/mcp", "/work/shop/bin/mcp", ""},
		{"workspaceRoot is its old name", full, "${workspaceRoot}", "/work/shop", ""},
		{"userHome", full, "${userHome}/.cache", "/home/me/.cache", ""},
		{"CLAUDE_PLUGIN_ROOT", full, "${CLAUDE_PLUGIN_ROOT}/bin", "/plugins/p/bin", ""},
		{"MCPTRAY_PLUGIN_ROOT", full, "${MCPTRAY_PLUGIN_ROOT}", "/plugins/p", ""},
		{"plugin root outside a plugin is an ordinary variable", Vars{Lookup: mapLookup(map[string]string{"CLAUDE_PLUGIN_ROOT": "/env"})}, "${CLAUDE_PLUGIN_ROOT}", "/env", ""},

		{"unset without default", full, "${MISSING}", "", "environment variable MISSING is not set"},
		{"unset env:", full, "${env:MISSING}", "", "environment variable MISSING is not set"},
		{"nil lookup", Vars{}, "${HOME}", "", "HOME is not set"},
		{"plugin root unset outside a plugin", bare, "${CLAUDE_PLUGIN_ROOT}", "", "CLAUDE_PLUGIN_ROOT is not set"},
		{"workspaceFolder outside a folder", bare, "${workspaceFolder}", "", "outside a project folder"},
		{"input", full, "${input:token}", "", "asks for input"},
		{"unterminated", full, "--x=${HOME", "", "without its closing }"},
		{"unterminated after a good one", full, "${A}/${B", "", "without its closing }"},
		{"empty reference", full, "${}", "", "is not a variable"},
		{"empty name with default", full, "${:-x}", "", "is not a variable"},
		{"name starting with a digit", full, "${1PASSWORD}", "", "is not a variable"},
		{"name with a dash", full, "${MY-VAR}", "", "is not a variable"},
		{"name with a space", full, "${A B}", "", "is not a variable"},
		{"bash-style substitution", full, "${A/x/y}", "", "is not a variable"},
		{"unknown prefix", full, "${config:a.b}", "", "is not a variable"},
		{"nested reference in a default", full, "${PORT:-${A}}", "", "inside another"},
		{"nested reference in a default, text after", full, "${PORT:-${HOME}/x}", "", "inside another"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.vars.Expand(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Expand(%q) = %q, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Expand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestExpandErrorHidesValues: an env or header value may be a secret, and
// expansion errors end up in Problems that a person sees and logs keep.
func TestExpandErrorHidesValues(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"sk-live-12345${", "sk-live-12345 ${A"} {
		_, err := Vars{}.Expand(in)
		if err == nil {
			t.Fatalf("Expand(%q) did not fail", in)
		}
		if strings.Contains(err.Error(), "sk-live-12345") {
			t.Errorf("Expand(%q) error %q shows the value", in, err)
		}
	}
}

// TestExpandServerFields checks that every field the design names is
// expanded, and what is not expanded.
func TestExpandServerFields(t *testing.T) {
	t.Parallel()
	env := map[string]string{"BIN": "/opt/bin", "TOKEN": "t0k", "HOST": "mcp.example", "DIR": "/srv", "NODE": "node"}
	vars := Vars{Lookup: mapLookup(env), Home: "/home/me"}
	data := `{"mcpServers": {
  "local": {
    "command": "${BIN}/server",
    "args": ["--token", "${TOKEN}", "${MISSING:-dflt}"],
    "env": {"API_TOKEN": "${TOKEN}", "PATH_EXTRA": "${userHome}/bin", "${NODE}": "name kept"},
    "cwd": "${DIR}/work",
    "envFile": "${DIR}/.env"
  },
  "remote": {
    "url": "https://${HOST}/mcp?v=${MISSING:-1}",
    "headers": {"Authorization": "Bearer ${TOKEN}", "X-Home": "${userHome}"}
  }
}}`
	got, problems := parse(Source{Format: MCPServers}, vars, data)
	if len(problems) > 0 || len(got) != 2 {
		t.Fatalf("servers %q, problems:%s", serverNames(got), problemText(problems))
	}
	l, r := got[0], got[1]
	checks := []struct {
		field string
		got   any
		want  any
	}{
		{"command", l.Command, "/opt/bin/server"},
		{"args", l.Args, []string{"--token", "t0k", "dflt"}},
		{"env", l.Env, map[string]string{"API_TOKEN": "t0k", "PATH_EXTRA": "/home/me/bin", "${NODE}": "name kept"}},
		{"cwd", l.Cwd, "/srv/work"},
		{"envFile", l.EnvFile, "/srv/.env"},
		{"url", r.URL, "https://mcp.example/mcp?v=1"},
		{"headers", r.Headers, map[string]string{"Authorization": "Bearer t0k", "X-Home": "/home/me"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
}

// TestExpandProblemIsPerServer: a variable that is not set takes down its
// own server and no other in the file.
func TestExpandProblemIsPerServer(t *testing.T) {
	t.Parallel()
	data := `{"mcpServers": {
  "first": {"command": "a"},
  "needs-key": {"command": "b", "env": {"KEY": "${API_KEY}"}},
  "needs-host": {"url": "https://${HOST}/mcp"},
  "bad-header": {"url": "https://c.example", "headers": {"X": "${input:x}"}},
  "last": {"url": "https://d.example/mcp"}
}}`
	got, problems := parse(Source{Format: MCPServers}, Vars{Lookup: mapLookup(nil)}, data)
	if want := []string{"first", "last"}; !reflect.DeepEqual(serverNames(got), want) {
		t.Errorf("servers %q, want %q", serverNames(got), want)
	}
	want := []struct {
		server, message string
		line            int
	}{
		{"needs-key", "environment variable API_KEY is not set (set it, or write ${API_KEY:-default})", 3},
		{"needs-host", "environment variable HOST is not set", 4},
		{"bad-header", "asks for input", 5},
	}
	if len(problems) != len(want) {
		t.Fatalf("problems:%s", problemText(problems))
	}
	for i, w := range want {
		p := problems[i]
		column := len(`  "` + w.server + `": {`) // the entry's opening brace
		if p.Server != w.server || !strings.Contains(p.Message, w.message) || p.Line != w.line || p.Column != column {
			t.Errorf("problem %d = %s, want server %q at %d:%d with %q", i, p.Error(), w.server, w.line, column, w.message)
		}
	}
}

func TestExpandEnvPrefixWithDefault(t *testing.T) {
	t.Parallel()
	v := Vars{Lookup: func(k string) (string, bool) { return map[string]string{"SET": "yes"}[k], k == "SET" }}
	for in, want := range map[string]string{"${env:SET:-no}": "yes", "${env:UNSET:-no}": "no"} {
		if got, err := v.Expand(in); err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
