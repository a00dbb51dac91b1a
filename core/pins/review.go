package pins

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Review is what a person should look at in a server's tools and prompts:
// what changed since they were pinned and is held, what went, and what
// reads as orders to the AI. The Policy makes one for each server it has
// something to say of; a front end shows it (the service's Snapshot
// carries it as Server.Review).
type Review struct {
	// Held are the changed, new and renamed tools kept from apps until
	// the person accepts them, by name.
	Held []ToolChange `json:"held,omitempty"`
	// HeldPrompts are its changed, new and renamed prompts, held in the
	// same way.
	HeldPrompts []ToolChange `json:"heldPrompts,omitempty"`
	// Removed are the pinned tools the server no longer lists.
	Removed []string `json:"removed,omitempty"`
	// Flags are the tools (offered or held) whose definitions read as
	// instructions to the AI, by the tool's name.
	Flags map[string][]Flag `json:"flags,omitempty"`
	// PromptFlags are the prompts whose definitions read so, by name,
	// read at first sight as much as after a change.
	PromptFlags map[string][]Flag `json:"promptFlags,omitempty"`
	// Changes counts how often the server's tools changed since they were
	// first pinned; LastChange is when they last did.
	Changes    int       `json:"changes,omitempty"`
	LastChange time.Time `json:"lastChange,omitzero"`
	// AcceptChanges is the person's "Accept changes from this server":
	// its changes are pinned as they come, but for flagged ones and
	// those whose annotations claim less than before.
	AcceptChanges bool `json:"acceptChanges,omitempty"`
	// Problem says why the pins cannot be read, with what to do; every
	// tool of every server is held until they can.
	Problem string `json:"problem,omitempty"`
}

// ToolChange is one held tool (or prompt): what changed, in words.
type ToolChange struct {
	Change
	Words Words  `json:"words"`
	Flags []Flag `json:"flags,omitempty"`
	// KeptSince is when the person chose to keep it held (Keep it held,
	// Policy.Keep); zero while it waits to be looked at.
	KeptSince time.Time `json:"keptSince,omitzero"`
}

// Kept reports whether the person chose to keep the change held.
func (c ToolChange) Kept() bool { return !c.KeptSince.IsZero() }

// Summary is the review in a few words for lists and the tray: "1 tool
// changed, held", "1 tool kept held", both, or "".
func (r *Review) Summary() string {
	if r == nil {
		return ""
	}
	if r.Problem != "" {
		return "tools held: " + r.Problem
	}
	count := func(kept bool) string {
		var parts []string
		for _, c := range []struct {
			list []ToolChange
			word string
		}{{r.Held, "tool"}, {r.HeldPrompts, "prompt"}} {
			n := 0
			for _, h := range c.list {
				if h.Kept() == kept {
					n++
				}
			}
			switch {
			case n == 1:
				parts = append(parts, "1 "+c.word)
			case n > 1:
				parts = append(parts, fmt.Sprintf("%d %ss", n, c.word))
			}
		}
		return strings.Join(parts, " and ")
	}
	var out []string
	if s := count(false); s != "" {
		out = append(out, s+" changed, held")
	}
	if s := count(true); s != "" {
		out = append(out, s+" kept held")
	}
	return strings.Join(out, "; ")
}

// Pending counts the held tools and prompts the person has yet to look
// at: those not kept held.
func (r *Review) Pending() int {
	if r == nil {
		return 0
	}
	n := 0
	for _, h := range slices.Concat(r.Held, r.HeldPrompts) {
		if !h.Kept() {
			n++
		}
	}
	return n
}

// FlaggedWords counts the tools and prompts whose definitions read as
// instructions to the AI, in words for lists and the tray: "1 tool gives
// the AI instructions", "2 tools and 1 prompt give the AI instructions",
// or "".
func (r *Review) FlaggedWords() string {
	if r == nil {
		return ""
	}
	tools, prompts := len(r.Flags), len(r.PromptFlags)
	var parts []string
	for _, c := range []struct {
		n    int
		word string
	}{{tools, "tool"}, {prompts, "prompt"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.word)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", c.n, c.word))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	verb := "give"
	if tools+prompts == 1 {
		verb = "gives"
	}
	return strings.Join(parts, " and ") + " " + verb + " the AI instructions"
}

// Flagged reports whether the tool called name reads as instructions to
// the AI.
func (r *Review) Flagged(name string) bool {
	return r != nil && len(r.Flags[name]) > 0
}

// reviewOf is what a person should look at in a server's tools, from its
// pins, its tools' changes and their flags; nil when nothing.
func reviewOf(pinned Server, changes []Change, flags map[string][]Flag) *Review {
	r := &Review{Changes: pinned.Changes, LastChange: pinned.LastChange, AcceptChanges: pinned.AcceptChanges}
	if len(flags) > 0 {
		r.Flags = flags
	}
	for _, ch := range changes {
		switch {
		case ch.Kind == Removed:
			r.Removed = append(r.Removed, ch.Name)
		case ch.Held():
			r.Held = append(r.Held, heldChange(pinned, Tools, ch, flags[ch.Name]))
		}
	}
	if r.Held == nil && r.Removed == nil && r.Flags == nil && r.Changes == 0 && !r.AcceptChanges {
		return nil
	}
	return r
}

// heldChange is the held change ch of one of a server's lists in words,
// with its flags and whether the person kept it held.
func heldChange(pinned Server, l List, ch Change, flags []Flag) ToolChange {
	h := ToolChange{Change: ch, Words: Describe(ch), Flags: flags}
	h.KeptSince, _ = pinned.KeptSince(l == Prompts, ch)
	return h
}

// heldPrompts are the held ones of a server's prompt changes, in words,
// each read for orders on its own.
func heldPrompts(pinned Server, changes []Change) []ToolChange {
	var out []ToolChange
	for _, ch := range changes {
		if ch.Held() {
			out = append(out, heldChange(pinned, Prompts, ch, Scan(*ch.New, nil)))
		}
	}
	return out
}

// withPrompts is r with the held prompts and the prompts' flags added: a
// copy, for r may be shared by every snapshot.
func withPrompts(r *Review, held []ToolChange, flags map[string][]Flag) *Review {
	if len(held) == 0 && len(flags) == 0 {
		return r
	}
	var c Review
	if r != nil {
		c = *r
	}
	c.HeldPrompts = held
	c.PromptFlags = flags
	return &c
}
