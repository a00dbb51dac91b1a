package pins

import "slices"

// Pinned returns a copy of the server's pinned definitions of list l, as
// the person last saw or accepted them, and whether l was ever pinned. It
// only reads: a trial of an update compares what the update lists with
// them, and nothing it lists is told to the policy (it is no list a
// running server gave, and accepts nothing).
func (p *Policy) Pinned(server string, l List) ([]Def, bool, error) {
	store, err := p.open()
	if err != nil {
		return nil, false, err
	}
	defs, ok := store.Defs(server, l)
	return defs, ok, nil
}

// PinRead pins the definitions the person read of a server's tools (and
// of its prompts, when they were listed): those an update showed in its
// trial, when the person accepted the update, or those pinned before it,
// when they go back. It pins what they read, not what the server lists
// now: a list that differs from it is held as a change, as any is.
func (p *Policy) PinRead(server string, tools, prompts []Def, promptsListed bool) error {
	store, err := p.open()
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	tools, prompts = slices.Clone(tools), slices.Clone(prompts)
	sortDefs(tools)
	sortDefs(prompts)
	if err := p.update(store, server, func(sv *Server) bool {
		Tools.setDefs(sv, tools)
		if sv.Pinned.IsZero() {
			sv.Pinned = now
		}
		if promptsListed {
			Prompts.pin(sv, prompts, now)
		}
		return true
	}); err != nil {
		return err
	}
	p.recheck(store, server)
	return nil
}
