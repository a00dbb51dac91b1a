package guard

import (
	"encoding/json"
	"sync"
	"time"
)

// DefaultWindow is how long a sessionless app's calls count as one
// session after its last call: an app on MCP's sessionless revision sends
// no session, only its client's name, so its calls are followed by that
// name, and a pause this long starts anew.
const DefaultWindow = 10 * time.Minute

// maxSessions bounds the sessions followed; beyond it the one seen
// longest ago is forgotten.
const maxSessions = 4096

// Call is one call of a tool as the guard sees it.
type Call struct {
	// Session names the app's session: its id, or for a sessionless app
	// (Sessionless) its face and client name.
	Session     string
	Sessionless bool
	// App is the app as people know it ("Claude Code"), or "".
	App string
	// Tool are the tool's labels.
	Tool *ToolLabels
	// Args are the call's arguments: only a path or an address in them is
	// kept, in words, for the chain.
	Args json.RawMessage
}

// Verdict is what the guard says of a call.
type Verdict struct {
	// Held says the session took in private data and untrusted content,
	// and the call can send data out: it waits for the person (or is
	// refused), and is not counted as made until Allow.
	Held bool
	// Tainted says the session had read private data and untrusted
	// content before this call: while the call runs, its server's first
	// connection to a host not on its list is asked about with the chain
	// as well (core/egress), whatever the tool's labels say. A held call
	// is tainted.
	Tainted bool
	// Chain says how, when Tainted; a call not held is its Send.
	Chain Chain
}

// Tracker follows the app sessions' calls: which labels each touched, and
// the call that first touched each. It is safe for concurrent use.
type Tracker struct {
	home   string
	window time.Duration
	now    func() time.Time

	mu       sync.Mutex
	sessions map[string]*session
}

// session is what one app session's calls touched.
type session struct {
	touched Labels
	// first is the step that touched private or untrusted first, then
	// the other; firstLabel says which first is.
	first, then Step
	firstLabel  Label
	// allowed are the egress tools the person let through for the rest
	// of the session.
	allowed     map[string]bool
	last        time.Time
	sessionless bool
}

// NewTracker returns a Tracker whose chains write home as ~; window
// bounds a sessionless app's session (zero means DefaultWindow).
func NewTracker(home string, window time.Duration) *Tracker {
	if window <= 0 {
		window = DefaultWindow
	}
	return &Tracker{home: home, window: window, now: time.Now, sessions: map[string]*session{}}
}

// See says whether c is held; a call that is not counts as made, and
// its labels as touched.
func (t *Tracker) See(c Call) Verdict { return t.see(c, true) }

// Check says whether c would be held, counting nothing: for a call that
// waits for its permission's question first.
func (t *Tracker) Check(c Call) Verdict { return t.see(c, false) }

// see is See, or with count false Check.
func (t *Tracker) see(c Call, count bool) Verdict {
	if c.Tool == nil {
		return Verdict{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.session(c)
	tainted := s.touched.Has(Private) && s.touched.Has(Untrusted)
	if tainted && c.Tool.Labels.Has(Egress) && !s.allowed[c.Tool.Tool] {
		return Verdict{Held: true, Tainted: true, Chain: t.chain(s, c)}
	}
	if count {
		t.touch(s, c)
	}
	if tainted {
		return Verdict{Tainted: true, Chain: t.chain(s, c)}
	}
	return Verdict{}
}

// Allow counts a held call as made, once the person allowed it; with
// forSession, the session's later calls of its tool are not held again.
func (t *Tracker) Allow(c Call, forSession bool) {
	if c.Tool == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.session(c)
	t.touch(s, c)
	if forSession {
		if s.allowed == nil {
			s.allowed = map[string]bool{}
		}
		s.allowed[c.Tool.Tool] = true
	}
}

// End forgets a session that ended.
func (t *Tracker) End(session string) {
	t.mu.Lock()
	delete(t.sessions, session)
	t.mu.Unlock()
}

// Touched are the labels a session's calls touched so far.
func (t *Tracker) Touched(session string) Labels {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.sessions[session]; ok {
		return s.touched
	}
	return 0
}

// session is c's session, made or begun anew; t.mu is held.
func (t *Tracker) session(c Call) *session {
	now := t.now()
	s, ok := t.sessions[c.Session]
	switch {
	case !ok:
		if len(t.sessions) >= maxSessions {
			t.forgetOldest()
		}
		s = &session{sessionless: c.Sessionless}
		t.sessions[c.Session] = s
	case s.sessionless && now.Sub(s.last) > t.window:
		*s = session{sessionless: true}
	}
	s.last = now
	return s
}

// forgetOldest forgets the session seen longest ago; t.mu is held.
func (t *Tracker) forgetOldest() {
	oldest := ""
	var at time.Time
	for k, s := range t.sessions {
		if oldest == "" || s.last.Before(at) {
			oldest, at = k, s.last
		}
	}
	delete(t.sessions, oldest)
}

// touch counts c's labels as touched by s, keeping the step of the first
// call to touch private and untrusted; t.mu is held.
func (t *Tracker) touch(s *session, c Call) {
	for _, l := range [...]Label{Private, Untrusted} {
		if !c.Tool.Labels.Has(l) || s.touched.Has(l) {
			continue
		}
		step := Step{Server: c.Tool.Server, ServerTool: c.Tool.ServerTool, What: whatOf(c.Args, t.home)}
		if s.firstLabel == 0 {
			s.first, s.firstLabel = step, l
		} else {
			s.then = step
		}
		s.touched |= Labels(l)
	}
	s.touched |= c.Tool.Labels & Labels(Egress)
}

// chain is how s came to hold c; t.mu is held.
func (t *Tracker) chain(s *session, c Call) Chain {
	to := hostOf(c.Args)
	if to == "" && len(c.Tool.Destinations) > 0 {
		to = c.Tool.Destinations[0]
	}
	return Chain{App: c.App, First: s.first, Then: s.then, FirstLabel: s.firstLabel,
		Send: Step{Server: c.Tool.Server, ServerTool: c.Tool.ServerTool}, To: to}
}
