package config

import (
	"reflect"
	"testing"
)

// setOf parses an .mcp.json of a project folder into a Set, with decisions.
func setOf(t *testing.T, data string, decisions map[string]Decision) *Set {
	t.Helper()
	servers, problems := parse(Source{Scope: Local, App: ".mcp.json", File: "/p/.mcp.json", Folder: "/p", Format: MCPServers}, Vars{}, data)
	if len(problems) > 0 {
		t.Fatal(problemText(problems))
	}
	return merge(servers, nil, decisions)
}

func TestDiff(t *testing.T) {
	t.Parallel()
	const base = `{"mcpServers": {
  "a": {"command": "a", "args": ["1"]},
  "b": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer one"}},
  "c": {"command": "c"}
}}`
	approveA := func(t *testing.T) map[string]Decision {
		s := setOf(t, base, nil)
		e, _ := s.Find("a")
		return map[string]Decision{e.ApprovalKey: {Approval: Approved}}
	}
	tests := []struct {
		name                    string
		old, new                string
		oldDecisions            func(*testing.T) map[string]Decision
		newDecisions            func(*testing.T) map[string]Decision
		added, removed, changed []string
	}{
		{name: "nothing", old: base, new: base},
		{name: "entries moved to other lines and keys reordered", old: base, new: `{"mcpServers": {


  "c": {"command": "c"},
  "b": {"headers": {"Authorization": "Bearer one"}, "url": "https://b.example/mcp"},
      "a": {"args": ["1"], "command": "a"}
}}`},
		{name: "added", old: base, new: `{"mcpServers": {
  "a": {"command": "a", "args": ["1"]},
  "b": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer one"}},
  "c": {"command": "c"},
  "d": {"command": "d"}
}}`, added: []string{"d"}},
		{name: "removed", old: base, new: `{"mcpServers": {"b": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer one"}}}}`,
			removed: []string{"a", "c"}},
		{name: "command changed", old: base, new: `{"mcpServers": {
  "a": {"command": "a2", "args": ["1"]},
  "b": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer one"}},
  "c": {"command": "c"}
}}`, changed: []string{"a"}},
		{name: "header value changed: reconnect with the new token", old: base, new: `{"mcpServers": {
  "a": {"command": "a", "args": ["1"]},
  "b": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer two"}},
  "c": {"command": "c"}
}}`, changed: []string{"b"}},
		{name: "disabled", old: base, new: `{"mcpServers": {
  "a": {"command": "a", "args": ["1"]},
  "b": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer one"}},
  "c": {"command": "c", "disabled": true}
}}`, changed: []string{"c"}},
		{name: "approval changed", old: base, new: base, newDecisions: approveA, changed: []string{"a"}},
		{name: "approval withdrawn", old: base, new: base, oldDecisions: approveA, changed: []string{"a"}},
		{name: "renamed is removed and added", old: base, new: `{"mcpServers": {
  "a": {"command": "a", "args": ["1"]},
  "bee": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer one"}},
  "c": {"command": "c"}
}}`, added: []string{"bee"}, removed: []string{"b"}},
		{name: "all at once", old: base, new: `{"mcpServers": {
  "c": {"command": "c", "args": ["new"]},
  "e": {"command": "e"},
  "a": {"command": "a", "args": ["1"]}
}}`, added: []string{"e"}, removed: []string{"b"}, changed: []string{"c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var od, nd map[string]Decision
			if tt.oldDecisions != nil {
				od = tt.oldDecisions(t)
			}
			if tt.newDecisions != nil {
				nd = tt.newDecisions(t)
			}
			c := Diff(setOf(t, tt.old, od), setOf(t, tt.new, nd))
			for _, x := range []struct {
				what      string
				got, want []string
			}{{"added", names(c.Added), tt.added}, {"removed", names(c.Removed), tt.removed}, {"changed", names(c.Changed), tt.changed}} {
				if len(x.got)+len(x.want) > 0 && !reflect.DeepEqual(x.got, x.want) {
					t.Errorf("%s %q, want %q", x.what, x.got, x.want)
				}
			}
			if c.Empty() != (len(tt.added)+len(tt.removed)+len(tt.changed) == 0) {
				t.Errorf("Empty() = %v for %+v", c.Empty(), c)
			}
		})
	}
}

func TestDiffNil(t *testing.T) {
	t.Parallel()
	s := setOf(t, `{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}`, nil)
	if c := Diff(nil, s); !reflect.DeepEqual(names(c.Added), []string{"a", "b"}) || len(c.Removed)+len(c.Changed) != 0 {
		t.Errorf("Diff(nil, s) = %+v", c)
	}
	if c := Diff(s, nil); !reflect.DeepEqual(names(c.Removed), []string{"a", "b"}) || len(c.Added)+len(c.Changed) != 0 {
		t.Errorf("Diff(s, nil) = %+v", c)
	}
	if c := Diff(nil, nil); !c.Empty() {
		t.Errorf("Diff(nil, nil) = %+v", c)
	}
	// The changed entry is the new one; the removed one is the old one.
	n := setOf(t, `{"mcpServers": {"a": {"command": "a2"}}}`, nil)
	c := Diff(s, n)
	if len(c.Changed) != 1 || c.Changed[0].Command != "a2" || len(c.Removed) != 1 || c.Removed[0].Command != "b" {
		t.Errorf("Diff = %+v", c)
	}
}
