package datafolders

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

// place is a temporary mcptray folder: the servers' folder, the owners'
// file, the person's config file and a project's.
type place struct {
	t                           *testing.T
	servers, owners, user, proj string
}

func newPlace(t *testing.T) place {
	t.Helper()
	dir := t.TempDir()
	p := place{t: t, servers: filepath.Join(dir, "servers"), owners: filepath.Join(dir, "data-folders.json"),
		user: filepath.Join(dir, "config.json"), proj: filepath.Join(dir, "proj", ".mcp.json")}
	for _, file := range []string{p.user, p.proj} {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// folders are the data folders of a new mcptray started in p.
func (p place) folders() *Folders {
	return New(Options{Dir: func() string { return p.servers }, OwnersFile: p.owners})
}

// server is a local server called name in mcptray, written as configName
// in file, of scope, which may run.
func server(name, configName string, scope config.Scope, file, sig string) config.Entry {
	return config.Entry{Server: config.Server{Name: name, ConfigName: configName, Scope: scope, Transport: config.Stdio,
		Origin: config.Origin{File: file}}, Signature: sig, Approval: config.NotNeeded}
}

// write puts a file in the data folder called folder, as its server
// would.
func (p place) write(folder, file, text string) {
	p.t.Helper()
	if err := os.MkdirAll(filepath.Join(p.servers, folder), 0o700); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.servers, folder, file), []byte(text), 0o600); err != nil {
		p.t.Fatal(err)
	}
}

// holds reports what the data folder called folder holds in file, "" when
// nothing.
func (p place) holds(folder, file string) string {
	b, _ := os.ReadFile(filepath.Join(p.servers, folder, file))
	return string(b)
}

