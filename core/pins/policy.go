package pins

import (
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/tools"
)

// Policy is the holding policy, the one place that decides what a person's
// apps are offered of a server's tools and prompts: a tool or prompt whose
// words changed since the person last saw them is held — withheld from
// every app — until the person has read the change and accepted it (or
// kept it held, and it stays so).
//
// Its one way in is what servers list. The service tells it, whenever they
// may have changed, the tools of every running server (SeeTools), and a
// server's prompts whenever they are listed (SeePrompts): both go through
// the same check (hold.go). A list's first sight is pinned; after it, a
// changed, new or renamed definition is held, what went simply goes, and
// what is held is kept with the pins in the same file, so that a server
// that does not run now still has the Review of when it last ran. Every
// tool is read for hidden instructions when first seen and on every change
// (and again for shadowing when another server's tool names come or go,
// shadow.go). The person's decisions (decide.go) change the pins and are at
// once what every read says.
//
// Its reads (Tools, Remembered, HeldPrompts, OfferablePrompts) only say
// what it made of what it was told: they never write the file, and what
// they were not told of, or cannot tell, they withhold. It is safe for
// concurrent use.
type Policy struct {
	path string
	now  func() time.Time
	log  *slog.Logger

	once  sync.Once
	store *Store
	err   *UnreadableError

	mu      sync.Mutex
	servers map[string]*seen // by server name
	// names are each running server's tool names as last seen (mcptray's
	// own server's too), by server: when one comes or goes, the tools of
	// other servers that mention it are read again for shadowing.
	names map[string][]string
}

// seen is what the policy was told of one server and made of it.
type seen struct {
	// running says it was among the running servers SeeTools was last
	// told of.
	running bool
	// tools are its tools as it last listed them, and checked says that
	// offered and review are what the pins make of them now (a decision
	// or a reading for shadowing undoes it until they are checked again).
	tools   []tools.Tool
	checked bool
	offered []tools.Tool
	review  *Review
	// read are its tools as Scan last read them, by name: a change reads
	// only what changed.
	read map[string]scanned
	// prompts are its prompts as last listed (listed says they were), and
	// heldPrompts those held of them.
	prompts     []Def
	listed      bool
	heldPrompts []ToolChange
	// promptFlags are its prompts' flags, as listed, by name.
	promptFlags map[string][]Flag
	// remembered is Remembered's answer while the pins of the server do
	// not change, by whether it waits for approval.
	remembered map[bool]*Review
}

// scanned is one definition as Scan read it, and what it found.
type scanned struct {
	def   Def
	flags []Flag
	// shadowing says it was read for other servers' tool names, and
	// mentions are the words in it that could be one (Read).
	shadowing bool
	mentions  []string
}

// UnreadableError says the pins cannot be read, and why: every tool of
// every server is held, and no decision can be kept, until they can.
type UnreadableError struct{ Err error }

func (e *UnreadableError) Error() string { return "the pinned tools cannot be read: " + e.Err.Error() }
func (e *UnreadableError) Unwrap() error { return e.Err }

// NewPolicy returns the policy for the pins kept at path (FileName in
// mcptray's folder), read when first needed; now is the clock.
func NewPolicy(path string, now func() time.Time, log *slog.Logger) *Policy {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Policy{path: path, now: now, log: log, servers: map[string]*seen{}, names: map[string][]string{}}
}

// open reads the pins once. A file that cannot be read is never taken for
// no pins (that would accept every change unseen): it is an error, every
// time.
func (p *Policy) open() (*Store, error) {
	p.once.Do(func() {
		var err error
		if p.store, err = Open(p.path); err != nil {
			p.log.Error("the pinned tools cannot be read: every server's tools are held", "err", err)
			p.err = &UnreadableError{err}
		}
	})
	if p.err != nil {
		return nil, p.err
	}
	return p.store, nil
}

// Err says why the pins cannot be read (an *UnreadableError), or nil.
func (p *Policy) Err() error {
	_, err := p.open()
	return err
}

// server is what the policy keeps of the server called name, made when
// first needed. Called with p.mu held.
func (p *Policy) server(name string) *seen {
	st := p.servers[name]
	if st == nil {
		st = &seen{}
		p.servers[name] = st
	}
	return st
}

