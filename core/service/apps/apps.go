// Package apps is the service's part that knows the AI apps: which are
// on this computer and whether their config runs mcptray's gateway, the
// sessions the gateway has with them, when each was last seen (kept in a
// file across restarts, seen.go), and how each stands in words.
//
// The running mcptray (core/instance) makes a Roster with the gateway's
// sessions, and tells it (Changed) when an app arrives, lists its tools or
// leaves; the service lists the apps from it (Service.Apps) and notes
// when it connected one. It never imports the service nor the gateway.
package apps

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// Session is one app's session with the gateway, as the gateway saw it.
type Session struct {
	// Client and ClientVersion are the clientInfo the app sent in
	// initialize.
	Client        string `json:"client"`
	ClientVersion string `json:"clientVersion,omitempty"`
	// App is the app as mcptray's config names it ("Cursor"), or "" when
	// the gateway does not know the client.
	App string `json:"app,omitempty"`
	// Named is the name mcptray gave the app ("cursor": mcptray stdio
	// --app, or the app's own token on the HTTP face), which no other
	// program can claim; the session is that app's, whatever its
	// clientInfo says. "" when it came without one: then App goes by
	// what the app says of itself.
	Named string `json:"named,omitempty"`
	// Face is how it reaches the gateway: "stdio" (mcptray stdio) or
	// "http".
	Face     string    `json:"face"`
	Started  time.Time `json:"started"`
	LastSeen time.Time `json:"lastSeen"`
	// Listed says it asked for the tools; Tools is how many it was given
	// the last time.
	Listed bool `json:"listed,omitempty"`
	Tools  int  `json:"tools"`
	// Ended says the session is over (the app quit or went away).
	Ended bool `json:"ended,omitempty"`
	// ToolLimit is how many tools the app can use (0: no known limit);
	// ToolWarning says in plain words when Tools is near or over it.
	ToolLimit   int    `json:"toolLimit,omitempty"`
	ToolWarning string `json:"toolWarning,omitempty"`
}

// State is how an app stands with the gateway.
type State string

// The states of an App.
const (
	// NotConnected: its config does not run mcptray's gateway.
	NotConnected State = "not-connected"
	// Waiting: just connected; the app has not started the gateway yet.
	Waiting State = "waiting"
	// NotArrived: connected a while ago (ArrivalWindow), and the app
	// has still not started the gateway.
	NotArrived State = "not-arrived"
	// Idle: connected, but no session now.
	Idle State = "idle"
	// InUse: it has a session with the gateway now.
	InUse State = "in-use"
)

// ArrivalWindow is how long after the service's ConnectApp an app is expected to have
// started the gateway: it must be quit fully and opened again, which a
// person does in a minute.
const ArrivalWindow = 2 * time.Minute

// App is an AI app on this computer as the gateway sees it.
type App struct {
	// Key is the app as the command line names it ("cursor"); "" for an
	// app mcptray knows only from its sessions.
	Key  string `json:"key,omitempty"`
	Name string `json:"name"`
	// File is its MCP config file.
	File string `json:"file,omitempty"`
	// Found says it seems installed here (its config or folder exists).
	Found bool `json:"found"`
	// Connected says its config runs mcptray's gateway.
	Connected bool `json:"connected"`
	// ConnectedAt is when this mcptray connected it; zero when it was
	// connected before this mcptray started, or elsewhere.
	ConnectedAt time.Time `json:"connectedAt,omitzero"`
	State       State     `json:"state"`
	// Status says State in words; Hint what to do, when anything.
	Status string `json:"status"`
	Hint   string `json:"hint,omitempty"`
	// Tools is how many tools it sees now; ToolWarning says when that is
	// near or over what it can use.
	Tools       int    `json:"tools"`
	ToolWarning string `json:"toolWarning,omitempty"`
	// LastSeen is when the gateway last saw it, in this mcptray or an
	// earlier one; LastTools is how many tools it was given the last time
	// it asked (0: never).
	LastSeen  time.Time `json:"lastSeen,omitzero"`
	LastTools int       `json:"lastTools,omitempty"`
	// Sessions are its sessions since this mcptray started, live first.
	Sessions []Session `json:"sessions,omitempty"`
	// Movable are servers of its config that mcptray runs from another
	// config: connecting can take them out of its config.
	Movable []Movable `json:"movable,omitempty"`
	// Problem says why its config could not be read.
	Problem string `json:"problem,omitempty"`
}

// Movable is a server in an app's config that mcptray already runs.
type Movable struct {
	// Name is its name in the app's config.
	Name string `json:"name"`
	// RunsAs is the server mcptray runs it as.
	RunsAs string `json:"runsAs"`
}

// Options configure a Roster.
type Options struct {
	// Paths are where the apps' configs and mcptray's files are.
	Paths  config.Paths
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sessions reads the gateway's sessions; nil means there is no
	// gateway (a command's own service).
	Sessions func() []Session
}

// Roster is what the service knows of the AI apps. Its methods are safe
// for concurrent use.
type Roster struct {
	opts    Options
	changed func() // the service's notices (Attach)

	mu          sync.Mutex
	connectedAt map[string]time.Time // by config.Source.App
	seen        seenState            // when each app was last seen (seen.go)
}

// New returns a roster that tells no one of changes until the service
// attaches.
func New(o Options) *Roster {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Roster{opts: o}
}

// Attach gives the roster the service's change notices, which front ends
// follow. service.New calls it, once; nothing else does.
func (r *Roster) Attach(changed func()) { r.changed = changed }

// Follows says whether the roster reads a gateway's sessions.
func (r *Roster) Follows() bool { return r.opts.Sessions != nil }

