package sets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

func TestWhatAnAppGets(t *testing.T) {
	t.Parallel()
	var c Choices
	if err := c.Put(Set{Name: "Work", Servers: []string{"github"}, Tools: []string{"notes/read"}}, []string{"github", "notes", "mail"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(Set{Name: "Home", Servers: []string{"calendar"}, NewServers: true, Hidden: []string{"mcp__calendar__delete"}}, []string{"calendar", "github"}); err != nil {
		t.Fatal(err)
	}
	must(t, c.Give("Cursor", "Work"))
	must(t, c.Give("Claude", Tray))
	must(t, c.SetTray("Home"))

	cursor := c.For("Cursor", true)
	if cursor.Name() != "the Work set" || !cursor.Holds("github", "x", "mcp__github__x") || !cursor.Holds("notes", "read", "mcp__notes__read") ||
		cursor.Holds("notes", "write", "mcp__notes__write") || cursor.Holds("mail", "send", "mcp__mail__send") {
		t.Errorf("Cursor gets the wrong tools: %+v", cursor)
	}
	claude := c.For("Claude", true)
	if claude.Name() != "the Home set" || claude.Holds("github", "x", "mcp__github__x") || !claude.Holds("calendar", "list", "mcp__calendar__list") ||
		claude.Holds("calendar", "delete", "mcp__calendar__delete") {
		t.Errorf("Claude gets the wrong tools: %+v", claude)
	}
	// A server set up after Home was made joins it: it holds new servers.
	if !claude.Holds("weather", "today", "mcp__weather__today") {
		t.Error("a new server did not join the set that holds new servers too")
	}
	if cursor.Holds("weather", "today", "mcp__weather__today") {
		t.Error("a new server joined a set that does not hold new servers")
	}
	if g := c.For("Zed", true); g.Name() != "everything" || !g.Holds("mail", "send", "mcp__mail__send") {
		t.Errorf("a known app with no choice gets %s", g.Name())
	}
	// An unknown app that claims Cursor's name gets the default, not Cursor's set.
	if g := c.For("Cursor", false); g.Set != nil || g.Name() != "everything" {
		t.Errorf("an unknown app calling itself Cursor gets %s", g.Name())
	}
	c.Unknown = Nothing
	if g := c.For("Cursor", false); !g.Nothing || g.Holds("github", "x", "mcp__github__x") {
		t.Errorf("an unknown app gets %s with the default nothing", g.Name())
	}
	// Removing the tray's set: its followers get everything.
	must(t, c.Remove("Home"))
	if g := c.For("Claude", true); g.Name() != "everything" {
		t.Errorf("after removing the tray's set Claude gets %s", g.Name())
	}
}

func TestBadInputIsRefusedInWords(t *testing.T) {
	t.Parallel()
	var c Choices
	must(t, c.Put(Set{Name: "Work"}, nil))
	for _, tc := range []struct {
		err  error
		want string
	}{
		{c.Put(Set{Name: ""}, nil), "needs a name"},
		{c.Put(Set{Name: "all"}, nil), "cannot be called"},
		{c.Put(Set{Name: "tray"}, nil), "the tray's set"},
		{c.Put(Set{Name: "work"}, nil), "is there already"},
		{c.Put(Set{Name: "a\x1b[31m"}, nil), "may hold only"},
		{c.Put(Set{Name: "X", Tools: []string{"github"}}, nil), "SERVER/TOOL"},
		{c.Put(Set{Name: "X", Permissions: map[string]config.Permission{"mcp__a__b": "maybe"}}, nil), "allow, ask or block"},
		{c.Give("Cursor", "Nope"), `no set called "Nope"`},
		{c.SetTray("Nope"), `no set called "Nope"`},
		{c.Remove("Nope"), `no set called "Nope"`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("got %v, want an error saying %q", tc.err, tc.want)
		}
	}
}

func TestFileIsWrittenWholeAndReadBack(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray", FileName)
	if c, err := Read(path); err != nil || len(c.Sets) != 0 {
		t.Fatalf("a missing file: %+v, %v", c, err)
	}
	c, err := Modify(path, func(c *Choices) error {
		if err := c.Put(Set{Name: "Work", Servers: []string{"github"}}, []string{"github"}); err != nil {
			return err
		}
		return c.Give("Cursor", "Work")
	})
	must(t, err)
	back, err := Read(path)
	must(t, err)
	if back.For("Cursor", true).Name() != "the Work set" || c.For("Cursor", true).Name() != "the Work set" {
		t.Fatalf("read back: %+v", back)
	}
	// A change that fails writes nothing.
	before, _ := os.ReadFile(path)
	if _, err := Modify(path, func(c *Choices) error { return c.Give("Cursor", "Nope") }); err == nil {
		t.Fatal("a bad change was taken")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("a refused change changed the file")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode: %v %v", fi.Mode(), err)
	}
}

func TestForgedFilesAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown-field": `{"version":1,"sets":[{"name":"Work","run":"rm -rf"}]}`,
		"tray-missing":  `{"version":1,"tray":"Ghost"}`,
		"app-missing":   `{"version":1,"apps":{"Cursor":"Ghost"}}`,
		"newer":         `{"version":9}`,
		"unknown-bad":   `{"version":1,"unknown":"some"}`,
		"half":          `{"version":1,"sets":[`,
	} {
		path := filepath.Join(dir, name)
		must(t, os.WriteFile(path, []byte(body), 0o600))
		if _, err := Read(path); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
