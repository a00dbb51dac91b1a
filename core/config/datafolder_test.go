package config

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/core/sandbox"
)

// collidingNames finds two server names with one data folder, as a hostile
// project can: names that differ only in characters FolderName replaces
// with '_' clean to one name, and among a few hundred thousand of them two
// have the same 32-bit hash (a birthday search; matching one given name
// takes some minutes more).
func collidingNames(t *testing.T) (string, string) {
	t.Helper()
	collision.once.Do(func() { collision.a, collision.b = findCollision() })
	if collision.a == "" {
		t.Fatal("no two names share a folder")
	}
	if sandbox.FolderName(collision.a) != sandbox.FolderName(collision.b) {
		t.Fatalf("%q and %q: one hash, two folders", collision.a, collision.b)
	}
	return collision.a, collision.b
}

var collision struct {
	once sync.Once
	a, b string
}

func findCollision() (string, string) {
	seen := map[[4]byte]string{}
	for i := 0; i < 1<<24; i++ {
		var b strings.Builder
		b.WriteString("notes")
		for bit := range 24 {
			b.WriteByte("!#"[i>>bit&1])
		}
		name := b.String()
		sum := sha256.Sum256([]byte(name))
		key := [4]byte(sum[:4])
		if other, ok := seen[key]; ok {
			return other, name
		}
		seen[key] = name
	}
	return "", ""
}

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
	mine, theirs := collidingNames(t)
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
	a, b := collidingNames(t)
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
	mine, theirs := collidingNames(t)
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
