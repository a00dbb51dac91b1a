package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/sandbox/sandboxtest"
)

func serversJSON(t *testing.T, servers map[string]string) string {
	t.Helper()
	m := map[string]json.RawMessage{}
	for name, entry := range servers {
		m[name] = json.RawMessage(entry)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// refused is the entry of set called name that does not run, with why.
func refused(set *Set, name string) (string, bool) {
	for _, e := range set.Suppressed {
		if e.Name == name {
			return e.Suppressed, true
		}
	}
	return "", false
}

// TestSharedDataFolderRefused: a project's server whose name gives the
// person's server's data folder (a hash collision found on purpose) does
// not run, and says why in plain words; the person's runs.
func TestSharedDataFolderRefused(t *testing.T) {
	t.Parallel()
	mine, theirs := sandboxtest.CollidingNames(t)
	for _, scope := range []Scope{Imported, Local, Project, Managed} {
		t.Run(scope.String(), func(t *testing.T) {
			t.Parallel()
			h := newTestHome(t)
			dir := h.folder(t, "app")
			scopeFile(t, h, User, dir, serversJSON(t, map[string]string{mine: `{"command": "my-notes"}`}))
			scopeFile(t, h, scope, dir, serversJSON(t, map[string]string{theirs: `{"command": "their-notes"}`}))
			set := h.loader(nil).Load()
			if len(set.Problems) > 0 {
				t.Fatalf("problems:%s", problemText(set.Problems))
			}
			if _, ok := set.Find(mine); !ok {
				t.Errorf("the person's %q does not run: %q", mine, names(set.Servers))
			}
			if _, ok := set.Find(theirs); ok {
				t.Errorf("%s's %q runs, in the data folder of the person's %q", scope, theirs, mine)
			}
			why, ok := refused(set, theirs)
			if !ok || !strings.Contains(why, "its data folder would be that of "+`"`+mine+`"`) || !strings.Contains(why, "rename it") {
				t.Errorf("%s's %q: %q", scope, theirs, why)
			}
		})
	}
}

// TestSharedDataFolderOneScope: two of the person's own servers whose
// names share a folder: one runs, the other says why it does not.
func TestSharedDataFolderOneScope(t *testing.T) {
	t.Parallel()
	a, b := sandboxtest.CollidingNames(t)
	h := newTestHome(t)
	scopeFile(t, h, User, "", serversJSON(t, map[string]string{a: `{"command": "a"}`, b: `{"command": "b"}`}))
	set := h.loader(nil).Load()
	if len(set.Servers) != 1 || len(set.Suppressed) != 1 || !strings.Contains(set.Suppressed[0].Suppressed, set.Servers[0].Name) {
		t.Errorf("running %q, not %q: %q", names(set.Servers), names(set.Suppressed), suppressedWhy(set))
	}
}

// TestSharedDataFolderOnlyLocal: a server reached by URL has no data
// folder, so it shares none, and ordinary names each keep their own.
func TestSharedDataFolderOnlyLocal(t *testing.T) {
	t.Parallel()
	mine, theirs := sandboxtest.CollidingNames(t)
	h := newTestHome(t)
	dir := h.folder(t, "app")
	scopeFile(t, h, User, dir, serversJSON(t, map[string]string{mine: `{"url": "https://notes.example/mcp"}`, "weather": `{"command": "weather"}`}))
	scopeFile(t, h, Local, dir, serversJSON(t, map[string]string{theirs: `{"command": "their-notes"}`, "weather-2": `{"command": "w2"}`}))
	set := h.loader(nil).Load()
	if len(set.Servers) != 4 || len(set.Suppressed) != 0 {
		t.Errorf("running %q, not %q", names(set.Servers), suppressedWhy(set))
	}
}

// TestSharedDataFolderCase: where the file system folds case (macOS,
// Windows), Notes and notes are one folder; elsewhere two.
func TestSharedDataFolderCase(t *testing.T) {
	was := foldsCase
	t.Cleanup(func() { foldsCase = was })
	for _, folds := range []bool{true, false} {
		foldsCase = folds
		h := newTestHome(t)
		dir := h.folder(t, "app")
		scopeFile(t, h, User, dir, `{"Notes": {"command": "my-notes"}}`)
		scopeFile(t, h, Local, dir, `{"notes": {"command": "their-notes"}}`)
		set := h.loader(nil).Load()
		_, runs := set.Find("notes")
		why, _ := refused(set, "notes")
		if runs == folds || folds && !strings.Contains(why, `"Notes"`) {
			t.Errorf("folding case %v: the project's notes runs %v (%q)", folds, runs, why)
		}
	}
}

func suppressedWhy(set *Set) []string {
	var out []string
	for _, e := range set.Suppressed {
		out = append(out, e.Name+": "+e.Suppressed)
	}
	return out
}
