package pins

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
