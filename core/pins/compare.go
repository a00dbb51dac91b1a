package pins

import (
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/tools"
)

// Kind is how one tool stands against its pin.
type Kind string

// The kinds of Change.
const (
	Unchanged Kind = "unchanged"
	Changed   Kind = "changed"
	New       Kind = "new"
	Removed   Kind = "removed"
	// Renamed is a definition that is the same but for its name: shown as
	// a rename rather than as a removal and a new tool.
	Renamed Kind = "renamed"
)

// Change is one tool (or prompt) that differs from its pin.
type Change struct {
	Kind Kind `json:"kind"`
	// Name is its name now; for a removed one, its pinned name.
	Name string `json:"name"`
	// Was is a renamed one's pinned name.
	Was string `json:"was,omitempty"`
	// Old is the pinned definition (nil for a new one), New the current
	// one (nil for a removed one).
	Old *Def `json:"old,omitempty"`
	New *Def `json:"new,omitempty"`
	// Weakened says its annotations claim less than before: it said it
	// may delete, now it says it only reads.
	Weakened bool `json:"weakened,omitempty"`
}

// Held reports whether the change keeps the tool from apps until the
// person accepts it: a changed, new or renamed tool. A removed one simply
// goes.
func (c Change) Held() bool { return c.Kind == Changed || c.Kind == New || c.Kind == Renamed }

// Compare tells current apart from pinned, both lists of definitions by
// name, and returns every difference, sorted by name; unchanged ones are
// left out. A definition that is new by its name but the same as a pinned
// one that is gone is a rename.
func Compare(pinned, current []Def) []Change {
	old := make(map[string]*Def, len(pinned))
	for i := range pinned {
		old[pinned[i].Name] = &pinned[i]
	}
	now := make(map[string]bool, len(current))
	var out []Change
	var fresh []*Def
	for i := range current {
		c := &current[i]
		now[c.Name] = true
		p, ok := old[c.Name]
		switch {
		case !ok:
			fresh = append(fresh, c)
		case !p.Same(*c):
			out = append(out, Change{Kind: Changed, Name: c.Name, Old: p, New: c, Weakened: Weakened(p.Annotations, c.Annotations)})
		}
	}
	var gone []*Def
	for i := range pinned {
		if !now[pinned[i].Name] {
			gone = append(gone, &pinned[i])
		}
	}
	for _, c := range fresh {
		i := slices.IndexFunc(gone, func(p *Def) bool { return p != nil && p.Same(*c) })
		if i < 0 {
			out = append(out, Change{Kind: New, Name: c.Name, New: c})
			continue
		}
		out = append(out, Change{Kind: Renamed, Name: c.Name, Was: gone[i].Name, Old: gone[i], New: c})
		gone[i] = nil
	}
	for _, p := range gone {
		if p != nil {
			out = append(out, Change{Kind: Removed, Name: p.Name, Old: p})
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Weakened reports whether now claims less than was: it only reads where
// it did not, it is no longer destructive (as MCP reads the hints, absent
// ones at their cautious defaults), it no longer reaches outside, or it
// became idempotent.
func Weakened(was, now tools.Hints) bool {
	return was.ReadOnly != tools.HintTrue && now.ReadOnly == tools.HintTrue ||
		was.NeedsReview() && !now.NeedsReview() ||
		was.OpenWorld != tools.HintFalse && now.OpenWorld == tools.HintFalse ||
		was.Idempotent != tools.HintTrue && now.Idempotent == tools.HintTrue
}
