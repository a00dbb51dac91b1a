package gateway

import (
	"strings"
	"testing"
)

func TestClientsTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range Clients {
		key := strings.ToLower(c.ClientName)
		if seen[key] {
			t.Errorf("%q is in the table twice", c.ClientName)
		}
		seen[key] = true
		if c.App == "" {
			t.Errorf("%q names no app", c.ClientName)
		}
	}
	for name, want := range map[string]string{
		"claude-ai": "Claude Desktop", "claude-code": "Claude Code", "Cursor-VSCode": "Cursor", "Visual Studio Code": "VS Code",
	} {
		if c, ok := ClientOf(name); !ok || c.App != want {
			t.Errorf("ClientOf(%q) = %+v, %v; want %s", name, c, ok, want)
		}
	}
	if _, ok := ClientOf("gateway-test"); ok {
		t.Error("an unknown client was recognised")
	}
}

func TestToolWarning(t *testing.T) {
	t.Parallel()
	cursor, _ := ClientOf("cursor-vscode")
	vscode, _ := ClientOf("Visual Studio Code")
	claude, _ := ClientOf("claude-ai")
	for _, tc := range []struct {
		c     Client
		tools int
		want  string // a part of the warning; "" for none
	}{
		{cursor, 10, ""},
		{cursor, 31, ""},
		{cursor, 32, "close to the 40"},
		{cursor, 40, "close to the 40"},
		{cursor, 41, "more than the 40"},
		{vscode, 100, ""},
		{vscode, 103, "close to the 128"},
		{vscode, 129, "more than the 128"},
		{claude, 500, ""},
	} {
		got := tc.c.ToolWarning(tc.tools)
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s with %d tools warns %q", tc.c.App, tc.tools, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s with %d tools: %q, want it to say %q", tc.c.App, tc.tools, got, tc.want)
		case tc.want != "" && !strings.Contains(got, "hide servers or tools you don't need"):
			t.Errorf("%s with %d tools: %q does not say what to do", tc.c.App, tc.tools, got)
		}
	}
}
