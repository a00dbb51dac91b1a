package apps

import (
	"context"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/statefile"
)

// The gateway's sessions live in memory, so after a restart a connected
// app would look as if it had never used mcptray. The roster keeps, per
// app it recognises (by its key, "claude-code"), when the gateway last saw
// it and how many tools it was given then, in Paths.AppsSeenFile: never a
// client's arguments, results or tokens. It writes the file when an app
// arrives or leaves, at most once every appsSeenEvery, and when the
// service closes (Run; core/statefile keeps the file).

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

// seenState is the roster's copy of the file (core/statefile), opened on
// first use, and written by Run; Roster.mu guards it.
type seenState struct {
	file  *statefile.File[appSeen]
	saved func() // tests: called after each write
}

// mergeSeen lays v, what is new of an app, over old (had: what was known)
// where it is newer, and reports whether that is news. An app seen again
// that has not asked for the tools yet keeps the count it was given
// before.
func mergeSeen(old appSeen, had bool, v appSeen) (appSeen, bool) {
	if had && !v.LastSeen.After(old.LastSeen) {
		return old, false
	}
	if v.Tools == 0 {
		v.Tools = old.Tools
	}
	return v, true
}

// seenOf is what sessions say of each app the gateway recognised.
func seenOf(sessions []Session) map[string]appSeen {
	out := map[string]appSeen{}
	for _, ss := range sessions {
		k := ss.Named
		if k == "" {
			k = config.AppKeyFor(ss.App)
		}
		if k == "" || ss.LastSeen.IsZero() {
			continue
		}
		v := appSeen{LastSeen: ss.LastSeen.UTC().Truncate(time.Second)}
		if ss.Listed {
			v.Tools = ss.Tools
		}
		old, had := out[k]
		if v, news := mergeSeen(old, had, v); news {
			out[k] = v
		}
	}
	return out
}

// seenOptions are the file's: at path, with what the gateway's sessions
// say gathered before each write, and tests told of each write.
func (r *Roster) seenOptions(path string) statefile.Options[appSeen] {
	o := statefile.Options[appSeen]{
		Path: path, Field: "apps", MaxSize: maxAppsSeenSize, Max: maxAppsSeen,
		When:   func(a appSeen) time.Time { return a.LastSeen },
		Merge:  mergeSeen,
		Every:  appsSeenEvery,
		Logger: r.opts.Logger, Failed: "could not keep when the apps last used mcptray",
		Saved: func() {
			r.mu.Lock()
			saved := r.seen.saved
			r.mu.Unlock()
			if saved != nil {
				saved()
			}
		},
	}
	if r.opts.Sessions != nil {
		o.Gather = func() map[string]appSeen { return seenOf(r.opts.Sessions()) }
	}
	return o
}

// readAppsSeen reads the file as it is now; a missing one is empty.
func readAppsSeen(path string) (map[string]appSeen, error) {
	f, err := statefile.Open(statefile.Options[appSeen]{Path: path, Field: "apps", MaxSize: maxAppsSeenSize, Max: maxAppsSeen,
		When: func(a appSeen) time.Time { return a.LastSeen }})
	return f.Values(), err
}

// loadSeen reads the file once and returns it; r.mu is held.
func (r *Roster) loadSeen() *statefile.File[appSeen] {
	if r.seen.file == nil {
		f, err := statefile.Open(r.seenOptions(r.opts.Paths.AppsSeenFile()))
		if err != nil {
			r.opts.Logger.Warn("forgetting when the apps last used mcptray", "err", err)
		}
		r.seen.file = f
	}
	return r.seen.file
}

// seenFile is the roster's copy of the file, read on first use.
func (r *Roster) seenFile() *statefile.File[appSeen] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loadSeen()
}

// noteSessions takes what sessions say into the roster's copy, and
// returns the copy.
func (r *Roster) noteSessions(sessions []Session) map[string]appSeen {
	return r.seenFile().Merge(seenOf(sessions))
}

// Run writes what the gateway's sessions say into the file until ctx
// ends: at once when poked (Changed: an app arrived, listed its tools or
// left), then at most once every appsSeenEvery, every appsSeenEvery, and
// once more as ctx ends. The service runs it from Start to Close when the
// roster follows a gateway (Follows).
func (r *Roster) Run(ctx context.Context) {
	r.seenFile().Write(ctx)
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
