package pins

import "slices"

// A server installed from an MCP Bundle is pinned before it first runs,
// as its manifest declares its tools and prompts: each a name and a
// description, which the person saw when installing it. At its first
// start each offered tool whose name and description are the declared
// ones is pinned as the server offers it (its schemas and annotations,
// which no manifest declares, with it), unless it reads as orders to the
// AI; any other is a change held for review like every change: a tool
// the bundle did not declare, one whose description is not the one
// declared, one flagged. Declared tools the server does not offer go, as
// removed ones do.

// PinDeclared pins a bundle's declared tools and prompts for the server
// called server, unless it has pins already (a bundle installed anew over
// itself: its changes are held against what it ran before).
func (p *Policy) PinDeclared(server string, tools, prompts []Def) error {
	store, err := p.open()
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if err := p.update(store, server, func(sv *Server) bool {
		if Tools.pinned(sv) {
			return false
		}
		t, pr := slices.Clone(tools), slices.Clone(prompts)
		sortDefs(t)
		sortDefs(pr)
		Tools.pin(sv, t, now)
		Prompts.pin(sv, pr, now)
		sv.DeclaredTools, sv.DeclaredPrompts = true, true
		return true
	}); err != nil {
		return err
	}
	p.recheck(store, server)
	return nil
}

// adoptDeclared pins, of what a server offers at its first start, what
// its bundle declared (changes, from its declared list to defs, whose
// description is the declared one and that acceptable takes), and
// returns its pins and the changes left. Called with p.mu held from hold.
func (p *Policy) adoptDeclared(store *Store, name string, l List, pinned Server, defs []Def, changes []Change, acceptable func(Change) bool) (Server, []Change) {
	var adopt []string
	for _, ch := range changes {
		if ch.Kind == Changed && ch.Old.Description == ch.New.Description &&
			(acceptable == nil || acceptable(Change{Kind: Changed, Name: ch.Name, Old: ch.Old, New: ch.New})) {
			adopt = append(adopt, ch.Name)
		}
	}
	next := l.defs(&pinned)
	if len(adopt) > 0 { // Accept takes every change when given no names
		next, _ = Accept(next, changes, adopt)
	}
	p.stage(store, name, func(sv *Server) bool {
		l.setDefs(sv, next)
		l.setDeclared(sv, false)
		return true
	})
	l.setDefs(&pinned, next)
	l.setDeclared(&pinned, false)
	return pinned, Compare(next, defs)
}
