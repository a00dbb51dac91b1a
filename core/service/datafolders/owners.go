package datafolders

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/statefile"
)

// Owner is who a data folder was made for: a server as its config file
// names it. Another config's server of the same name, or the same file's
// server once another took its name in mcptray (github-2), is not its
// owner, nor is a server of another file with the same command.
type Owner struct {
	Scope config.Scope
	// File is its config file ("" for a server added while mcptray runs),
	// and Project the project it belongs to in a file of many projects
	// (~/.claude.json).
	File, Project string
	// Name is its name in that file (config.Server's ConfigName).
	Name string
}

// OwnerOf is the owner of the data folder of the server e.
func OwnerOf(e *config.Entry) Owner {
	return Owner{Scope: e.Scope, File: e.Origin.File, Project: e.Origin.Folder, Name: e.ConfigName}
}

// sameOrigin reports whether o and p are servers of one config: a server
// renamed in its file keeps its data, into another's it does not.
func (o Owner) sameOrigin(p Owner) bool {
	return o.Scope == p.Scope && o.File == p.File && o.Project == p.Project
}

// key is the owner as the owners' file keeps it: a hash, so that a long
// name or path grows no record.
func (o Owner) key() string {
	b, _ := json.Marshal([]string{o.Scope.String(), o.File, o.Project, o.Name})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// record is a data folder's owner as the owners' file keeps it, under the
// folder's name (config.DataFolder).
type record struct {
	Owner string `json:"owner"` // Owner.key
	// Scope and Server say whose it is to a person who reads the file;
	// only Owner is compared.
	Scope  string    `json:"scope"`
	Server string    `json:"server"`
	Since  time.Time `json:"since"`
}

func recordOf(o Owner, now time.Time) record {
	name := o.Name
	if len(name) > 64 {
		name = name[:64]
	}
	return record{Owner: o.key(), Scope: o.Scope.String(), Server: sanitize.Line(name), Since: now.UTC()}
}

// The owners' file is bounded: far more folders than anyone has servers.
// A folder whose record was let go is set aside at its next start.
const (
	maxOwners     = 4096
	maxOwnersSize = 2 << 20
)

// setAsidePrefix begins the name of a folder set aside: no server's data
// folder begins with a dot (sandbox.FolderName), so no server's sandbox
// gives it.
const setAsidePrefix = ".set-aside-"

// ownersFile is the owners' file, opened at the first Keep.
func (f *Folders) ownersFile() *statefile.File[record] {
	if f.owners == nil {
		f.owners, _ = statefile.Open(statefile.Options[record]{
			Path: f.opts.OwnersFile, Field: "folders", MaxSize: maxOwnersSize, Max: maxOwners,
			When: func(r record) time.Time { return r.Since },
			Valid: func(folder string, r record) bool {
				return (!strings.HasPrefix(folder, ".") || strings.HasPrefix(folder, setAsidePrefix)) &&
					!strings.ContainsAny(folder, `/\`) && len(r.Owner) == 64
			},
		})
	}
	return f.owners
}

// readOwners reads who each data folder was made for. The file is the
// truth while it can be read; when it cannot, or it went while mcptray
// ran, what this mcptray recorded since it started (f.known) is, and
// every other folder is unknown; rewrite says so, and that the file is to
// be written anew. first says the file is not there at this mcptray's
// first look: mcptray kept no owners before.
func (f *Folders) readOwners() (owners map[string]record, first, rewrite bool) {
	known := maps.Clone(f.known)
	if known == nil {
		known = map[string]record{}
	}
	if f.opts.OwnersFile == "" {
		return known, false, false
	}
	_, err := os.Lstat(f.opts.OwnersFile)
	missing := errors.Is(err, fs.ErrNotExist)
	owners, err = f.ownersFile().Read()
	switch {
	case err != nil:
		f.opts.Logger.Warn("the data folders' owners cannot be read; a server's folder that mcptray did not give it since it started is set aside, and it starts with an empty one", "err", err)
		return known, false, true
	case missing && f.looked:
		return known, false, true
	}
	return owners, missing, missing
}

// writeOwners keeps owners, on disk and in f.known.
func (f *Folders) writeOwners(owners map[string]record) {
	f.known = maps.Clone(owners)
	if f.opts.OwnersFile == "" {
		return
	}
	if err := f.ownersFile().Replace(owners); err != nil {
		f.opts.Logger.Warn("the data folders' owners could not be kept; their folders will be set aside at their next start", "err", err)
	}
}

// Keep gives each server of after its own data folder, before any of them
// starts (renamed are those Changes found renamed since before):
//
//   - a server whose folder was made, under another name, for its owner
//     (its name was taken by another's, and it is now github-2; or it was
//     renamed in its file with the same command) gets that folder moved to
//     its name;
//   - a server about to run whose folder was made for another owner, or
//     for an owner mcptray does not know (the owners cannot be read, or
//     the folder was made before they were kept), gets an empty one, and
//     that folder is set aside, renamed .set-aside-… in the servers'
//     folder: kept, so that nothing is lost, and in no server's sandbox.
//
// The folders are moved first and the owners written after, so that a
// crash between the two leaves a folder unknown, never another's. When the
// owners' file is not there yet (mcptray kept none before), each folder
// that exactly one configured server could have made, by its name now or
// in its file, is that server's; any other is set aside when a server is
// to start in it. Keep returns the servers that must not start, with why:
// their folder could not be set aside.
func (f *Folders) Keep(before, after *config.Set, renamed map[string]string) map[string]string {
	dir := f.opts.Dir()
	if dir == "" || after == nil {
		return nil
	}
	f.ownMu.Lock()
	defer f.ownMu.Unlock()
	owners, first, rewrite := f.readOwners()
	f.looked = true
	was := maps.Clone(owners)
	now := time.Now()
	if first {
		f.adopt(dir, owners, after, now)
	}
	if before != nil {
		for old, name := range renamed {
			o, n := entryNamed(before, old), entryNamed(after, name)
			if r, ok := owners[config.DataFolder(old)]; ok && o != nil && n != nil && r.Owner == OwnerOf(o).key() {
				owners[config.DataFolder(old)] = recordOf(OwnerOf(n), r.Since)
			}
		}
	}
	refused := map[string]string{}
	stdio := slices.DeleteFunc(slices.Clone(after.Servers), func(e config.Entry) bool { return e.Transport != config.Stdio })
	for i := range stdio { // the owners' folders to their names
		f.moveToOwner(dir, owners, &stdio[i], refused)
	}
	for i := range stdio {
		if e := &stdio[i]; e.Runnable() && refused[e.Name] == "" {
			f.claim(dir, owners, e, now, refused)
		}
	}
	if !maps.Equal(was, owners) || rewrite {
		f.writeOwners(owners)
	}
	return refused
}

// moveToOwner moves the folder made for e's owner under another name to
// e's, setting aside what e's name has.
func (f *Folders) moveToOwner(dir string, owners map[string]record, e *config.Entry, refused map[string]string) {
	at, own := config.DataFolder(e.Name), OwnerOf(e).key()
	if owners[at].Owner == own {
		return
	}
	// Its folder under another name, or else the last of its folders set
	// aside (their names sort by when).
	var from string
	for _, k := range slices.Backward(slices.Sorted(maps.Keys(owners))) {
		if k != at && owners[k].Owner == own && (from == "" || strings.HasPrefix(from, setAsidePrefix) && !strings.HasPrefix(k, setAsidePrefix)) {
			from = k
		}
	}
	if from == "" {
		return
	}
	if _, err := os.Lstat(filepath.Join(dir, from)); err != nil {
		delete(owners, from) // it never ran there, or its folder is gone
		return
	}
	if err := f.setAside(dir, at, owners, e); err != nil {
		refused[e.Name] = err.Error()
		return
	}
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, at)); err != nil {
		f.opts.Logger.Warn("moving a server's data folder to its new name; it starts with an empty one", "server", sanitize.Line(e.Name), "folder", from, "err", err)
		return
	}
	owners[at] = owners[from]
	delete(owners, from)
	f.opts.Logger.Info("a server keeps its data folder under its new name", "server", sanitize.Line(e.Name), "was", from)
}

// claim makes e's folder its owner's before e starts: one made for
// another is set aside.
func (f *Folders) claim(dir string, owners map[string]record, e *config.Entry, now time.Time, refused map[string]string) {
	at, own := config.DataFolder(e.Name), OwnerOf(e)
	if owners[at].Owner == own.key() {
		return
	}
	if err := f.setAside(dir, at, owners, e); err != nil {
		refused[e.Name] = err.Error()
		return
	}
	owners[at] = recordOf(own, now)
}

// setAside renames the folder at, when there is one, out of every
// server's reach, and forgets its owner. The rename stays within the
// servers' folder: a folder moved under another would need its own write
// permission, which its server may have taken away.
func (f *Folders) setAside(dir, at string, owners map[string]record, e *config.Entry) error {
	from := filepath.Join(dir, at)
	if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
		delete(owners, at)
		return nil
	}
	label := at
	if len(label) > 160 { // the folder's name is ASCII (sandbox.FolderName)
		label = label[:160]
	}
	base := setAsidePrefix + time.Now().UTC().Format("20060102T150405Z") + "-" + label
	to := filepath.Join(dir, base)
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		to = filepath.Join(dir, fmt.Sprintf("%s-%d", base, i))
	}
	if err := os.Rename(from, to); err != nil {
		f.opts.Logger.Warn("a server's data folder was made for another server and could not be set aside; the server does not start", "server", sanitize.Line(e.Name), "folder", from, "err", err)
		return fmt.Errorf("its data folder %s was made for another server and could not be set aside (%v); move that folder away", from, errors.Unwrap(err))
	}
	if r, ok := owners[at]; ok { // its owner's still, should it come back
		owners[filepath.Base(to)] = r
	}
	delete(owners, at)
	f.opts.Logger.Warn("a server's data folder was made for another server, or mcptray does not know for whom; it is set aside, and the server starts with an empty one",
		"server", sanitize.Line(e.Name), "set aside as", to)
	return nil
}

// adopt records, in owners, each existing folder that exactly one server
// of set could have made: one named so in mcptray or in its file.
func (f *Folders) adopt(dir string, owners map[string]record, set *config.Set, now time.Time) {
	could := map[string]map[string]Owner{} // folder → owners by key
	for _, list := range [][]config.Entry{set.Servers, set.Suppressed} {
		for i := range list {
			o := OwnerOf(&list[i])
			for _, name := range []string{list[i].Name, list[i].ConfigName} {
				at := config.DataFolder(name)
				if could[at] == nil {
					could[at] = map[string]Owner{}
				}
				could[at][o.key()] = o
			}
		}
	}
	for at, who := range could {
		if _, recorded := owners[at]; recorded || len(who) != 1 {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, at)); err != nil {
			continue
		}
		for _, o := range who {
			owners[at] = recordOf(o, now)
		}
	}
}

// entryNamed is the server of set called name, running or not.
func entryNamed(set *config.Set, name string) *config.Entry {
	return configuredNames(set)[name]
}

// forget lets go of the owner of the folder at, once removed.
func (f *Folders) forget(at string) {
	f.ownMu.Lock()
	defer f.ownMu.Unlock()
	owners, _, _ := f.readOwners()
	if _, ok := owners[at]; ok {
		delete(owners, at)
		f.writeOwners(owners)
	}
}
