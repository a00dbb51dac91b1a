package datafolders

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox/sandboxtest"
)

const deadline = 20 * time.Second

// folders are the data folders in dir, of servers that have all stopped,
// with set the config in use.
func folders(dir string, set **config.Set) *Folders {
	stopped := make(chan struct{})
	close(stopped)
	return New(Options{
		Dir:     func() string { return dir },
		Stopped: func(string) <-chan struct{} { return stopped },
		InUse:   func(fn func(*config.Set)) { fn(*set) },
	})
}

// removed waits for the removal of name's data folder.
func removed(t *testing.T, f *Folders, name string) {
	t.Helper()
	done := f.Removing(name)
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatalf("%s's data folder was not removed", name)
	}
}

// TestRemovedNamesakeLeavesOthersData: a server's data folder is named
// after it, and a name with other characters than a folder's gets a short
// hash of itself, which another name can be found to share. A project
// whose server is named so (config does not run it), once removed, does
// not take the data of the person's server with it.
func TestRemovedNamesakeLeavesOthersData(t *testing.T) {
	t.Parallel()
	mine, theirs := sandboxtest.CollidingNames(t)
	removedNamesake(t, mine, theirs)
}

// TestRemovedCaseNamesakeLeavesOthersData: where the file system takes
// Notes and notes for one name (macOS, Windows), a project's Notes, once
// removed, does not take the data of the person's notes with it.
func TestRemovedCaseNamesakeLeavesOthersData(t *testing.T) {
	t.Parallel()
	if config.DataFolder("Notes") != config.DataFolder("notes") {
		t.Skip("this computer's file system tells Notes from notes")
	}
	removedNamesake(t, "notes", "Notes")
}

func removedNamesake(t *testing.T, mine, theirs string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "config.json")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	entry := func(name, sig string) config.Entry {
		return config.Entry{Server: config.Server{Name: name, Transport: config.Stdio, Origin: config.Origin{File: file}}, Signature: sig}
	}
	before := &config.Set{Servers: []config.Entry{entry(mine, "stdio:notes"), entry(theirs, "stdio:evil")}}
	after := &config.Set{Servers: []config.Entry{entry(mine, "stdio:notes")}}
	inUse := after
	f := folders(dir, &inUse)
	memo := filepath.Join(f.Folder(mine), "memo.txt")
	if err := os.MkdirAll(filepath.Dir(memo), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(memo, []byte("what my notes keeps"), 0o600); err != nil {
		t.Fatal(err)
	}
	gone, _ := Changes(before, after)
	f.RemoveWhenStopped(gone)
	removed(t, f, theirs)
	f.Wait()
	if b, err := os.ReadFile(memo); string(b) != "what my notes keeps" {
		t.Errorf("removing %s took %s's data: %q, %v", theirs, mine, b, err)
	}
}

// TestRemovedServerLeavesNoData: the data folder of a server taken out of
// the config goes once it stopped; one configured again by then stays.
func TestRemovedServerLeavesNoData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	back := &config.Set{Servers: []config.Entry{{Server: config.Server{Name: "kb", Transport: config.Stdio}}}}
	inUse := &config.Set{}
	f := folders(dir, &inUse)
	for _, name := range []string{"scratch", "kb"} {
		if err := os.MkdirAll(f.Folder(name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.RemoveWhenStopped([]string{"scratch"})
	removed(t, f, "scratch")
	inUse = back
	f.RemoveWhenStopped([]string{"kb"})
	removed(t, f, "kb")
	f.Wait()
	if _, err := os.Stat(f.Folder("scratch")); !os.IsNotExist(err) {
		t.Errorf("scratch's folder: %v", err)
	}
	if _, err := os.Stat(f.Folder("kb")); err != nil {
		t.Errorf("kb, configured again, lost its folder: %v", err)
	}
}

// TestRenamedNamesakeMovesNoOthersData: a project's server whose name
// gives the folder of the person's server, renamed with the same command,
// does not move that folder to its new name.
func TestRenamedNamesakeMovesNoOthersData(t *testing.T) {
	t.Parallel()
	mine, theirs := sandboxtest.CollidingNames(t)
	entry := func(name, sig string) config.Entry {
		return config.Entry{Server: config.Server{Name: name, Transport: config.Stdio}, Signature: sig}
	}
	before := &config.Set{Servers: []config.Entry{entry(mine, "stdio:notes"), entry(theirs, "stdio:evil")}}
	after := &config.Set{Servers: []config.Entry{entry(mine, "stdio:notes"), entry("kb", "stdio:evil")}}
	if gone, renamed := Changes(before, after); len(gone) != 0 || len(renamed) != 0 {
		t.Errorf("gone %q, renamed %v: %s's folder is %s's", gone, renamed, theirs, mine)
	}
}

// TestDataChanges: which servers' data folders go, and which move.
func TestDataChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "config.json")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	entry := func(name, sig string, tr config.Transport, file string) config.Entry {
		return config.Entry{Server: config.Server{Name: name, Transport: tr, Origin: config.Origin{File: file}}, Signature: sig}
	}
	before := &config.Set{
		Servers: []config.Entry{
			entry("memory", "stdio:a", config.Stdio, file), entry("gone", "stdio:b", config.Stdio, file),
			entry("remote", "url:x", config.HTTP, file), entry("broken", "stdio:c", config.Stdio, filepath.Join(dir, "broken.json")),
			entry("elsewhere", "stdio:d", config.Stdio, filepath.Join(dir, "no-such.json")),
		},
		Suppressed: []config.Entry{entry("hidden", "stdio:e", config.Stdio, file)},
	}
	after := &config.Set{
		Servers:  []config.Entry{entry("kb", "stdio:a", config.Stdio, file)},
		Problems: []config.Problem{{File: filepath.Join(dir, "broken.json"), Message: "is not valid JSON"}},
	}
	gone, renamed := Changes(before, after)
	if want := []string{"gone", "hidden"}; !slices.Equal(gone, want) {
		t.Errorf("gone %q, want %q (not a remote server, not one of a file that cannot be read or is not there)", gone, want)
	}
	if len(renamed) != 1 || renamed["memory"] != "kb" {
		t.Errorf("renamed %v, want memory → kb", renamed)
	}
	if gone, renamed := Changes(nil, after); gone != nil || renamed != nil {
		t.Errorf("the first config removed %q, moved %v", gone, renamed)
	}
}
