package service

import (
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/statefile"
)

// The gateway's sessions live in memory, so after a restart a connected
// app would look as if it had never used mcptray. The service keeps, per
// app it recognises (by its key, "claude-code"), when the gateway last saw
// it and how many tools it was given then, in Paths.AppsSeenFile: never a
// client's arguments, results or tokens. It writes the file when an app
// arrives or leaves, at most once every appsSeenEvery, and when it closes
// (core/statefile keeps the file).

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

// seenState is the service's copy of the file (core/statefile), opened on
// first use, and written by a goroutine of the service's once it follows
// the gateway's apps (followSeen).
type seenState struct {
	file      *statefile.File[appSeen]
	following bool   // the writer runs
	saved     func() // tests: called after each write
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
func seenOf(sessions []AppSession) map[string]appSeen {
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
		old, had := out[k]
		if v, news := mergeSeen(old, had, v); news {
			out[k] = v
		}
	}
	return out
}

// seenOptions are the file's: at path, with what the gateway's sessions
// say gathered before each write, and tests told of each write.
func (s *Service) seenOptions(path string) statefile.Options[appSeen] {
	return statefile.Options[appSeen]{
		Path: path, Field: "apps", MaxSize: maxAppsSeenSize, Max: maxAppsSeen,
		When:  func(a appSeen) time.Time { return a.LastSeen },
		Merge: mergeSeen,
		Every: appsSeenEvery,
		Gather: func() map[string]appSeen {
			s.apps.mu.Lock()
			read := s.apps.sessions
			s.apps.mu.Unlock()
			if read == nil {
				return nil
			}
			return seenOf(read())
		},
		Logger: s.log, Failed: "could not keep when the apps last used mcptray",
		Saved: func() {
			s.apps.mu.Lock()
			saved := s.apps.seen.saved
			s.apps.mu.Unlock()
			if saved != nil {
				saved()
			}
		},
	}
}

// readAppsSeen reads the file as it is now; a missing one is empty.
func readAppsSeen(path string) (map[string]appSeen, error) {
	f, err := statefile.Open(statefile.Options[appSeen]{Path: path, Field: "apps", MaxSize: maxAppsSeenSize, Max: maxAppsSeen,
		When: func(a appSeen) time.Time { return a.LastSeen }})
	return f.Values(), err
}

// loadSeen reads the file once and returns it; s.apps.mu is held.
func (s *Service) loadSeen() *statefile.File[appSeen] {
	if s.apps.seen.file == nil {
		f, err := statefile.Open(s.seenOptions(s.opts.Paths.AppsSeenFile()))
		if err != nil {
			s.log.Warn("forgetting when the apps last used mcptray", "err", err)
		}
		s.apps.seen.file = f
	}
	return s.apps.seen.file
}

// noteSessions takes what sessions say into the service's copy, and
// returns the copy.
func (s *Service) noteSessions(sessions []AppSession) map[string]appSeen {
	news := seenOf(sessions)
	s.apps.mu.Lock()
	f := s.loadSeen()
	s.apps.mu.Unlock()
	return f.Merge(news)
}

// followSeen starts the file's writer, unless it runs or the service is
// closed, and returns what pokes it: an app arrived, listed its tools or
// left. The writer writes what the gateway's sessions say at once, then at
// most once every appsSeenEvery and every appsSeenEvery, and when the
// service closes; its goroutine is in s.wg.
func (s *Service) followSeen() (poke func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apps.mu.Lock()
	defer s.apps.mu.Unlock()
	f := s.loadSeen()
	if !s.apps.seen.following && !s.closed {
		s.apps.seen.following = true
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			f.Write(s.ctx)
		}()
	}
	return f.Poke
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
