package config

import "reflect"

// Changes is what a reload changed, by server name, so that the connection
// manager touches only those servers.
type Changes struct {
	Added   []Entry
	Removed []Entry // as they were before the reload
	Changed []Entry // as they are now
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool {
	return len(c.Added) == 0 && len(c.Removed) == 0 && len(c.Changed) == 0
}

// Diff compares two Sets' running servers by name. An entry whose file
// position moved but whose content did not is unchanged; a change in
// approval counts, since it decides whether the server runs.
func Diff(old, new *Set) Changes {
	var c Changes
	before := map[string]*Entry{}
	if old != nil {
		for i := range old.Servers {
			before[old.Servers[i].Name] = &old.Servers[i]
		}
	}
	seen := map[string]bool{}
	if new != nil {
		for _, e := range new.Servers {
			seen[e.Name] = true
			switch o, ok := before[e.Name]; {
			case !ok:
				c.Added = append(c.Added, e)
			case !sameEntry(o, &e):
				c.Changed = append(c.Changed, e)
			}
		}
	}
	if old != nil {
		for _, e := range old.Servers {
			if !seen[e.Name] {
				c.Removed = append(c.Removed, e)
			}
		}
	}
	return c
}

// sameEntry reports whether a and b run the same server the same way. The
// hosts the person allowed it are left out: the egress proxy reads them at
// each new connection, and allowing a host must not restart the server
// (what its own entry asks for is part of its approval, and is compared).
func sameEntry(a, b *Entry) bool {
	x, y := *a, *b
	x.Origin.Line, x.Origin.Column = 0, 0
	y.Origin.Line, y.Origin.Column = 0, 0
	x.Sandbox.Hosts, y.Sandbox.Hosts = nil, nil
	return reflect.DeepEqual(x, y)
}