// Changed is what the gateway calls when an app arrives, lists its tools
// or leaves: front ends get a change notice, and the file of when each
// app was last seen is written when it may (Run).
func (r *Roster) Changed() {
	if r.changed != nil {
		r.changed()
	}
	r.seenFile().Poke()
}

// Connected notes that the service connected app (config.Source.App) to
// the gateway now: until the app arrives, it is waiting for it.
func (r *Roster) Connected(app string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.connectedAt == nil {
		r.connectedAt = map[string]time.Time{}
	}
	r.connectedAt[app] = r.opts.Now()
}

// Disconnected forgets that the service connected app.
func (r *Roster) Disconnected(app string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.connectedAt, app)
}

// List returns the AI apps found on this computer, and any other app with
// a session with the gateway, each with how it stands; set is the config
// in use, which says which of an app's servers mcptray runs from another
// config.
func (r *Roster) List(set *config.Set) []App {
	r.mu.Lock()
	connectedAt := maps.Clone(r.connectedAt)
	r.mu.Unlock()
	var sessions []Session
	if r.opts.Sessions != nil {
		sessions = r.opts.Sessions()
	}
	seen := r.noteSessions(sessions)
	now := r.opts.Now()
	p := r.opts.Paths
	var out []App
	claimed := map[int]bool{}
	keys := p.AppNames()
	for i, src := range p.ImportSources() {
		a := App{Key: keys[i], Name: src.App, File: src.File, Found: config.AppFound(src, p.Home), ConnectedAt: connectedAt[src.App]}
		a.LastSeen, a.LastTools = seen[keys[i]].LastSeen, seen[keys[i]].Tools
		var err error
		if a.Connected, err = config.AppConnected(src); err != nil {
			a.Problem = sanitize.Line(err.Error())
		}
		for j, ss := range sessions {
			if ss.of(keys[i], src.App) {
				a.Sessions = append(a.Sessions, ss)
				claimed[j] = true
			}
		}
		for _, e := range config.Movable(set, src) {
			a.Movable = append(a.Movable, Movable{Name: e.ConfigName, RunsAs: e.SuppressedBy})
		}
		a.judge(now)
		out = append(out, a)
	}
	// Apps mcptray reads no config of, known by their sessions only.
	others := map[string]int{}
	for j, ss := range sessions {
		if claimed[j] {
			continue
		}
		name := ss.Named
		if name == "" {
			name = ss.App
		}
		if name == "" {
			name = ss.Client
		}
		i, ok := others[name]
		if !ok {
			i = len(out)
			others[name] = i
			out = append(out, App{Name: sanitize.Line(name), Found: true, Connected: true})
		}
		out[i].Sessions = append(out[i].Sessions, ss)
	}
	for i := range out {
		if out[i].Key == "" {
			out[i].judge(now)
		}
	}
	return out
}

// of reports whether the session is the app key (config.Source.App
// name): by the name mcptray gave it when it has one, else by what its
// clientInfo says.
func (ss Session) of(key, name string) bool {
	if ss.Named != "" {
		return ss.Named == key
	}
	return ss.App == name
}

// judge sets an app's State, Status, Hint and Tools from its config and
// sessions, at now.
func (a *App) judge(now time.Time) {
	// Live sessions first, the newest first.
	slices.SortStableFunc(a.Sessions, func(x, y Session) int {
		if x.Ended != y.Ended {
			if x.Ended {
				return 1
			}
			return -1
		}
		return y.LastSeen.Compare(x.LastSeen)
	})
	name := sanitize.Line(a.Name)
	reopen := fmt.Sprintf("Quit %s fully (Quit in its menu, not just closing its window) and open it again.", name)
	switch {
	case len(a.Sessions) > 0 && !a.Sessions[0].Ended:
		live := a.Sessions[0]
		a.State, a.Tools, a.ToolWarning = InUse, live.Tools, live.ToolWarning
		if live.Listed {
			a.Status = fmt.Sprintf("in use — sees %s", plural(live.Tools, "tool"))
		} else {
			a.Status = "in use — has not asked for the tools yet"
		}
		if !a.Connected && a.Key != "" {
			a.Hint = fmt.Sprintf("Its config does not start mcptray (any more): %s keeps using it until you quit it fully, unless a project's config starts mcptray for it.", name)
		}
	case !a.Connected:
		a.State, a.Status = NotConnected, "not connected"
	case !a.ConnectedAt.IsZero() && (len(a.Sessions) == 0 || a.Sessions[0].LastSeen.Before(a.ConnectedAt)):
		if now.Sub(a.ConnectedAt) < ArrivalWindow {
			a.State = Waiting
			a.Status = fmt.Sprintf("connected — waiting for %s to start it; quit it fully and open it again", name)
		} else {
			a.State = NotArrived
			a.Status = fmt.Sprintf("connected, but %s has not started it in %s", name, plural(int(now.Sub(a.ConnectedAt).Minutes()), "minute"))
			a.Hint = reopen + fmt.Sprintf(" If it still does not show up here, open %s's MCP settings and check that the server %q is there and turned on.", name, config.GatewayEntry)
		}
	case len(a.Sessions) > 0:
		a.State = Idle
		a.Status = fmt.Sprintf("connected — last used at %s", a.Sessions[0].LastSeen.Local().Format("15:04"))
	case !a.LastSeen.IsZero():
		a.State = Idle
		a.Status = "connected — last used " + agoWords(now.Sub(a.LastSeen))
		if a.LastTools > 0 {
			a.Status += fmt.Sprintf(", when it saw %s", plural(a.LastTools, "tool"))
		}
		a.Hint = "If " + name + " is open, " + strings.ToLower(reopen[:1]) + reopen[1:]
	default:
		a.State = Idle
		a.Status = "connected — not used since mcptray started"
		a.Hint = "If " + name + " is open, " + strings.ToLower(reopen[:1]) + reopen[1:]
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