// setAside are the folders set aside in p.
func (p place) setAside() []string {
	p.t.Helper()
	entries, err := os.ReadDir(p.servers)
	if err != nil {
		p.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), setAsidePrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestReturningOwnerGetsItsDataBack: a project's "github" plants a file in
// its folder; its .mcp.json goes (another git branch), which removes
// nothing, and the person adds a "github" of their own. The person's
// starts in an empty folder. The project's file back, its github, now
// github-2, gets its own data back, and the person's keeps theirs.
func TestReturningOwnerGetsItsDataBack(t *testing.T) {
	t.Parallel()
	p := newPlace(t)
	f := p.folders()
	theirs := server("github", "github", config.Local, p.proj, "stdio:evil")
	mine := server("github", "github", config.User, p.user, "stdio:github")
	one := &config.Set{Servers: []config.Entry{theirs}}
	f.Keep(&config.Set{}, one, nil)
	p.write("github", "planted", "for whoever comes next")

	two := &config.Set{Servers: []config.Entry{mine}}
	if refused := f.Keep(one, two, nil); len(refused) != 0 {
		t.Fatalf("refused: %v", refused)
	}
	if got := p.holds("github", "planted"); got != "" {
		t.Fatalf("the person's github was handed the project's folder: %q", got)
	}
	p.write("github", "mine", "the person's")

	theirs.Name = "github-2"
	three := &config.Set{Servers: []config.Entry{mine, theirs}}
	f.Keep(two, three, nil)
	if got := p.holds("github-2", "planted"); got != "for whoever comes next" {
		t.Errorf("back as github-2, the project's server lost its data: %q", got)
	}
	if p.holds("github", "mine") != "the person's" || p.holds("github", "planted") != "" {
		t.Errorf("the person's folder holds %q and %q", p.holds("github", "mine"), p.holds("github", "planted"))
	}
	if left := p.setAside(); len(left) != 0 {
		t.Errorf("set aside still: %q", left)
	}
}

// TestUnreadableOwnersFailClosed: where the owners' file cannot be read (a
// folder is in its place), no folder of unknown making is handed over:
// the server starts in an empty one and the old is set aside, kept. What
// this mcptray gave since it started stays its server's; a new mcptray,
// which knows nothing, sets it aside again.
func TestUnreadableOwnersFailClosed(t *testing.T) {
	t.Parallel()
	p := newPlace(t)
	if err := os.Mkdir(p.owners, 0o700); err != nil {
		t.Fatal(err)
	}
	p.write("notes", "planted", "from before")
	set := &config.Set{Servers: []config.Entry{server("notes", "notes", config.User, p.user, "stdio:notes")}}
	f := p.folders()
	f.Keep(&config.Set{}, set, nil)
	if got := p.holds("notes", "planted"); got != "" {
		t.Fatalf("with no owners to read, notes was handed a folder of unknown making: %q", got)
	}
	if left := p.setAside(); len(left) != 1 {
		t.Fatalf("set aside: %q, want the one folder kept", left)
	}
	p.write("notes", "memo", "what notes keeps")
	f.Keep(set, set, nil)
	if p.holds("notes", "memo") != "what notes keeps" {
		t.Error("the folder this mcptray gave notes was set aside")
	}
	p.folders().Keep(&config.Set{}, set, nil)
	if p.holds("notes", "memo") != "" || len(p.setAside()) != 2 {
		t.Errorf("a new mcptray, reading no owners, handed notes its folder: %q, set aside %q", p.holds("notes", "memo"), p.setAside())
	}
}

// TestFoldersFromBeforeOwners: the first mcptray that keeps owners finds
// folders made before. One that only one configured server could have
// made (by its name now or in its file) is that server's; one that two
// could have (the person's github, and a project's github, now github-2,
// which held the name before it) is set aside when the person's starts.
// Later, a folder no owner was recorded for is set aside too.
func TestFoldersFromBeforeOwners(t *testing.T) {
	t.Parallel()
	p := newPlace(t)
	p.write("notes", "memo", "what notes keeps")
	p.write("github", "planted", "the project's")
	p.write("github-2", "cache", "the project's")
	theirs := server("github-2", "github", config.Local, p.proj, "stdio:evil")
	set := &config.Set{Servers: []config.Entry{
		server("notes", "notes", config.User, p.user, "stdio:notes"),
		server("github", "github", config.User, p.user, "stdio:github"), theirs,
	}}
	p.folders().Keep(&config.Set{}, set, nil)
	if p.holds("notes", "memo") != "what notes keeps" || p.holds("github-2", "cache") != "the project's" {
		t.Errorf("a folder only one server could have made was not kept: %q, %q", p.holds("notes", "memo"), p.holds("github-2", "cache"))
	}
	if got := p.holds("github", "planted"); got != "" {
		t.Errorf("the person's github was handed a folder the project's could have made: %q", got)
	}

	p.write("stray", "planted", "of unknown making")
	more := &config.Set{Servers: append(set.Servers, server("stray", "stray", config.User, p.user, "stdio:stray"))}
	p.folders().Keep(set, more, nil)
	if got := p.holds("stray", "planted"); got != "" {
		t.Errorf("a folder made after owners were kept, for no one recorded, was handed over: %q", got)
	}
}

// TestRenamedIntoAnotherOriginKeepsNoData: a server gone from the
// person's config while a project's with the very same command appears is
// no rename: its folder goes, and the project's server gets none of it.
// Nor is one of another project in the same file (~/.claude.json).
func TestRenamedIntoAnotherOriginKeepsNoData(t *testing.T) {
	t.Parallel()
	p := newPlace(t)
	before := &config.Set{Servers: []config.Entry{server("notes", "notes", config.User, p.user, "stdio:notes")}}
	after := &config.Set{Servers: []config.Entry{server("evil", "evil", config.Local, p.proj, "stdio:notes")}}
	if gone, renamed := Changes(before, after); len(renamed) != 0 || len(gone) != 1 || gone[0] != "notes" {
		t.Errorf("gone %q, renamed %v: the project's evil would inherit notes's data", gone, renamed)
	}
	here, there := server("notes", "notes", config.Imported, p.user, "stdio:notes"), server("kb", "kb", config.Imported, p.user, "stdio:notes")
	here.Origin.Folder, there.Origin.Folder = "/code/a", "/code/b"
	if _, renamed := Changes(&config.Set{Servers: []config.Entry{here}}, &config.Set{Servers: []config.Entry{there}}); len(renamed) != 0 {
		t.Errorf("renamed %v: another project's server of one file would inherit its data", renamed)
	}

	// Within one file, a rename keeps the data.
	f := p.folders()
	notes, kb := server("notes", "notes", config.User, p.user, "stdio:notes"), server("kb", "kb", config.User, p.user, "stdio:notes")
	one, two := &config.Set{Servers: []config.Entry{notes}}, &config.Set{Servers: []config.Entry{kb}}
	f.Keep(&config.Set{}, one, nil)
	p.write("notes", "memo", "what notes keeps")
	_, renamed := Changes(one, two)
	f.Keep(one, two, renamed)
	if p.holds("kb", "memo") != "what notes keeps" {
		t.Errorf("renamed kb in its file, notes lost its data (renamed %v)", renamed)
	}
}

// TestOwnersToldApart: owners whose fields would run together, written
// one after the other, are told apart.
func TestOwnersToldApart(t *testing.T) {
	t.Parallel()
	a := Owner{Scope: config.Local, File: "/p/.mcp.json", Name: "x/y"}
	b := Owner{Scope: config.Local, File: "/p/.mcp.json/x", Name: "y"}
	c := Owner{Scope: config.Project, File: "/p/.mcp.json", Name: "x/y"}
	if a.key() == b.key() || a.key() == c.key() {
		t.Errorf("two owners given one key: %s", a.key())
	}
}

// TestOwnersFileGoneWhileRunning: the owners' file removed while mcptray
// runs takes nothing from the servers it gave folders since it started,
// adopts nothing of unknown making, and is written anew.
func TestOwnersFileGoneWhileRunning(t *testing.T) {
	t.Parallel()
	p := newPlace(t)
	f := p.folders()
	notes := server("notes", "notes", config.User, p.user, "stdio:notes")
	set := &config.Set{Servers: []config.Entry{notes}}
	f.Keep(&config.Set{}, set, nil)
	p.write("notes", "memo", "what notes keeps")
	if err := os.Remove(p.owners); err != nil {
		t.Fatal(err)
	}
	p.write("stray", "planted", "of unknown making")
	more := &config.Set{Servers: []config.Entry{notes, server("stray", "stray", config.User, p.user, "stdio:stray")}}
	f.Keep(set, more, nil)
	if p.holds("notes", "memo") != "what notes keeps" {
		t.Error("notes lost the folder this mcptray gave it")
	}
	if got := p.holds("stray", "planted"); got != "" {
		t.Errorf("a folder of unknown making was adopted: %q", got)
	}
	if _, err := os.Stat(p.owners); err != nil {
		t.Errorf("the owners' file was not written anew: %v", err)
	}
}
