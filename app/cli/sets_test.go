package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/sets"
)

// TestSetsCommands: mcptray set makes a set of the servers mcptray has,
// app set gives it to an app, sets lists it, set remove takes it away;
// a server mcptray does not have, or a set that is not there, is refused
// in words.
func TestSetsCommands(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.must("add", "notes", "--", "notes-mcp")
	h.must("add", "github", "--url", "https://api.example.com/mcp")
	if out := h.must("set", "Work", "--servers", "github", "--tools", "notes/read", "--new-servers"); !strings.Contains(out, "Made the Work set") {
		t.Errorf("set printed %q", out)
	}
	h.fails(1, `no server called "ghost"`, "set", "Home", "--servers", "ghost")
	h.fails(2, "a set holds something", "set", "Home")
	h.fails(1, "SERVER/TOOL", "set", "Home", "--tools", "notes")
	h.must("app", "set", "cursor", "Work")
	h.must("app", "set", "claude-code", "tray")
	h.fails(1, `no set called "Play"`, "app", "set", "cursor", "Play")
	out := h.must("sets")
	for _, want := range []string{"The Work set:", "servers: github", "single tools: notes/read", "new servers too", "given to: cursor"} {
		if !strings.Contains(out, want) {
			t.Errorf("sets printed %q, want %q", out, want)
		}
	}
	var v service.SetsView
	if err := json.Unmarshal([]byte(h.must("sets", "--json")), &v); err != nil || len(v.Sets) != 1 || v.Apps["cursor"] != "Work" {
		t.Errorf("sets --json: %+v, %v", v, err)
	}
	back, err := sets.Read(sets.Path(h.paths))
	if err != nil || back.For("cursor", true).Name() != "the Work set" || back.For("claude-code", true).Name() != "everything" {
		t.Errorf("the file: %+v, %v", back, err)
	}
	h.must("app", "unknown", "none")
	h.fails(1, `gets all or none, not "some"`, "app", "unknown", "some")
	if c, err := sets.Read(sets.Path(h.paths)); err != nil || !c.For("anyone", false).Nothing {
		t.Errorf("after app unknown none: %+v, %v", c, err)
	}
	h.must("set", "remove", "Work")
	if out := h.must("sets"); !strings.Contains(out, "No sets") {
		t.Errorf("after remove, sets printed %q", out)
	}
	// An app's own token names it, and is the same each time.
	tok := strings.TrimSpace(h.must("app", "token", "cursor"))
	if !strings.HasPrefix(tok, "mcptray-app.") || tok != strings.TrimSpace(h.must("app", "token", "cursor")) || tok == strings.TrimSpace(h.must("app", "token", "zed")) {
		t.Errorf("app token printed %q", tok)
	}
}

// TestSetRulesCommand: mcptray set NAME --allow/--ask/--block/--hide
// gives a set's own permissions and hiding, written SERVER/TOOL, keeping
// what the set holds; --general and --show take them back; sets and sets
// --json show them; a tool the connected server does not have, a tool
// given two permissions, or a tool not written SERVER/TOOL is refused in
// words; one of a server not connected (here no mcptray runs, so none
// is) is taken, said not checked. (A running mcptray refuses a tool its
// connected server lacks: core/service's TestSetSingleToolsAreChecked.)
func TestSetRulesCommand(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.must("add", "echo", "--", "echo-mcp")
	h.must("add", "notes", "--", "notes-mcp")
	h.must("set", "Work", "--servers", "echo")
	out := h.must("set", "Work", "--allow", "echo/echo", "--block", "echo/add", "--hide", "echo/ask,notes/write")
	if !strings.Contains(out, "Changed the Work set: ") || !strings.Contains(out, `Not checked: notes is not connected now, so mcptray could not check that it has a tool called "write"`) {
		t.Errorf("set --allow printed %q", out)
	}
	out = h.must("sets")
	for _, want := range []string{"servers: echo", "allowed in this set: mcp__echo__echo", "blocked in this set: mcp__echo__add", "hidden in this set: mcp__echo__ask, mcp__notes__write"} {
		if !strings.Contains(out, want) {
			t.Errorf("sets printed %q, want %q", out, want)
		}
	}
	var v service.SetsView
	if err := json.Unmarshal([]byte(h.must("sets", "--json")), &v); err != nil || len(v.Sets) != 1 ||
		v.Sets[0].Permissions["mcp__echo__add"] != "block" || len(v.Sets[0].Hidden) != 2 || len(v.Sets[0].Servers) != 1 {
		t.Errorf("sets --json: %+v, %v", v, err)
	}
	h.must("set", "Work", "--general", "echo/add", "--show", "notes/write")
	if c, err := sets.Read(sets.Path(h.paths)); err != nil || len(c.Sets[0].Permissions) != 1 || len(c.Sets[0].Hidden) != 1 {
		t.Errorf("after --general and --show: %+v, %v", c, err)
	}
	h.fails(1, `no server called "ghost" in mcptray (for the tool ghost/x)`, "set", "Work", "--block", "ghost/x")
	h.fails(2, "two permissions", "set", "Work", "--allow", "echo/add", "--block", "echo/add")
	h.fails(1, `a tool is written SERVER/TOOL, not "add"`, "set", "Work", "--allow", "add")
	h.fails(1, `no set called "Home"`, "set", "Home", "--allow", "echo/add")
	h.must("set", "Work", "--rename", "Office")
	if c, err := sets.Read(sets.Path(h.paths)); err != nil || len(c.Sets) != 1 || c.Sets[0].Name != "Office" || len(c.Sets[0].Permissions) != 1 {
		t.Errorf("after --rename: %+v, %v", c, err)
	}
}
