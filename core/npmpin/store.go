package npmpin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/filelock"
)

// Record is what mcptray keeps of one server's package.
type Record struct {
	// Config is the approval key of the server's config when it was
	// pinned (config.ApprovalKey): a config that asks for something else
	// is another server, pinned anew.
	Config string `json:"config"`
	// Current is the tree that runs.
	Current Pin `json:"current"`
	// Previous is the tree that ran before the last update, kept to go
	// back to.
	Previous *Pin `json:"previous,omitempty"`
	// Candidate is a newer tree the last check found and installed, not
	// run until the person updates to it.
	Candidate *Pin `json:"candidate,omitempty"`
	// Review is what changes from Current to Candidate.
	Review *Review `json:"review,omitempty"`
	// Checked is when the registry was last asked.
	Checked time.Time `json:"checked,omitzero"`
	At      time.Time `json:"at"` // when Current was pinned or updated to
}

// Store keeps each server's Record in one file, by server name.
type Store struct {
	Path string
}

type storeFile struct {
	Version int               `json:"version"`
	Servers map[string]Record `json:"servers"`
}

// Load reads every record. A missing file means none.
func (s *Store) Load() (map[string]Record, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Record{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the pinned packages: %w", err)
	}
	var f storeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("reading the pinned packages: %w", err)
	}
	if f.Servers == nil {
		f.Servers = map[string]Record{}
	}
	return f.Servers, nil
}

// Get reads one server's record.
func (s *Store) Get(name string) (Record, bool, error) {
	all, err := s.Load()
	if err != nil {
		return Record{}, false, err
	}
	r, ok := all[name]
	return r, ok, nil
}

// Change changes the records under the store's lock: the app and a
// command may change them at once.
func (s *Store) Change(ctx context.Context, change func(map[string]Record) error) error {
	unlock, err := filelock.Lock(ctx, s.Path+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	all, err := s.Load()
	if err != nil {
		return err
	}
	if err := change(all); err != nil {
		return err
	}
	data, err := json.MarshalIndent(storeFile{Version: 1, Servers: all}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the pinned packages: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("writing the pinned packages: %w", err)
	}
	return config.WriteFileAtomic(s.Path, append(data, '\n'), 0o600)
}

// Prune removes the trees in dir (a server's folder of trees) that r
// holds no more: all but its current, previous and candidate ones. Only
// the folders Resolve makes (named by a hash) are removed; a folder being
// resolved is left.
func (r Record) Prune(dir string) error {
	keep := map[string]bool{filepath.Clean(r.Current.Dir): true}
	for _, p := range []*Pin{r.Previous, r.Candidate} {
		if p != nil {
			keep[filepath.Clean(p.Dir)] = true
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("pruning old trees: %w", err)
	}
	var errs []error
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() || !isHashName(e.Name()) || keep[path] {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func isHashName(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
