package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Decision is a person's answer for one exact server content.
type Decision struct {
	// Approval is Approved or Denied.
	Approval Approval `json:"decision"`
	// Name and File say which server it was when the person decided, so
	// that the file can be read by a person too.
	Name string    `json:"name"`
	File string    `json:"file,omitempty"`
	At   time.Time `json:"at"`
}

// approvalsFile is the on-disk form of an ApprovalStore.
type approvalsFile struct {
	Version   int                 `json:"version"`
	Decisions map[string]Decision `json:"decisions"`
}

// ApprovalStore keeps the person's decisions in one file, keyed by
// ApprovalKey.
type ApprovalStore struct {
	Path string
	mu   sync.Mutex
}

// Load reads every decision. A missing file means no decisions yet.
func (a *ApprovalStore) Load() (map[string]Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.load()
}

func (a *ApprovalStore) load() (map[string]Decision, error) {
	data, err := os.ReadFile(a.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Decision{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading approvals: %w", err)
	}
	var f approvalsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("approvals file %s is damaged (%v); its backup is %s.bak", a.Path, err, a.Path)
	}
	if f.Decisions == nil {
		f.Decisions = map[string]Decision{}
	}
	return f.Decisions, nil
}

// Record stores d for the server content key, replacing any earlier
// decision for it.
func (a *ApprovalStore) Record(key string, d Decision) error {
	if d.Approval != Approved && d.Approval != Denied {
		return fmt.Errorf("recording a decision: %q is neither approved nor denied", d.Approval)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	unlock, err := lockFile(a.Path) // the app and a command may decide at once
	if err != nil {
		return err
	}
	defer unlock()
	decisions, err := a.load()
	if err != nil {
		return err
	}
	decisions[key] = d
	data, err := json.MarshalIndent(approvalsFile{Version: 1, Decisions: decisions}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding approvals: %w", err)
	}
	return WriteFileAtomic(a.Path, append(data, '\n'), 0o600)
}