// Tools are the tools of a server's list that apps may be offered, and
// the server's Review, as the policy made them of that very list when
// SeeTools was told of it; ok is false when it was not (a list is never
// checked by a read: the caller shows the server as it was when the policy
// last was told of it). When the pins cannot be read every tool is held,
// and the Review says why.
func (p *Policy) Tools(server string, list []tools.Tool) (offered []tools.Tool, r *Review, ok bool) {
	if _, err := p.open(); err != nil {
		return nil, unreadable(err, list), true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.servers[server]
	if st == nil || !st.checked || !sameTools(st.tools, list) {
		return nil, nil, false
	}
	return st.offered, st.review, true
}

// unreadable is the Review of a server's tools while the pins cannot be
// read: every one is held.
func unreadable(err error, list []tools.Tool) *Review {
	cause := err
	if u, ok := err.(*UnreadableError); ok {
		cause = u.Err
	}
	r := &Review{Problem: "the pinned tools cannot be read (" + sanitize.Line(cause.Error()) + "); move the file aside to pin them anew"}
	for _, t := range list {
		r.Held = append(r.Held, ToolChange{Change: Change{Kind: New, Name: t.Name},
			Words: Words{Summary: "is held until the pinned tools can be read"}})
	}
	return r
}

// Remembered is the Review of a server that does not run now, from its
// pins: what it held when it last ran, so that a command that starts no
// server (mcptray list) says what is held as one that does; or, when it
// waits for approval again (what it runs changed), its pinned tools that
// read as orders to the AI, for the approval dialog. Nil when there is
// nothing to say, or the pins cannot be read.
func (p *Policy) Remembered(server string, approval bool) *Review {
	store, err := p.open()
	if err != nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.server(server)
	if r, ok := st.remembered[approval]; ok {
		return r
	}
	pinned, found := store.Server(server)
	var r *Review
	switch {
	case !found:
	case approval && len(pinned.Tools) > 0:
		flags := map[string][]Flag{}
		for _, d := range pinned.Tools {
			f := st.read[d.Name].flags
			if prev, ok := st.read[d.Name]; !ok || !prev.def.Equal(d) {
				f = Scan(d, nil)
			}
			if len(f) > 0 {
				flags[d.Name] = f
			}
		}
		r = reviewOf(pinned, nil, flags)
	case !approval && len(pinned.Held)+len(pinned.HeldPrompts) > 0:
		r = &Review{Changes: pinned.Changes, LastChange: pinned.LastChange, AcceptChanges: pinned.AcceptChanges}
		for _, ch := range pinned.Held {
			if ch.New != nil {
				r.Held = append(r.Held, heldChange(pinned, Tools, ch, Scan(*ch.New, nil)))
			}
		}
		r.HeldPrompts = heldPrompts(pinned, pinned.HeldPrompts)
	}
	if st.remembered == nil {
		st.remembered = map[bool]*Review{}
	}
	st.remembered[approval] = r
	return r
}

// HeldPrompts is r with the server's held prompts, as the policy last
// made them of its prompts, and the flags of its prompts added (r itself is left as it is).
func (p *Policy) HeldPrompts(server string, r *Review) *Review {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st := p.servers[server]; st != nil {
		return withPrompts(r, st.heldPrompts, st.promptFlags)
	}
	return r
}

// OfferablePrompts are the prompts of list, a server's as listed, that
// apps may be offered: those whose definitions are the ones pinned, as the
// person saw or accepted them. Every other one is withheld: changed, new,
// renamed, kept held, or of a server whose prompts were never seen. An
// error says the pins cannot be read, and then none may be offered.
func (p *Policy) OfferablePrompts(server string, list []mcp.Prompt) ([]mcp.Prompt, error) {
	store, err := p.open()
	if err != nil {
		return nil, err
	}
	pinned, ok := store.Defs(server, Prompts)
	if !ok {
		return nil, nil
	}
	byName := make(map[string]*Def, len(pinned))
	for i := range pinned {
		byName[pinned[i].Name] = &pinned[i]
	}
	out := make([]mcp.Prompt, 0, len(list))
	for _, pr := range list {
		if d := byName[pr.Name]; d != nil && d.Equal(FromPrompt(pr)) {
			out = append(out, pr)
		}
	}
	return out, nil
}
