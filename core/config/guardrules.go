package config

import "fmt"

// GuardMode is how strict the gateway's flow guard is.
type GuardMode string

// The guard's modes. The zero value means GuardAsk.
const (
	// GuardOff lets every call through; the guard still follows sessions,
	// so that turning it on again holds what it should.
	GuardOff GuardMode = "off"
	// GuardAsk asks the person before a session that took in private data
	// and untrusted content sends data out; with no window, it refuses.
	GuardAsk GuardMode = "ask"
	// GuardBlock refuses such a call without asking.
	GuardBlock GuardMode = "block"
)

// Valid reports whether m is one of the modes ("" is too: it means ask).
func (m GuardMode) Valid() bool { return m == "" || m == GuardOff || m == GuardAsk || m == GuardBlock }

// Or is m, or GuardAsk when m is "".
func (m GuardMode) Or() GuardMode {
	if m == "" {
		return GuardAsk
	}
	return m
}

// LabelChange is the person's correction of one tool's labels: each that
// is set says the tool has the label (true) or has not (false), whatever
// mcptray derived; nil leaves it as derived.
type LabelChange struct {
	Private   *bool `json:"private,omitempty"`
	Untrusted *bool `json:"untrusted,omitempty"`
	Egress    *bool `json:"egress,omitempty"`
}

// Empty reports whether c changes nothing.
func (c LabelChange) Empty() bool { return c.Private == nil && c.Untrusted == nil && c.Egress == nil }

// Merge is c with o's settings over it.
func (c LabelChange) Merge(o LabelChange) LabelChange {
	if o.Private != nil {
		c.Private = o.Private
	}
	if o.Untrusted != nil {
		c.Untrusted = o.Untrusted
	}
	if o.Egress != nil {
		c.Egress = o.Egress
	}
	return c
}

// GuardRules are the person's settings of the gateway's flow guard, kept
// in mcptray's config file under "gateway": {"guard": {"mode": "ask",
// "labels": {"mcp__slack__post": {"egress": true}}}}.
type GuardRules struct {
	Mode GuardMode `json:"mode,omitempty"`
	// Labels are the person's corrections by qualified tool name.
	Labels map[string]LabelChange `json:"labels,omitempty"`
}

// IsZero reports whether r holds no setting, for omitzero.
func (r GuardRules) IsZero() bool { return r.Mode == "" && len(r.Labels) == 0 }

// SetLabels merges c into tool's correction; a correction left empty
// goes, and with reset the tool's correction goes whole.
func (r *GuardRules) SetLabels(tool string, c LabelChange, reset bool) {
	cur := r.Labels[tool]
	if reset {
		cur = LabelChange{}
	}
	cur = cur.Merge(c)
	if cur.Empty() {
		delete(r.Labels, tool)
		return
	}
	if r.Labels == nil {
		r.Labels = map[string]LabelChange{}
	}
	r.Labels[tool] = cur
}

// check says in plain words what is wrong with r.
func (r GuardRules) check() error {
	if !r.Mode.Valid() {
		return fmt.Errorf("the guard's mode must be off, ask or block, not %q", r.Mode)
	}
	return nil
}
