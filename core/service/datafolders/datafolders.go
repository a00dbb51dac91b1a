// Package datafolders is the service's part that keeps each sandboxed
// server's private data folder with its server: mcptray's servers/NAME,
// the one folder of mcptray's its sandbox lets it change.
//
// A data folder is its owner's: the server it was made for, as its config
// file names it (its scope, that file, and its name there: Owner). What a
// server left in its folder (a package planted in its cache, a script it
// knows the next holder runs) never reaches a server of another owner,
// whoever holds the name by then: before servers start, each one about to
// start in a folder made for another owner, or for one mcptray does not
// know, gets an empty folder, and the old one is set aside (Keep). mcptray
// keeps the owners in a file of its own (Options.OwnersFile), beside the
// servers' folder, where no server may write. A folder set aside is
// renamed .set-aside-TIME-NAME in the servers' folder, not removed: it may
// hold the person's work, and no server's sandbox gives it (no server's
// folder begins with a dot). The server that made it may still run until
// the new holder's start stops it: on Linux its Landlock rules hold the
// folder itself, wherever it is moved, and nothing of servers/ besides;
// on macOS, whose profile names paths, it could make a new folder under
// the old name in that moment (untried there). Where the owners cannot be
// read or kept, only what this mcptray recorded since it started is
// known; every other folder is set aside at its server's start. When the
// file is not there yet (mcptray kept none before), a folder that exactly
// one configured server could have made is that server's; any other is
// set aside when a server is to start in it.
//
// When a config no longer has a server of that name (mcptray remove, the
// window's Remove, or its file edited), the folder is removed once the
// server's process has stopped. A server renamed in its file with the
// same command and arguments (its config.Signature) keeps its data, and
// so does a server whose name another took (a project's github, now
// github-2 beside the person's own github): its folder is moved to its new
// name before it starts under it. A server of another file or scope with
// the same command inherits nothing. A file that could not be read (a
// Problem) removes nothing: its servers may be back once it is mended, nor
// does a file that is gone (a project's .mcp.json on another git branch,
// say): it may come back as it was.
//
// core/instance makes Folders beside the service and gives them in the
// service's Options; the service attaches where the folders are, the
// connection manager's word that a server stopped and the config in use
// (Attach); it never imports the service nor the engine that runs servers
// (core/conn), and core/deps_test.go pins what it may import.
package datafolders

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/statefile"
)

// Options configure Folders.
type Options struct {
	// Dir is the folder that holds the servers' data folders, as their
	// sandbox would give them now; "" when servers have none here.
	Dir func() string
	// Stopped is closed once the server called name has no process (the
	// connection manager's Close ends every one).
	Stopped func(name string) <-chan struct{}
	// InUse calls fn with the config in use, while no other config is put
	// to use.
	InUse func(fn func(*config.Set))
	// OwnersFile keeps whom each data folder was made for, in mcptray's
	// own folder, out of every server's reach; "" keeps them only while
	// mcptray runs.
	OwnersFile string
	Logger     *slog.Logger
}

// Folders keeps the servers' data folders with their servers. Its methods
// are safe for concurrent use.
type Folders struct {
	opts     Options
	wg       sync.WaitGroup // the removals under way
	attached atomic.Bool    // Attach was called

	mu   sync.Mutex
	gone map[string]chan struct{} // removed servers' data folders being removed, by name

	ownMu  sync.Mutex              // held while the owners are read and changed (owners.go)
	owners *statefile.File[record] // the owners' file, opened at the first Keep
	known  map[string]record       // the owners as this mcptray last kept them
	looked bool                    // Keep has read the owners once
}

// New returns the servers' data folders as o says where they are.
func New(o Options) *Folders {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Folders{opts: o, gone: map[string]chan struct{}{}}
}

// Folder is the data folder of the server called name, or "" when servers
// have none here.
func (f *Folders) Folder(name string) string {
	dir := f.opts.Dir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, sandbox.FolderName(name))
}

// configuredNames are the names of every server in set, running or not.
func configuredNames(set *config.Set) map[string]*config.Entry {
	out := map[string]*config.Entry{}
	if set == nil {
		return out
	}
	for _, list := range [][]config.Entry{set.Servers, set.Suppressed} {
		for i := range list {
			if _, ok := out[list[i].Name]; !ok {
				out[list[i].Name] = &list[i]
			}
		}
	}
	return out
}

