package service

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
)

// A sandboxed server's private data folder (mcptray's servers/NAME, the
// one folder of mcptray's its sandbox lets it change) goes with the
// server: when a config no longer has a server of that name (mcptray
// remove, the window's Remove, or its file edited), the folder is removed
// once the server's process has stopped. A server renamed with the same
// command and arguments (its config.Signature) keeps its data: the folder
// is moved to the new name before the server starts under it. A file
// that could not be read (a Problem) removes nothing: its servers may be
// back once it is mended, nor does a file that is gone (a project's
// .mcp.json on another git branch, say): it may come back as it was.

// dataFolder is the data folder of the server called name, or "" when
// servers have none here.
func (s *Service) dataFolder(name string) string {
	dir := s.sandboxOpts().ServersDir
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

// dataChanges are the local servers of before that after no longer has:
// those renamed in after with the same command and arguments (renamed:
// old name → new name), and the others (gone).
func dataChanges(before, after *config.Set) (gone []string, renamed map[string]string) {
	if before == nil || after == nil {
		return nil, nil
	}
	was, now := configuredNames(before), configuredNames(after)
	unreadable := map[string]bool{}
	for _, p := range after.Problems {
		if p.Server == "" {
			unreadable[p.File] = true
		}
	}
	taken := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(was)) {
		e := was[name]
		if _, ok := now[name]; ok || e.Transport != config.Stdio || unreadable[e.Origin.File] || fileGone(e.Origin.File) {
			continue
		}
		i := slices.IndexFunc(slices.Sorted(maps.Keys(now)), func(newName string) bool {
			_, existed := was[newName]
			return !existed && !taken[newName] && now[newName].Signature == e.Signature
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

// moveRenamedData moves the data folders of renamed servers to their new
// names, before the servers start under them. A new name that has a
// folder already keeps it, and the old one is left where it is: nothing
// of the person's is removed on a guess.
func (s *Service) moveRenamedData(renamed map[string]string) {
	for old, name := range renamed {
		from, to := s.dataFolder(old), s.dataFolder(name)
		if from == "" {
			return
		}
		if _, err := os.Lstat(from); err != nil { // it never ran here
			continue
		}
		if _, err := os.Lstat(to); err == nil {
			s.log.Warn("a renamed server's new name has a data folder already; its old one is left as it was", "server", sanitize.Line(name), "was", sanitize.Line(old), "folder", from)
			continue
		}
		if err := os.Rename(from, to); err != nil {
			s.log.Warn("moving a renamed server's data folder", "server", sanitize.Line(name), "was", sanitize.Line(old), "err", err)
			continue
		}
		s.log.Info("a renamed server keeps its data folder", "server", sanitize.Line(name), "was", sanitize.Line(old))
	}
}

// removeDataWhenStopped removes the data folders of servers gone from the
// config, each once its process has stopped, unless a server of that name
// is configured again by then. Remove waits for it (waitDataRemoved).
func (s *Service) removeDataWhenStopped(gone []string) {
	for _, name := range gone {
		dir := s.dataFolder(name)
		if dir == "" {
			return
		}
		stopped := s.conns.Stopped(name)
		done := make(chan struct{})
		s.dataMu.Lock()
		if s.dataGone == nil {
			s.dataGone = map[string]chan struct{}{}
		}
		s.dataGone[name] = done
		s.dataMu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.dataMu.Lock()
				if s.dataGone[name] == done {
					delete(s.dataGone, name)
				}
				s.dataMu.Unlock()
				close(done)
			}()
			<-stopped      // the manager's Close ends every process too
			s.useMu.Lock() // no config is put to use meanwhile
			defer s.useMu.Unlock()
			if _, back := configuredNames(s.current())[name]; back {
				return
			}
			if err := os.RemoveAll(dir); err != nil {
				s.log.Warn("removing a removed server's data folder", "server", sanitize.Line(name), "folder", dir, "err", err)
				return
			}
			s.log.Info("removed a removed server's data folder", "server", sanitize.Line(name))
		}()
	}
}

// waitDataRemoved waits until the data folder of the server called name
// in mcptray's own config, just removed from the config (before is the
// config before), is gone too, or ctx ends.
func (s *Service) waitDataRemoved(ctx context.Context, before *config.Set, name string) {
	for _, e := range configuredNames(before) {
		if e.Scope != config.User || e.ConfigName != name {
			continue
		}
		s.dataMu.Lock()
		done := s.dataGone[e.Name]
		s.dataMu.Unlock()
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
