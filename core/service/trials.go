package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/filelock"
	"github.com/mcptray/mcptray/core/npmpin"
	"github.com/mcptray/mcptray/core/pins"
)

// The trials of the updates found are kept beside the pinned packages'
// record, in a file of their own (trials.json), by server: the last
// trial of each server's update, for the tree it tried, and the tools
// pinned before the last update, to go back to. A command that shows the
// updates reads them there; a trial of another tree than the update found
// now is stale, and not shown.

func (s *Service) trialsPath() string { return filepath.Join(s.packagesDir(), "trials.json") }

// trialsFile is the file: the last trial of each server's update, and
// the pins each server had before its last update or going back, to go
// back to.
type trialsFile struct {
	Trials map[string]Trial        `json:"trials"`
	Before map[string]pinnedBefore `json:"before,omitempty"`
}

// pinnedBefore are the definitions pinned for a server while the tree
// Tree ran.
type pinnedBefore struct {
	Tree          string     `json:"tree"`
	Tools         []pins.Def `json:"tools"`
	Prompts       []pins.Def `json:"prompts,omitempty"`
	PromptsPinned bool       `json:"promptsPinned,omitempty"`
}

// loadTrialsFile reads the file; a missing one means nothing kept.
func (s *Service) loadTrialsFile() (trialsFile, error) {
	f := trialsFile{Trials: map[string]Trial{}, Before: map[string]pinnedBefore{}}
	data, err := os.ReadFile(s.trialsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading the updates' trials: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return trialsFile{Trials: map[string]Trial{}, Before: map[string]pinnedBefore{}}, fmt.Errorf("reading the updates' trials: %w", err)
	}
	if f.Trials == nil {
		f.Trials = map[string]Trial{}
	}
	if f.Before == nil {
		f.Before = map[string]pinnedBefore{}
	}
	return f, nil
}

// loadTrials reads every server's last trial.
func (s *Service) loadTrials() (map[string]Trial, error) {
	f, err := s.loadTrialsFile()
	return f.Trials, err
}

// changeTrials changes the file under its lock.
func (s *Service) changeTrials(ctx context.Context, change func(*trialsFile)) error {
	path := s.trialsPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("writing the updates' trials: %w", err)
	}
	unlock, err := filelock.Lock(ctx, path+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	f, _ := s.loadTrialsFile() // unreadable: what it kept is tried again
	change(&f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the updates' trials: %w", err)
	}
	return config.WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// trialOf is the trial of the update r found, when there is one for its
// tree; nil when it was not tried.
func trialOf(trials map[string]Trial, name string, r npmpin.Record) *Trial {
	t, ok := trials[name]
	if !ok || r.Candidate == nil || t.Tree != r.Candidate.Lock.Hash {
		return nil
	}
	return &t
}

// tryUpdates starts, once each, the updates the last check found that
// have no trial for their tree yet, and keeps what each showed.
func (s *Service) tryUpdates(ctx context.Context) error {
	recs, err := s.packageStore().Load()
	if err != nil {
		return err
	}
	trials, err := s.loadTrials()
	if err != nil {
		trials = map[string]Trial{}
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(recs)) {
		r := recs[name]
		if r.Candidate == nil || trialOf(trials, name, r) != nil {
			continue
		}
		t := s.tryUpdate(ctx, name, *r.Candidate)
		if ctx.Err() != nil {
			return ctx.Err() // a trial cut short says nothing of the update
		}
		if err := s.changeTrials(ctx, func(f *trialsFile) { f.Trials[name] = t }); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// updatesSeen sets snap's UpdatesChecked: when the registries were last
// asked, or an update found was last tried, whichever is later, so that
// a view of the updates reads them again once a check's trials are kept.
func (s *Service) updatesSeen(snap *Snapshot, recs map[string]npmpin.Record) {
	trials, _ := s.loadTrials()
	for name, r := range recs {
		if r.Checked.After(snap.UpdatesChecked) {
			snap.UpdatesChecked = r.Checked
		}
		if t := trialOf(trials, name, r); t != nil && t.At.After(snap.UpdatesChecked) {
			snap.UpdatesChecked = t.At
		}
	}
}
