package pins

import (
	"errors"
	"slices"
	"strings"
)

// The person's decisions on what the Policy holds. Each changes the pins
// at once, in the file, and the server's lists are checked again against
// them, so that every read says what was decided.

// ErrNotRunning says a server's held tools cannot be accepted: it does not
// run, and what it lists now is not known.
var ErrNotRunning = errors.New("the server is not running")

// NotHeldError names what the person asked to decide on that the server
// does not hold; with no names, it holds nothing at all.
type NotHeldError struct{ Names []string }

func (e *NotHeldError) Error() string {
	if len(e.Names) == 0 {
		return "no changed tool is held"
	}
	return "no changed tool called " + strings.Join(e.Names, ", ") + " is held"
}

// Decided is one held change the person decided on.
type Decided struct {
	List   List
	Change Change
}

// Accept pins what a running server's held tools and prompts say as it
// last listed them, so that apps are offered them: those named (by their
// names now, or a renamed one's old name), or every held one when names is
// empty; the pins of its removed tools go too. It undoes keeping them
// held. It returns what it accepted; ErrNotRunning, a *NotHeldError when a
// name is not held, or an *UnreadableError.
func (p *Policy) Accept(server string, names []string) ([]Decided, error) {
	p.mu.Lock()
	st := p.servers[server]
	if st == nil || !st.running || len(st.tools) == 0 {
		p.mu.Unlock()
		return nil, ErrNotRunning
	}
	p.mu.Unlock()
	store, err := p.open()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	lists := map[List][]Def{Tools: make([]Def, len(st.tools))}
	for i, t := range st.tools {
		lists[Tools][i] = FromTool(t)
	}
	if st.listed {
		// Prompts never listed are not known: their pins stay as they are.
		lists[Prompts] = st.prompts
	}
	var accepted []Decided
	var missing []string
	now := p.now()
	err = p.update(store, server, func(sv *Server) bool {
		accepted, missing = accepted[:0], missing[:0]
		next := map[List][]Def{}
		var notFound map[string]int
		changed := false
		for _, l := range []List{Tools, Prompts} {
			defs, ok := lists[l]
			if !ok || !l.pinned(sv) && l == Prompts {
				continue
			}
			changes := Compare(l.defs(sv), defs)
			changed = changed || len(changes) > 0
			var absent []string
			next[l], absent = Accept(l.defs(sv), changes, names)
			for _, ch := range changes {
				if ch.Held() && (len(names) == 0 || slices.Contains(names, ch.Name) || ch.Was != "" && slices.Contains(names, ch.Was)) {
					accepted = append(accepted, Decided{l, ch})
				}
			}
			if notFound == nil {
				notFound = map[string]int{}
			}
			for _, n := range absent {
				notFound[n]++
			}
		}
		for _, n := range names {
			if notFound[n] == len(next) {
				missing = append(missing, n) // in no list
			}
		}
		if len(missing) > 0 || !changed {
			return false
		}
		for l, defs := range next {
			l.setDefs(sv, defs)
			left := Compare(defs, lists[l])
			// Accepting undoes keeping it held; what is left is the
			// change counted, not one of its own.
			sv.PruneKept(l == Prompts, left)
			if l == Tools && len(left) > 0 {
				sv.Seen = ChangesFingerprint(left)
			}
		}
		if sv.Pinned.IsZero() {
			sv.Pinned = now
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, &NotHeldError{missing}
	}
	p.recheck(store, server)
	return accepted, nil
}

// Keep records the person's "Keep it held" for a server's held tools and
// prompts: those named (by their names now, or a renamed one's old name),
// or every held one when names is empty. They stay held from apps, are no
// longer counted as waiting to be looked at, and their review says since
// when they are kept; accepting them undoes it, and the server's next
// change of one is a new change to review. A server that does not run
// now keeps what it held when it last ran. It returns what it kept; a
// *NotHeldError, or an *UnreadableError.
func (p *Policy) Keep(server string, names []string) ([]Decided, error) {
	store, err := p.open()
	if err != nil {
		return nil, err
	}
	r := p.review(server)
	p.mu.Lock()
	defer p.mu.Unlock()
	var keeps []Decided
	found := map[string]bool{}
	if r != nil {
		for _, group := range []struct {
			l    List
			held []ToolChange
		}{{Tools, r.Held}, {Prompts, r.HeldPrompts}} {
			for _, h := range group.held {
				if len(names) == 0 || slices.Contains(names, h.Name) || h.Was != "" && slices.Contains(names, h.Was) {
					keeps = append(keeps, Decided{group.l, h.Change})
					found[h.Name], found[h.Was] = true, true
				}
			}
		}
	}
	var missing []string
	for _, n := range names {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 || len(keeps) == 0 {
		return nil, &NotHeldError{missing}
	}
	now := p.now()
	if err := p.update(store, server, func(sv *Server) bool {
		for _, k := range keeps {
			sv.Keep(k.List == Prompts, k.Change, now)
		}
		return true
	}); err != nil {
		return nil, err
	}
	p.recheck(store, server)
	return keeps, nil
}

// review is what the policy says of a server's held changes now: as it
// runs, or as it ran last.
func (p *Policy) review(server string) *Review {
	p.mu.Lock()
	st := p.servers[server]
	var r *Review
	running := st != nil && st.running && st.checked
	if running {
		r = st.review
	}
	p.mu.Unlock()
	if !running {
		r = p.Remembered(server, false)
	}
	return p.HeldPrompts(server, r)
}

// SetAcceptChanges turns a server's "Accept changes from this server" on
// or off; a server not seen yet has it from its first sight.
func (p *Policy) SetAcceptChanges(server string, on bool) error {
	store, err := p.open()
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.update(store, server, func(sv *Server) bool {
		if sv.AcceptChanges == on {
			return false
		}
		sv.AcceptChanges = on
		return true
	}); err != nil {
		return err
	}
	p.recheck(store, server)
	return nil
}

// PinLooked pins what the person saw of a server's tools, and of its
// prompts when they were listed, in a look before approving it — unless it
// has pins already (approved again: its changes are held against what it
// ran before). Its first real start is then checked against what they saw.
func (p *Policy) PinLooked(server string, tools, prompts []Def, promptsListed bool) error {
	store, err := p.open()
	if err != nil {
		return nil // every tool is held anyway, and the review says why
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if err := p.update(store, server, func(sv *Server) bool {
		if Tools.pinned(sv) {
			return false
		}
		Tools.pin(sv, slices.Clone(tools), now)
		if promptsListed {
			Prompts.pin(sv, slices.Clone(prompts), now)
		}
		return true
	}); err != nil {
		return err
	}
	p.recheck(store, server)
	return nil
}

// recheck checks a server's lists again after a decision changed its
// pins: its tools if it runs (else when it next runs), its prompts if they
// were listed. Called with p.mu held.
func (p *Policy) recheck(store *Store, server string) {
	st := p.servers[server]
	if st == nil {
		return
	}
	st.checked = false
	if st.running && len(st.tools) > 0 {
		p.checkTools(store, server, st.tools, p.others()(server))
	}
	if st.listed {
		p.checkPrompts(store, server, st)
	}
	p.flush(store)
}