// foldersOf are the data folders' names of every server in set, as the
// file system tells them apart (config.DataFolder).
func foldersOf(set *config.Set) map[string]bool {
	out := map[string]bool{}
	for name := range configuredNames(set) {
		out[config.DataFolder(name)] = true
	}
	return out
}

// Changes are the local servers of before that after no longer has:
// those renamed in after with the same command and arguments in the same
// file (renamed: old name → new name), and the others (gone). A server
// whose folder is also that of a server after has (two names can give one
// folder: their hashes agree, or they differ only in case on macOS and
// Windows; config runs only one of them) is neither: its folder is
// another's.
func Changes(before, after *config.Set) (gone []string, renamed map[string]string) {
	if before == nil || after == nil {
		return nil, nil
	}
	was, now, kept := configuredNames(before), configuredNames(after), foldersOf(after)
	unreadable := map[string]bool{}
	for _, p := range after.Problems {
		if p.Server == "" {
			unreadable[p.File] = true
		}
	}
	taken := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(was)) {
		e := was[name]
		if _, ok := now[name]; ok || e.Transport != config.Stdio || unreadable[e.Origin.File] || fileGone(e.Origin.File) || kept[config.DataFolder(name)] {
			continue
		}
		i := slices.IndexFunc(slices.Sorted(maps.Keys(now)), func(newName string) bool {
			_, existed := was[newName]
			return !existed && !taken[newName] && now[newName].Signature == e.Signature && OwnerOf(now[newName]).sameOrigin(OwnerOf(e))
		})
		if i < 0 {
			gone = append(gone, name)
			continue
		}
		newName := slices.Sorted(maps.Keys(now))[i]
		if renamed == nil {
			renamed = map[string]string{}
		}
		renamed[name], taken[newName] = newName, true
	}
	return gone, renamed
}

// fileGone reports whether a server's config file is no longer there.
func fileGone(file string) bool {
	if file == "" {
		return false
	}
	_, err := os.Stat(file)
	return errors.Is(err, fs.ErrNotExist)
}

// RemoveWhenStopped removes the data folders of servers gone from the
// config, each once its process has stopped, unless a server of that name,
// or another whose folder it is, is configured by then. WaitRemoved waits
// for one.
func (f *Folders) RemoveWhenStopped(gone []string) {
	log := f.opts.Logger
	for _, name := range gone {
		dir := f.Folder(name)
		if dir == "" {
			return
		}
		stopped := f.opts.Stopped(name)
		done := make(chan struct{})
		f.mu.Lock()
		f.gone[name] = done
		f.mu.Unlock()
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer func() {
				f.mu.Lock()
				if f.gone[name] == done {
					delete(f.gone, name)
				}
				f.mu.Unlock()
				close(done)
			}()
			<-stopped
			f.opts.InUse(func(set *config.Set) {
				if foldersOf(set)[config.DataFolder(name)] {
					return // configured again, or another's folder
				}
				if err := os.RemoveAll(dir); err != nil {
					log.Warn("removing a removed server's data folder", "server", sanitize.Line(name), "folder", dir, "err", err)
					return
				}
				f.forget(config.DataFolder(name))
				log.Info("removed a removed server's data folder", "server", sanitize.Line(name))
			})
		}()
	}
}

// Removing is closed once the removal of the data folder of the server
// called name, under way, is done; nil when none is.
func (f *Folders) Removing(name string) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if done, ok := f.gone[name]; ok {
		return done
	}
	return nil
}

// WaitRemoved waits until the data folder of the server called name in
// mcptray's own config, just removed from the config (before is the
// config before), is gone too, or ctx ends.
func (f *Folders) WaitRemoved(ctx context.Context, before *config.Set, name string) {
	for _, e := range configuredNames(before) {
		if e.Scope != config.User || e.ConfigName != name {
			continue
		}
		done := f.Removing(e.Name)
		if done == nil {
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// Wait waits for the removals under way, once every server has stopped.
func (f *Folders) Wait() { f.wg.Wait() }
