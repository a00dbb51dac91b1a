package pins

import (
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/tools"
)

// Listed is one running server's tools as the service has them.
type Listed struct {
	Server string
	Tools  []tools.Tool
	// Own says they are mcptray's own (its built-in server's): they are
	// names other servers' tools may mention, never held.
	Own bool
}

// SeeTools is told the tools of every running server, whenever they may
// have changed (a server that is not in running does not run): each list
// that is not the one last checked is checked against its pins (hold), and
// the tools of other servers that mention a tool name that came or went
// are read again. What changed in the pins is written to the file once.
func (p *Policy) SeeTools(running []Listed) {
	store, err := p.open()
	p.mu.Lock()
	for _, st := range p.servers {
		st.running = false
	}
	for _, l := range running {
		if !l.Own {
			st := p.server(l.Server)
			st.running = true
			if err != nil {
				st.tools, st.checked = l.Tools, false
			}
		}
	}
	if err != nil {
		p.mu.Unlock()
		return // Tools holds every one, and says why
	}
	same := p.shadowingAgain(running)
	others := p.others()
	for i, l := range running {
		if l.Own || len(l.Tools) == 0 || same[i] {
			continue
		}
		p.checkTools(store, l.Server, l.Tools, others(l.Server))
	}
	p.flush(store) // before a read can say what it holds
	p.mu.Unlock()
}

// SeePrompts is told a server's prompts as they were just listed (none
// when the server has none): they are checked against its pins the way
// its tools are (hold), and written to the file when anything changed. It
// reports whether what the policy says of the server changed: a prompt
// came to be held, or no longer is.
func (p *Policy) SeePrompts(server string, list []mcp.Prompt) bool {
	store, err := p.open()
	if err != nil {
		return false // OfferablePrompts offers none
	}
	defs := make([]Def, len(list))
	for i, pr := range list {
		defs[i] = FromPrompt(pr)
	}
	p.mu.Lock()
	st := p.server(server)
	st.prompts, st.listed = defs, true
	changed := p.checkPrompts(store, server, st)
	p.flush(store)
	p.mu.Unlock()
	return changed
}

// checkTools checks a server's tools against their pins, reading each
// for orders (only what changed since the last reading), and keeps what
// apps may be offered of them and the server's Review. Called with p.mu
// held.
func (p *Policy) checkTools(store *Store, name string, list []tools.Tool, others func(string) bool) {
	st := p.server(name)
	defs := make([]Def, len(list))
	for i, t := range list {
		defs[i] = FromTool(t)
	}
	flags := map[string][]Flag{}
	read := make(map[string]scanned, len(defs))
	for _, d := range defs {
		r, ok := st.read[d.Name]
		if !ok || !r.shadowing || !r.def.Equal(d) {
			r = scanned{def: d, shadowing: true}
			r.flags, r.mentions = Read(d, others)
		}
		read[d.Name] = r
		if len(r.flags) > 0 {
			flags[d.Name] = r.flags
		}
	}
	st.read = read
	// Those that read as orders or claim less than before are never
	// accepted as they come.
	pinned, changes, _ := p.hold(store, name, Tools, defs, func(ch Change) bool {
		return !ch.Weakened && len(flags[ch.Name]) == 0
	})
	held := map[string]bool{}
	for _, ch := range changes {
		if ch.Held() {
			held[ch.Name] = true
		}
	}
	offered := list
	if len(held) > 0 {
		offered = make([]tools.Tool, 0, len(list)-len(held))
		for _, t := range list {
			if !held[t.Name] {
				offered = append(offered, t)
			}
		}
	}
	st.tools, st.checked, st.offered = list, true, offered
	st.review = reviewOf(pinned, changes, flags)
}

// checkPrompts checks a server's prompts as last listed against their
// pins, and keeps those held; it reports whether the file or the held
// prompts changed. Called with p.mu held.
func (p *Policy) checkPrompts(store *Store, name string, st *seen) bool {
	pinned, changes, staged := p.hold(store, name, Prompts, st.prompts, nil)
	before := len(st.heldPrompts)
	st.heldPrompts = heldPrompts(pinned, changes)
	// Every prompt is read for orders, at first sight too.
	flagsBefore := len(st.promptFlags)
	st.promptFlags = nil
	for _, d := range st.prompts {
		if f := Scan(d, nil); len(f) > 0 {
			if st.promptFlags == nil {
				st.promptFlags = map[string][]Flag{}
			}
			st.promptFlags[d.Name] = f
		}
	}
	if flagsBefore != len(st.promptFlags) {
		staged = true
	}
	return staged || before != len(st.heldPrompts)
}

