package config

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a watcher waits after the last change before
// it reloads: editors and atomic writers touch a file several times in a
// row, and one reload should follow them all.
const DefaultDebounce = 250 * time.Millisecond

// Watch reloads whenever a file that a Set came from changes, starting from
// current, and sends each Set that differs from the last in anything.
// What changed is left to whoever applies it (conn.Manager.Apply), so the
// config is compared server by server in one place only. Files that do not
// exist yet are watched through the nearest folder that does, so a config
// that appears later is picked up. The channel closes when ctx ends.
func (l *Loader) Watch(ctx context.Context, logger *slog.Logger, current *Set, debounce time.Duration) (<-chan *Set, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching config files: %w", err)
	}
	w := &watcher{loader: l, log: logger, fsw: fw, dirs: map[string]bool{}}
	w.track(l.Files(current))
	out := make(chan *Set)
	go func() {
		defer close(out)
		defer fw.Close()
		w.run(ctx, out, current, debounce)
	}()
	return out, nil
}

type watcher struct {
	loader  *Loader
	log     *slog.Logger
	fsw     *fsnotify.Watcher
	targets []string
	dirs    map[string]bool
}

func (w *watcher) run(ctx context.Context, out chan<- *Set, current *Set, debounce time.Duration) {
	timer := time.NewTimer(debounce)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				w.forget(ev.Name)
			}
			if w.relevant(ev.Name) {
				timer.Reset(debounce)
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.log.Warn("watching config files", "err", err)
			timer.Reset(debounce) // events may have been lost: look again
		case <-timer.C:
			if last := w.loader.seen.lastSet(); last != nil && w.loader.Unchanged(last) {
				// Nothing was written since the newest load (the
				// service's own, after its own write): nothing to
				// read again. That write may have changed which
				// files there are to follow, though (a project
				// folder added or removed): follow that load's,
				// and know its set as the one in use. Left at the
				// set before it, a folder added while mcptray runs
				// was never watched, nor its changes read.
				current = last
				if w.track(w.loader.Files(last)) {
					// As after a load of its own below: a file
					// in a newly watched folder may have changed
					// before its watch began.
					timer.Reset(debounce)
				}
				if w.loader.Skipped != nil {
					w.loader.Skipped()
				}
				continue
			}
			next := w.loader.Load()
			if w.track(w.loader.Files(next)) {
				// A file made in a newly watched folder after the Load
				// above and before the watch began raised no event.
				timer.Reset(debounce)
			}
			if reflect.DeepEqual(current, next) {
				continue
			}
			current = next
			select {
			case out <- next:
			case <-ctx.Done():
				return
			}
		}
	}
}

// track watches the nearest existing folder of every target, and stops
// watching folders no target needs any more. It reports whether it began
// watching a folder.
func (w *watcher) track(targets []string) (added bool) {
	want := map[string]bool{}
	for _, t := range targets {
		if st, err := os.Stat(t); err == nil && st.IsDir() {
			want[t] = true
		}
		if d := nearestFolder(t); d != "" {
			want[d] = true
		}
	}
	targets = slices.Clone(targets)
	for _, real := range linkedTargets(targets) {
		d := nearestFolder(real)
		if d == "" {
			continue
		}
		if same := sameFolder(want, d); same != "" {
			// Watched already under another name (a link on the way
			// to it): the system names its events by that one.
			real = filepath.Join(same, strings.TrimPrefix(real, d+string(filepath.Separator)))
		} else {
			want[d] = true
		}
		targets = append(targets, real)
	}
	w.targets = targets
	for d := range w.dirs {
		if !want[d] {
			w.fsw.Remove(d)
			delete(w.dirs, d)
		}
	}
	for d := range want {
		if w.dirs[d] {
			continue
		}
		if err := w.fsw.Add(d); err != nil {
			w.log.Warn("watching config folder", "dir", d, "err", err)
			continue
		}
		w.dirs[d] = true
		added = true
	}
	return added
}

// nearestFolder is the nearest folder above path that exists, "" if none.
func nearestFolder(path string) string {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// linkedTargets are the files that those of targets that are symbolic
// links lead to: a config kept with the person's dotfiles and linked
// into place is edited where it is, and the system tells of a change in
// the folder that holds the file, not in the one that holds the link.
func linkedTargets(targets []string) []string {
	var out []string
	for _, t := range targets {
		if fi, err := os.Lstat(t); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		if real, err := filepath.EvalSymlinks(t); err == nil && real != t {
			out = append(out, real)
		}
	}
	return out
}

// sameFolder is the folder of want that is dir under another name, "" if
// none: one folder watched under two names would have its events named
// by one of them only.
func sameFolder(want map[string]bool, dir string) string {
	if want[dir] {
		return dir
	}
	st, err := os.Stat(dir)
	if err != nil {
		return ""
	}
	for d := range want {
		if o, err := os.Stat(d); err == nil && os.SameFile(st, o) {
			return d
		}
	}
	return ""
}

// forget drops the folders at or under path from those watched. The system
// ends a folder's watch when the folder is deleted or moved; a folder of
// that name made again (a git checkout does both between two reloads) is
// a new folder and must be watched anew.
func (w *watcher) forget(path string) {
	for d := range w.dirs {
		if d == path || within(d, path) {
			w.fsw.Remove(d) // usually gone already; moved ones may not be
			delete(w.dirs, d)
		}
	}
}

// relevant reports whether a change at path can change a target: the target
// itself, a folder on the way to it, or something inside a target folder.
func (w *watcher) relevant(path string) bool {
	for _, t := range w.targets {
		if path == t || within(t, path) || within(path, t) {
			return true
		}
	}
	return false
}

// within reports whether path lies inside dir.
func within(path, dir string) bool {
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}
