package egress

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Answer is the person's answer to a Question.
type Answer int

const (
	// Deny refuses the connection, and the server's others to the same
	// destination until it stops.
	Deny Answer = iota
	// AllowOnce lets the server reach the destination until it stops.
	AllowOnce
	// AllowAlways lets it reach the destination from now on:
	// Options.Remember keeps it.
	AllowAlways
)

// Question is what the proxy asks the person: may Server reach Dest?
type Question struct {
	// Server is the server's name in mcptray.
	Server string
	// Host and Port are where it connects; Dest is the two as the
	// question and a list write them ("api.weather.gov", "localhost:5432").
	Host string
	Port int
	Dest string
	// Local says the destination is this computer or its local network
	// (localhost, a private address, or a name that points to one).
	Local bool
	// Chain, when set, says that the server connects during a call for
	// an app session that has read the person's data and content someone
	// else wrote, and how (Options.Flow): "Claude Code read
	// ~/notes/tax.txt through files, then read
	// https://example.com/issue/42 through fetch. It now wants to send
	// data through weather (to api.weather.gov)."
	Chain string
}

// Message is the question in words: "Allow weather to reach
// api.weather.gov?", after its chain when it has one, its names
// sanitised.
func (q Question) Message() string {
	m := fmt.Sprintf("Allow %s to reach %s?", sanitize.Line(q.Server), sanitize.Line(q.Dest))
	if q.Chain != "" {
		m = sanitize.String(q.Chain) + " " + m
	}
	return m
}

// Reply is the person's answer to a Question, and which of their tools
// gave it ("the window (mcptray, pid 4242)", "the tray"; "" when it does
// not say), for the activity record.
type Reply struct {
	Answer Answer
	By     string
}

// AskFunc asks the person and returns their answer, or an error: ctx's
// when nobody answered in time, ErrNoWindow when there is no window to ask
// in. Any error is a no.
type AskFunc func(ctx context.Context, q Question) (Reply, error)

// ErrNoWindow is what an AskFunc returns when there is no window to ask
// in (mcptray serve): the connection is refused at once.
var ErrNoWindow = errors.New("there is no mcptray window to ask in")

// ErrNotAsked is what an AskFunc returns for a server nobody is asked
// about (mcptray only looks at its tools): the connection is refused at
// once.
var ErrNotAsked = errors.New("mcptray only looked at its tools and asks nothing for it")

// ErrGuardBlocks is what an AskFunc returns for a question with a Chain
// that mcptray's flow guard refuses without asking (its mode block): the
// connection is refused at once.
var ErrGuardBlocks = errors.New("mcptray's guard blocks it (to be asked instead: mcptray guard ask)")

// maxOpenQuestions bounds the questions open at once for one server: a
// server trying hosts by the hundred gets no more, and its connections
// beyond are refused (not kept: they are asked about later).
const maxOpenQuestions = 3

// DefaultAskTimeout is how long a connection waits for the person's
// answer before it is refused.
const DefaultAskTimeout = 60 * time.Second

// question is an open question, which every connection to its destination
// waits on.
type question struct {
	done    chan struct{} // closed once answered
	allowed bool
	reason  string
}

// decide says whether a server's session may reach d, asking the person
// when neither its list nor an answer of this session says; chain is
// Options.Flow's words for it, or "". It returns why not, in words that
// follow "mcptray did not let SERVER reach DEST: ".
func (p *Proxy) decide(ctx context.Context, s *session, d dest, chain string) (bool, string) {
	if d.port == p.Port() && ownHost(d.host) {
		return false, "that is mcptray's own proxy"
	}
	if p.opts.Hosts != nil && allows(p.opts.Hosts(s.server), d) {
		return true, ""
	}
	// A destination is asked about apart as local (a name that turned
	// out to point here), though it is written the same.
	key := d.key()
	if d.local {
		key = "local " + key
	}
	s.mu.Lock()
	v, ok := s.verdicts[key]
	if chain != "" && (!ok || v.allowed) {
		// An app's session that read private data and untrusted
		// content may be sending it: a refusal stands, but a yes given
		// without the chain does not, and the answer given with it
		// holds for that chain alone.
		key = "flow " + key + "\x00" + chain
		v, ok = s.verdicts[key]
	}
	if ok {
		s.mu.Unlock()
		return v.allowed, v.reason
	}
	q := s.asking[key]
	if q == nil && len(s.asking) >= maxOpenQuestions {
		s.mu.Unlock()
		return false, fmt.Sprintf("mcptray is already asking you about %d other hosts for it", len(s.asking))
	}
	if q == nil {
		q = &question{done: make(chan struct{})}
		s.asking[key] = q
		go p.ask(s, d, key, chain, q)
	}
	s.mu.Unlock()
	select {
	case <-q.done:
		return q.allowed, q.reason
	case <-ctx.Done():
		return false, "the connection closed while mcptray asked"
	}
}

// ask asks the person about d for a session, keeps the answer for the
// session, and lets every connection waiting on q go.
func (p *Proxy) ask(s *session, d dest, key, chain string, q *question) {
	qq := Question{Server: s.server, Host: d.host, Port: d.port, Dest: d.key(), Local: d.local, Chain: chain}
	actx, cancel := context.WithTimeout(p.ctx, p.askTimeout)
	defer cancel()
	reply, err := Reply{Answer: Deny}, ErrNoWindow
	if p.opts.Ask != nil {
		reply, err = p.opts.Ask(actx, qq)
	}
	a := reply.Answer
	keep := true
	switch {
	case p.ctx.Err() != nil:
		q.reason, keep = "mcptray is stopping", false
	case errors.Is(err, ErrNoWindow):
		q.reason = "there is no mcptray window to ask you in"
	case errors.Is(err, ErrNotAsked), errors.Is(err, ErrGuardBlocks):
		q.reason = err.Error()
	case err != nil && actx.Err() != nil:
		q.reason = "nobody answered mcptray's question within " + spell(p.askTimeout)
	case err != nil:
		// Perhaps a passing trouble: the next connection asks again.
		q.reason, keep = "mcptray could not ask you: "+err.Error(), false
		p.log.Warn("asking about a server's connection", "server", sanitize.Line(s.server), "host", qq.Dest, "err", err)
	case a == Deny:
		q.reason = "you denied it"
	case a == AllowAlways:
		q.allowed = true
		if p.opts.Remember != nil {
			if err := p.opts.Remember(s.server, qq.Dest, reply.By); err != nil {
				p.log.Warn("keeping a server's allowed host", "server", sanitize.Line(s.server), "host", qq.Dest, "err", err)
			} else {
				// Its list holds it now, and decides: taken back from
				// there, it is refused at the next connection.
				keep = false
			}
		}
	default:
		q.allowed = true
	}
	s.mu.Lock()
	if keep {
		s.verdicts[key] = verdict{allowed: q.allowed, reason: q.reason}
	}
	delete(s.asking, key)
	s.mu.Unlock()
	close(q.done)
}

// flow is Options.Flow's words for a server's connection to d, or "".
func (p *Proxy) flow(server string, d dest) string {
	if p.opts.Flow == nil {
		return ""
	}
	return p.opts.Flow(server, d.key())
}

// spell is a duration in words: "a minute", "90 seconds".
func spell(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "a minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%d seconds", d/time.Second)
	}
	return d.String()
}