// hold is the one check of a server's list, its tools or its prompts,
// against its pins, and what it keeps with them:
//
//   - the list's first sight is pinned as it is, and nothing is held;
//   - after it, each difference is a change, and a changed, new or renamed
//     definition is held (Change.Held); a removed one simply goes;
//   - a change of its tools is counted once (Server.Changes), and with
//     "Accept changes from this server" on, the changes acceptable says
//     may be are pinned as they come (nil accepts none: the switch is the
//     tools');
//   - decisions to keep a change held that no change matches any longer
//     are forgotten (Server.PruneKept);
//   - the held changes are kept with the pins, for when it does not run.
//
// It returns the pins as they are now, the changes from them, and whether
// it changed the pins. Called with p.mu held; the caller flushes.
func (p *Policy) hold(store *Store, name string, l List, defs []Def, acceptable func(Change) bool) (Server, []Change, bool) {
	pinned, _ := store.Server(name)
	if !l.pinned(&pinned) {
		now := p.now()
		p.stage(store, name, func(sv *Server) bool {
			if l.pinned(sv) {
				return false
			}
			l.pin(sv, slices.Clone(defs), now)
			return true
		})
		l.pin(&pinned, defs, now)
		return pinned, nil, true
	}
	changes := Compare(l.defs(&pinned), defs)
	staged := false
	if l.declared(&pinned) {
		pinned, changes = p.adoptDeclared(store, name, l, pinned, defs, changes, acceptable)
		staged = true
	}
	if l == Tools && len(changes) > 0 {
		pinned, staged = p.countChange(store, name, pinned, changes)
	}
	if acceptable != nil && pinned.AcceptChanges && len(changes) > 0 {
		var accept []string
		for _, ch := range changes {
			if ch.Held() && acceptable(ch) {
				accept = append(accept, ch.Name)
			}
		}
		if len(accept) > 0 {
			next, _ := Accept(l.defs(&pinned), changes, accept)
			changes = Compare(next, defs)
			// What is left is the change counted, not one of its own.
			seen := ChangesFingerprint(changes)
			p.stage(store, name, func(sv *Server) bool {
				l.setDefs(sv, next)
				sv.Seen = seen
				return true
			})
			l.setDefs(&pinned, next)
			pinned.Seen, staged = seen, true
		}
	}
	// A decision to keep a change held holds for that change only.
	if pinned.PruneKept(l == Prompts, changes) {
		p.stage(store, name, func(sv *Server) bool { return sv.PruneKept(l == Prompts, changes) })
		staged = true
	}
	if held := HeldOf(changes); !sameChanges(held, l.held(&pinned)) {
		p.stage(store, name, func(sv *Server) bool { l.setHeld(sv, held); return true })
		l.setHeld(&pinned, held)
		staged = true
	}
	return pinned, changes, staged
}

// countChange counts a server's change of its tools once: a list that
// differs from the pins as one already counted does is the same change.
// Called with p.mu held.
func (p *Policy) countChange(store *Store, name string, pinned Server, changes []Change) (Server, bool) {
	fp := ChangesFingerprint(changes)
	if fp == pinned.Seen {
		return pinned, false
	}
	now := p.now()
	p.stage(store, name, func(sv *Server) bool {
		sv.Seen, sv.Changes, sv.LastChange = fp, sv.Changes+1, now
		return true
	})
	p.log.Info("a server's tools changed", "server", name, "held", len(HeldOf(changes)), "changes", len(changes))
	pinned.Seen, pinned.Changes, pinned.LastChange = fp, pinned.Changes+1, now
	return pinned, true
}

// sameChanges reports whether two lists of held changes say the same, by
// what they say (the file's are read back, not the same pointers).
func sameChanges(a, b []Change) bool {
	return slices.EqualFunc(a, b, func(x, y Change) bool {
		return x.Kind == y.Kind && x.Name == y.Name && x.Was == y.Was && x.Weakened == y.Weakened &&
			x.New != nil && y.New != nil && x.New.Equal(*y.New)
	})
}

// stage changes what the file keeps of a server, in memory until flush;
// what Remembered said of it no longer holds. Called with p.mu held.
func (p *Policy) stage(store *Store, name string, fn func(sv *Server) bool) {
	store.Stage(name, func(sv *Server, _ bool) bool { return fn(sv) })
	p.forgetRemembered(name)
}

// update changes what the file keeps of a server and writes it at once,
// for the person's decisions. Called with p.mu held.
func (p *Policy) update(store *Store, name string, fn func(sv *Server) bool) error {
	err := store.Update(name, func(sv *Server, _ bool) bool { return fn(sv) })
	p.forgetRemembered(name)
	return err
}

func (p *Policy) forgetRemembered(name string) {
	if st := p.servers[name]; st != nil {
		st.remembered = nil
	}
}

// flush writes what was staged; a write that fails stays staged for the
// next one (the pins in memory hold meanwhile). Called with p.mu held, so
// that what a read says is in the file already.
func (p *Policy) flush(store *Store) {
	if store == nil {
		return
	}
	if err := store.Flush(); err != nil {
		p.log.Warn("keeping the pinned tools", "err", err)
	}
}
