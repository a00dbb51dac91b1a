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
