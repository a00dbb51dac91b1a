package sets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch reads the file again whenever it changes on disk, as when the
// person edits it by hand, until ctx ends: choices that differ from the
// ones kept are kept and told to those who follow, at once. A file that
// cannot be read (half written, or with a mistake) is refused: the last
// good choices stay, and Problem says why in words until the file is
// fixed. changed (when not nil) is called after each reading that changed
// the choices or the problem, for the front ends. The folder is watched,
// not the file, since an editor or WriteFileAtomic replaces the file
// whole; debounce is how long it waits after the last change before it
// reads, so that one reading follows a burst of writes.
func (k *Keeper) Watch(ctx context.Context, log *slog.Logger, debounce time.Duration, changed func()) (run func(), err error) {
	dir := filepath.Dir(k.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("watching the sets: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching the sets: %w", err)
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil, fmt.Errorf("watching the sets: %w", err)
	}
	return func() {
		defer w.Close()
		timer := time.NewTimer(debounce)
		timer.Stop()
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Base(ev.Name) == FileName {
					timer.Reset(debounce)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				log.Warn("watching the sets", "err", err)
				timer.Reset(debounce) // changes may have been lost: read again
			case <-timer.C:
				if k.reload(log) && changed != nil {
					changed()
				}
			}
		}
	}, nil
}

// reload reads the file again, keeping what it holds when it differs from
// the choices kept and can be read, and the problem when it cannot; it
// reports whether the choices or the problem changed.
func (k *Keeper) reload(log *slog.Logger) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, err := Read(k.path)
	if err != nil {
		problem := err.Error() + "; the sets stay as they were until it is fixed"
		if problem == k.problem {
			return false
		}
		k.problem = problem
		log.Warn("the sets' file was changed, and is refused", "err", err)
		return true
	}
	hadProblem := k.problem != ""
	k.problem = ""
	if same(c, k.cur) {
		return hadProblem
	}
	k.cur = c
	log.Info("the sets' file was changed: the sets are read again")
	for _, f := range k.follow {
		f(clone(c))
	}
	return true
}

// Problem says why the file, changed on disk, was refused; "" when the
// choices kept are what it holds.
func (k *Keeper) Problem() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.problem
}

// same reports whether a and b are the same choices.
func same(a, b Choices) bool {
	a.Version, b.Version = version, version
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
