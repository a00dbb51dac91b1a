package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// The gateway's sessions live in memory, so after a restart a connected
// app would look as if it had never used mcptray. The roster keeps, per
// app it recognises (by its key, "claude-code"), when the gateway last saw
// it and how many tools it was given then, in Paths.AppsSeenFile: never a
// client's arguments, results or tokens. It writes the file when an app
// arrives or leaves, at most once every appsSeenEvery, and when the
// service closes (Run).

// appsSeenEvery is how often, at most, the file is written.
const appsSeenEvery = 5 * time.Minute

// maxAppsSeen bounds the apps the file keeps, the most recently seen; the
// gateway recognises far fewer. maxAppsSeenSize bounds what is read of it.
const (
	maxAppsSeen     = 32
	maxAppsSeenSize = 64 << 10
)

// appSeen is what is kept of one app.
type appSeen struct {
	LastSeen time.Time `json:"lastSeen"`
	// Tools is how many tools it was given the last time it asked; 0
	// when it never did.
	Tools int `json:"tools,omitempty"`
}

// appsSeenFile is the file's form.
type appsSeenFile struct {
	Version int                `json:"version"`
	Apps    map[string]appSeen `json:"apps"`
}

// seenState is the roster's copy of the file; Roster.mu guards all but
// poke and write.
type seenState struct {
	loaded bool
	apps   map[string]appSeen
	dirty  bool          // apps has news the file has not
	poke   chan struct{} // asks the writer to write, when it may
	write  sync.Mutex    // one write of the file at a time
	saved  func()        // tests: called after each write
}

// readAppsSeen reads the file; a missing one is empty.
func readAppsSeen(path string) (map[string]appSeen, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]appSeen{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAppsSeenSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxAppsSeenSize {
		return nil, fmt.Errorf("%s is larger than it can be", path)
	}
	var file appsSeenFile
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("%s is damaged: %w", path, err)
	}
	if file.Apps == nil {
		file.Apps = map[string]appSeen{}
	}
	return boundSeen(file.Apps), nil
}

// boundSeen keeps the maxAppsSeen most recently seen apps of m.
func boundSeen(m map[string]appSeen) map[string]appSeen {
	if len(m) <= maxAppsSeen {
		return m
	}
	keys := slices.SortedFunc(maps.Keys(m), func(x, y string) int { return m[y].LastSeen.Compare(m[x].LastSeen) })
	for _, k := range keys[maxAppsSeen:] {
		delete(m, k)
	}
	return m
}

// mergeSeen lays what src says of each app over dst where it is newer,
// and reports whether dst changed. An app seen again that has not asked
// for the tools yet keeps the count it was given before.
func mergeSeen(dst, src map[string]appSeen) bool {
	changed := false
	for k, v := range src {
		old, ok := dst[k]
		if ok && !v.LastSeen.After(old.LastSeen) {
			continue
		}
		if v.Tools == 0 {
			v.Tools = old.Tools
		}
		dst[k] = v
		changed = true
	}
	return changed
}

// seenOf is what sessions say of each app the gateway recognised.
func seenOf(sessions []Session) map[string]appSeen {
	out := map[string]appSeen{}
	for _, ss := range sessions {
		k := config.AppKeyFor(ss.App)
		if k == "" || ss.LastSeen.IsZero() {
			continue
		}
		v := appSeen{LastSeen: ss.LastSeen.UTC().Truncate(time.Second)}
		if ss.Listed {
			v.Tools = ss.Tools
		}
		mergeSeen(out, map[string]appSeen{k: v})
	}
	return out
}

// loadSeen reads the file once; r.mu is held.
func (r *Roster) loadSeen() {
	if r.seen.loaded {
		return
	}
	r.seen.loaded = true
	m, err := readAppsSeen(r.opts.Paths.AppsSeenFile())
	if err != nil {
		r.opts.Logger.Warn("forgetting when the apps last used mcptray", "err", err)
		m = map[string]appSeen{}
	}
	r.seen.apps = m
}

// noteSessions takes what sessions say into the roster's copy, and
// returns the copy.
func (r *Roster) noteSessions(sessions []Session) map[string]appSeen {
	news := seenOf(sessions)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.loadSeen()
	if mergeSeen(r.seen.apps, news) {
		r.seen.dirty = true
		boundSeen(r.seen.apps)
	}
	return maps.Clone(r.seen.apps)
}

// saveSeen writes the roster's copy when it has news, merged with the
// file as another mcptray may have left it.
func (r *Roster) saveSeen() {
	r.seen.write.Lock()
	defer r.seen.write.Unlock()
	r.mu.Lock()
	if !r.seen.dirty {
		r.mu.Unlock()
		return
	}
	r.seen.dirty = false
	m := maps.Clone(r.seen.apps)
	r.mu.Unlock()
	path := r.opts.Paths.AppsSeenFile()
	if old, err := readAppsSeen(path); err == nil {
		mergeSeen(old, m)
		m = old
	}
	b, err := json.MarshalIndent(appsSeenFile{Version: 1, Apps: boundSeen(m)}, "", "  ")
	if err == nil {
		err = config.ReplaceFile(path, append(b, '\n'), 0o600)
	}
	if err != nil {
		r.opts.Logger.Warn("could not keep when the apps last used mcptray", "err", err)
		r.mu.Lock()
		r.seen.dirty = true
		r.mu.Unlock()
	}
	r.mu.Lock()
	saved := r.seen.saved
	r.mu.Unlock()
	if saved != nil {
		saved()
	}
}

// Run writes what the gateway's sessions say into the file until ctx
// ends: when poked (Changed: an app arrived, listed its tools or left)
// once appsSeenEvery has passed since the last write, every
// appsSeenEvery, and once more as ctx ends. The service runs it from
// Start to Close when the roster follows a gateway (Follows).
func (r *Roster) Run(ctx context.Context) {
	t := time.NewTicker(appsSeenEvery)
	defer t.Stop()
	var last time.Time
	save := func() {
		if r.opts.Sessions != nil {
			r.noteSessions(r.opts.Sessions())
		}
		r.saveSeen()
		last = time.Now()
	}
	for {
		select {
		case <-ctx.Done():
			save()
			return
		case <-t.C:
			save()
		case <-r.seen.poke:
			if time.Since(last) >= appsSeenEvery {
				save()
			}
		}
	}
}

// agoWords says how long ago d was, roughly: "3 hours ago".
func agoWords(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "a moment ago"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	}
	return plural(int(d/(24*time.Hour)), "day") + " ago"
}
