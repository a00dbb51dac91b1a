package secretkeep

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/filelock"
)

// The keychain cannot list what mcptray keeps in it, so mcptray keeps an
// index of the secrets it stored for servers' ${secret:NAME} references,
// and of every such reference it has read: which server of which file
// refers to which name, never a value. When a
// server vanishes from every file mcptray reads (the person deleted it by
// hand), its secrets leave the keychain too, unless a server still refers
// to them.

// IndexFile is the index, in mcptray's folder.
const IndexFile = "secret-names.json"

// indexedSecret is one secret mcptray stored: enough to find its keychain
// item again (Key) and to see whether a server still refers to it.
type indexedSecret struct {
	Scope  config.Scope `json:"scope"`
	File   string       `json:"file,omitempty"`
	Server string       `json:"server"` // the name as written in File
	Name   string       `json:"name"`
}

// key is where the secret is kept.
func (i indexedSecret) key() *config.Server {
	return &config.Server{Scope: i.Scope, ConfigName: i.Server, Origin: config.Origin{File: i.File}}
}

type secretIndex struct {
	Secrets []indexedSecret `json:"secrets"`
}

func (k *Keeper) secretIndexPath() string {
	return filepath.Join(k.opts.Dir, IndexFile)
}

// readSecretIndex reads the index; a missing one is empty.
func (k *Keeper) readSecretIndex() (secretIndex, error) {
	var idx secretIndex
	b, err := os.ReadFile(k.secretIndexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return idx, nil
	}
	if err != nil {
		return idx, err
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return idx, fmt.Errorf("%s is damaged: %w", k.secretIndexPath(), err)
	}
	return idx, nil
}

// modifySecretIndex changes the index under the lock every mcptray process
// takes for it.
func (k *Keeper) modifySecretIndex(ctx context.Context, fn func(*secretIndex)) error {
	path := k.secretIndexPath()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	unlock, err := filelock.Lock(ctx, path+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	idx, err := k.readSecretIndex()
	if err != nil {
		k.opts.Logger.Warn("starting the index of secrets anew", "err", err)
		idx = secretIndex{}
	}
	fn(&idx)
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	return config.WriteFileAtomic(path, append(b, '\n'), 0o600)
}

// Remember adds secrets just stored to the index. It is called after the
// file that refers to them was written, so that a reload that reads the
// index then the config always finds them referred to.
func (k *Keeper) Remember(ctx context.Context, scope config.Scope, file, server string, names []string) {
	if scope == config.User {
		file = k.opts.UserFile
	}
	err := k.modifySecretIndex(ctx, func(idx *secretIndex) {
		for _, n := range names {
			i := indexedSecret{Scope: scope, File: file, Server: server, Name: n}
			if !slices.ContainsFunc(idx.Secrets, func(x indexedSecret) bool { return sameItem(x, i) }) {
				idx.Secrets = append(idx.Secrets, i)
			}
		}
	})
	if err != nil {
		k.opts.Logger.Warn("the index of secrets was not updated; a secret may stay in the keychain after its server is gone", "err", err)
	}
}

// vanishedSecrets returns the secrets of idx that no server of set refers
// to, among those whose file set read without a problem: a file that
// cannot be read or parsed now, or is gone, or a project folder no longer
// read, loses nothing.
func vanishedSecrets(idx secretIndex, set *config.Set) []indexedSecret {
	var out []indexedSecret
	for _, i := range idx.Secrets {
		if _, err := os.Stat(i.File); i.File != "" && err != nil {
			continue
		}
		troubled := slices.ContainsFunc(set.Problems, func(p config.Problem) bool {
			return p.File == i.File && (p.Server == "" || p.Server == i.Server)
		})
		// A project folder no longer read still holds its servers.
		unread := i.Scope.NeedsApproval() && !slices.ContainsFunc(set.Folders, func(f string) bool {
			return strings.HasPrefix(i.File, f+string(filepath.Separator))
		})
		if troubled || unread || referred(set, i) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// unindexed returns the secrets set's servers refer to that idx does not
// hold.
func unindexed(idx secretIndex, set *config.Set) []indexedSecret {
	var out []indexedSecret
	for _, list := range [][]config.Entry{set.Servers, set.Suppressed} {
		for _, e := range list {
			if e.Transport == config.InProcess {
				continue
			}
			for _, n := range e.SecretNames() {
				i := indexedSecret{Scope: e.Scope, File: e.Origin.File, Server: e.ConfigName, Name: n}
				if !slices.ContainsFunc(idx.Secrets, func(x indexedSecret) bool { return sameItem(x, i) }) && !slices.Contains(out, i) {
					out = append(out, i)
				}
			}
		}
	}
	return out
}

// sameItem reports whether a and b are one keychain item.
func sameItem(a, b indexedSecret) bool {
	return a.Name == b.Name && Key(a.key(), a.Name) == Key(b.key(), b.Name)
}

// referred reports whether a server of set keeps its secret called i.Name
// under the same keychain item as i.
func referred(set *config.Set, i indexedSecret) bool {
	want := Key(i.key(), i.Name)
	for _, list := range [][]config.Entry{set.Servers, set.Suppressed} {
		for _, e := range list {
			if e.ConfigName == i.Server && e.Scope == i.Scope && Key(&e.Server, i.Name) == want && slices.Contains(e.SecretNames(), i.Name) {
				return true
			}
		}
	}
	return false
}

// ForgetVanished removes from the keychain the secrets of servers that
// are gone from set, and from the index. set may be older than an entry of
// the index (a server added meanwhile), so what would go is checked again
// against the config load reads after the index.
func (k *Keeper) ForgetVanished(ctx context.Context, set *config.Set, load func() *config.Set) {
	idx, err := k.readSecretIndex()
	if err != nil {
		k.opts.Logger.Warn("reading the index of secrets", "err", err)
		return
	}
	if unseen := unindexed(idx, set); len(unseen) > 0 {
		// References written by hand, or before mcptray kept the index:
		// their secrets may be in the keychain too.
		err := k.modifySecretIndex(ctx, func(idx *secretIndex) {
			for _, i := range unseen {
				if !slices.ContainsFunc(idx.Secrets, func(x indexedSecret) bool { return sameItem(x, i) }) {
					idx.Secrets = append(idx.Secrets, i)
				}
			}
		})
		if err != nil {
			k.opts.Logger.Warn("updating the index of secrets", "err", err)
		}
	}
	if len(vanishedSecrets(idx, set)) == 0 {
		return
	}
	gone := vanishedSecrets(idx, load())
	if len(gone) == 0 {
		return
	}
	var forgotten []indexedSecret
	for _, i := range gone {
		if err := k.opts.Store.Delete(ctx, Key(i.key(), i.Name)); err != nil {
			k.opts.Logger.Warn("a removed server's secret is still in the keychain", "server", i.Server, "secret", i.Name, "err", err)
			continue
		}
		k.opts.Logger.Info("secret of a removed server forgotten", "server", i.Server, "secret", i.Name, "file", cmp.Or(i.File, string(i.Scope.String())))
		forgotten = append(forgotten, i)
	}
	err = k.modifySecretIndex(ctx, func(idx *secretIndex) {
		idx.Secrets = slices.DeleteFunc(idx.Secrets, func(i indexedSecret) bool { return slices.Contains(forgotten, i) })
	})
	if err != nil {
		k.opts.Logger.Warn("updating the index of secrets", "err", err)
	}
}
