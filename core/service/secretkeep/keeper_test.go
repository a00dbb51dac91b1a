package secretkeep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/secret/secrettest"
)

// folder is mcptray's folder and a project folder with a real file each,
// a keeper on an in-memory keychain, and servers in them.
type folder struct {
	t        *testing.T
	dir      string // mcptray's folder, where the index is
	userFile string
	project  string // a project folder
	projFile string // its .mcp.json
	store    *secrettest.Store
	keeper   *Keeper
}

func newFolder(t *testing.T) *folder {
	t.Helper()
	root := t.TempDir()
	f := &folder{t: t, dir: filepath.Join(root, "mcptray"), project: filepath.Join(root, "repo"), store: secrettest.New()}
	f.userFile = filepath.Join(f.dir, "config.json")
	f.projFile = filepath.Join(f.project, ".mcp.json")
	for _, file := range []string{f.userFile, f.projFile} {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.keeper = New(Options{Store: f.store, Dir: f.dir, UserFile: f.userFile})
	return f
}

// user is the user-scope server name referring to ${secret:secret}.
func (f *folder) user(name, secretName string) config.Entry {
	return config.Entry{Server: config.Server{
		Name: name, ConfigName: name, Scope: config.User, Transport: config.Stdio, Command: "x",
		Origin: config.Origin{File: f.userFile, App: "mcptray"},
		Env:    map[string]string{secretName: config.SecretRef(secretName)},
	}}
}

// projectServer is the project-scope server name, written in the project's
// .mcp.json (a cloned repository's), referring to ${secret:secret}.
func (f *folder) projectServer(name, secretName string) config.Entry {
	e := f.user(name, secretName)
	e.Scope, e.Origin = config.Project, config.Origin{File: f.projFile, App: "Claude Code", Folder: f.project}
	return e
}

// put stores value as e's secret called name, and indexes it as the
// service does once e's file was written.
func (f *folder) put(e config.Entry, name, value string) {
	f.t.Helper()
	if _, err := f.keeper.Put(context.Background(), &e.Server, map[string]string{name: value}); err != nil {
		f.t.Fatal(err)
	}
	f.keeper.Remember(context.Background(), e.Scope, e.Origin.File, e.ConfigName, []string{name})
}

func (f *folder) has(e config.Entry, name string) bool {
	f.t.Helper()
	ok, err := f.keeper.Has(context.Background(), &e.Server, name)
	if err != nil {
		f.t.Fatal(err)
	}
	return ok
}

// TestProjectServerReadsNotTheUsersSecret: a cloned repository's
// .mcp.json that names its server "github" and refers to GITHUB_TOKEN,
// as the person's own "github" does, reads nothing of the person's: each
// server's secrets are kept under an id of its scope and file, and a
// second project's "github" reads nothing of the first's.
func TestProjectServerReadsNotTheUsersSecret(t *testing.T) {
	t.Parallel()
	f := newFolder(t)
	mine := f.user("github", "GITHUB_TOKEN")
	f.put(mine, "GITHUB_TOKEN", "ghp_the-persons-own")
	theirs := f.projectServer("github", "GITHUB_TOKEN")
	if v, err := f.keeper.Read(context.Background(), &theirs.Server, "GITHUB_TOKEN"); !errors.Is(err, secret.ErrNotFound) {
		t.Errorf("the project's github read %q, %v; want nothing", v, err)
	}
	f.put(theirs, "GITHUB_TOKEN", "ghp_the-projects")
	other := theirs
	other.Origin.File = filepath.Join(f.t.TempDir(), ".mcp.json")
	if f.has(other, "GITHUB_TOKEN") {
		t.Error("another project's github reads the first project's secret")
	}
	if v, _ := f.keeper.Read(context.Background(), &mine.Server, "GITHUB_TOKEN"); v != "ghp_the-persons-own" {
		t.Errorf("the person's github reads %q after the project stored its own", v)
	}
	for _, e := range []config.Entry{mine, theirs, other} {
		if k := Key(&e.Server, "GITHUB_TOKEN"); strings.ContainsAny(k.Server+string(k.Kind), "/#") {
			t.Errorf("the keychain item %+v holds a / or #, which its accounts reserve", k)
		}
	}
}

// TestForgetTakesOnlyTheUsersServer: forgetting the person's removed
// "github" takes its secrets, and neither a project's "github" nor
// another server's.
func TestForgetTakesOnlyTheUsersServer(t *testing.T) {
	t.Parallel()
	f := newFolder(t)
	mine, theirs, notes := f.user("github", "GITHUB_TOKEN"), f.projectServer("github", "GITHUB_TOKEN"), f.user("notes", "NOTES_KEY")
	f.put(mine, "GITHUB_TOKEN", "a")
	f.put(theirs, "GITHUB_TOKEN", "b")
	f.put(notes, "NOTES_KEY", "c")
	before := &config.Set{Servers: []config.Entry{mine, notes}, Suppressed: []config.Entry{theirs}}
	if err := f.keeper.Forget(context.Background(), before, "github"); err != nil {
		t.Fatal(err)
	}
	if f.has(mine, "GITHUB_TOKEN") || !f.has(theirs, "GITHUB_TOKEN") || !f.has(notes, "NOTES_KEY") {
		t.Errorf("after forgetting github: the person's %v, the project's %v, notes' %v; want false, true, true",
			f.has(mine, "GITHUB_TOKEN"), f.has(theirs, "GITHUB_TOKEN"), f.has(notes, "NOTES_KEY"))
	}
}

// TestForgetVanishedKeepsWhatMayComeBack: a server gone from every file
// loses its secrets, but not when its file could not be read (damaged
// now, mended later), when its file is gone (another git branch), when
// its project folder is no longer read, when it was added meanwhile (the
// second load finds it), nor when the index is damaged; a project's
// server of the same name never keeps the person's removed one's.
func TestForgetVanishedKeepsWhatMayComeBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFolder(t)
	mine, theirs := f.user("github", "GITHUB_TOKEN"), f.projectServer("github", "GITHUB_TOKEN")
	f.put(mine, "GITHUB_TOKEN", "a")
	f.put(theirs, "GITHUB_TOKEN", "b")
	read := []string{f.project}
	all := &config.Set{Servers: []config.Entry{mine, theirs}, Folders: read}
	none := &config.Set{Folders: read}
	same := func(s *config.Set) func() *config.Set { return func() *config.Set { return s } }

	damaged := &config.Set{Folders: read, Problems: []config.Problem{{File: f.userFile}, {File: f.projFile}}}
	f.keeper.ForgetVanished(ctx, damaged, same(damaged))
	if !f.has(mine, "GITHUB_TOKEN") || !f.has(theirs, "GITHUB_TOKEN") {
		t.Fatal("secrets left the keychain while their files could not be read")
	}
	f.keeper.ForgetVanished(ctx, &config.Set{}, same(&config.Set{}))
	if !f.has(theirs, "GITHUB_TOKEN") {
		t.Fatal("a project's secret left the keychain when its folder was no longer read")
	}
	if f.has(mine, "GITHUB_TOKEN") {
		t.Fatal("the person's github, gone from their config file, kept its secret")
	}
	f.put(mine, "GITHUB_TOKEN", "a")

	f.keeper.ForgetVanished(ctx, none, same(all))
	if !f.has(mine, "GITHUB_TOKEN") || !f.has(theirs, "GITHUB_TOKEN") {
		t.Fatal("secrets of servers the second load finds left the keychain")
	}

	index := filepath.Join(f.dir, IndexFile)
	good, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.keeper.ForgetVanished(ctx, none, same(none))
	if !f.has(mine, "GITHUB_TOKEN") || !f.has(theirs, "GITHUB_TOKEN") {
		t.Fatal("secrets left the keychain on a damaged index")
	}
	if err := os.WriteFile(index, good, 0o600); err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(f.projFile); err != nil {
		t.Fatal(err)
	}
	f.keeper.ForgetVanished(ctx, none, same(none))
	if !f.has(theirs, "GITHUB_TOKEN") {
		t.Error("a project's secret left the keychain while its file is gone (it may come back)")
	}
	if f.has(mine, "GITHUB_TOKEN") {
		t.Error("the person's removed github kept its secret")
	}

	// The project's file back with its github: that server refers to
	// GITHUB_TOKEN under the name the person's removed one had, and keeps
	// only its own.
	if err := os.WriteFile(f.projFile, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.put(mine, "GITHUB_TOKEN", "a")
	onlyTheirs := &config.Set{Servers: []config.Entry{theirs}, Folders: read}
	f.keeper.ForgetVanished(ctx, onlyTheirs, same(onlyTheirs))
	if f.has(mine, "GITHUB_TOKEN") || !f.has(theirs, "GITHUB_TOKEN") {
		t.Errorf("with only the project's github: the person's secret kept %v, the project's %v; want false, true",
			f.has(mine, "GITHUB_TOKEN"), f.has(theirs, "GITHUB_TOKEN"))
	}
}
