package pins

import "time"

// List is one of a server's two lists whose changes the Policy holds: its
// tools or its prompts. Both are held, accepted and kept the same way; what
// the pins' file keeps of each is in its own fields, which List's methods
// name.
type List int

// The lists.
const (
	Tools List = iota
	Prompts
)

func (l List) String() string {
	if l == Prompts {
		return "prompts"
	}
	return "tools"
}

// pinned reports whether sv's list was seen once (a server may have no
// prompts, and its empty list is pinned all the same).
func (l List) pinned(sv *Server) bool {
	if l == Prompts {
		return sv.PromptsPinned
	}
	return !sv.Pinned.IsZero()
}

// pin keeps defs as sv's list, first seen now.
func (l List) pin(sv *Server, defs []Def, now time.Time) {
	if l == Prompts {
		sv.Prompts, sv.PromptsPinned = defs, true
		return
	}
	sv.Tools, sv.Pinned = defs, now
}

// defs are sv's pinned definitions of the list.
func (l List) defs(sv *Server) []Def {
	if l == Prompts {
		return sv.Prompts
	}
	return sv.Tools
}

// setDefs pins defs as sv's list.
func (l List) setDefs(sv *Server, defs []Def) {
	if l == Prompts {
		sv.Prompts = defs
	} else {
		sv.Tools = defs
	}
}

// held are the list's changes held when the server last ran, as the file
// keeps them.
func (l List) held(sv *Server) []Change {
	if l == Prompts {
		return sv.HeldPrompts
	}
	return sv.Held
}

func (l List) setHeld(sv *Server, held []Change) {
	if l == Prompts {
		sv.HeldPrompts = held
	} else {
		sv.Held = held
	}
}

// declared reports whether sv's list is pinned as its bundle declared it,
// not yet as the server offered it.
func (l List) declared(sv *Server) bool {
	if l == Prompts {
		return sv.DeclaredPrompts
	}
	return sv.DeclaredTools
}

func (l List) setDeclared(sv *Server, on bool) {
	if l == Prompts {
		sv.DeclaredPrompts = on
	} else {
		sv.DeclaredTools = on
	}
}
