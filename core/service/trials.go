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
)

// The trials of the updates found are kept beside the pinned packages'
// record, in a file of their own (trials.json), by server: the last
// trial of each server's update, for the tree it tried. A command that
// shows the updates reads them there; a trial of another tree than the
// update found now is stale, and not shown.

func (s *Service) trialsPath() string { return filepath.Join(s.packagesDir(), "trials.json") }

// loadTrials reads every server's last trial; a missing file means none.
func (s *Service) loadTrials() (map[string]Trial, error) {
	data, err := os.ReadFile(s.trialsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Trial{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the updates' trials: %w", err)
	}
	var all map[string]Trial
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("reading the updates' trials: %w", err)
	}
	if all == nil {
		all = map[string]Trial{}
	}
	return all, nil
}

// changeTrials changes the trials under their file's lock.
func (s *Service) changeTrials(ctx context.Context, change func(map[string]Trial)) error {
	path := s.trialsPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("writing the updates' trials: %w", err)
	}
	unlock, err := filelock.Lock(ctx, path+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	all, err := s.loadTrials()
	if err != nil {
		all = map[string]Trial{} // unreadable: tried again
	}
	change(all)
	data, err := json.MarshalIndent(all, "", "  ")
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
		if err := s.changeTrials(ctx, func(all map[string]Trial) { all[name] = t }); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
