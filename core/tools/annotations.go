package tools

import (
	"encoding/json"
	"fmt"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Hint is one boolean annotation hint as a server sent it. In MCP an absent
// hint is not false: each has a default, and the defaults are the cautious
// ones, so the absence must survive parsing.
type Hint uint8

// The three states of a Hint. The zero value is HintAbsent.
const (
	HintAbsent Hint = iota // not sent, or sent as null
	HintFalse
	HintTrue
)

// String returns "absent", "false" or "true".
func (h Hint) String() string {
	switch h {
	case HintAbsent:
		return "absent"
	case HintFalse:
		return "false"
	case HintTrue:
		return "true"
	}
	return fmt.Sprintf("Hint(%d)", uint8(h))
}

// MarshalJSON writes true, false or null (absent).
func (h Hint) MarshalJSON() ([]byte, error) {
	switch h {
	case HintTrue:
		return []byte("true"), nil
	case HintFalse:
		return []byte("false"), nil
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads true, false or null (absent); anything else is an
// error.
func (h *Hint) UnmarshalJSON(data []byte) error {
	var b *bool
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	switch {
	case b == nil:
		*h = HintAbsent
	case *b:
		*h = HintTrue
	default:
		*h = HintFalse
	}
	return nil
}

// Hints are the annotations of an MCP tool.
//
// They come from the server and may lie: a tool that says it only reads may
// delete. Use them to show a person what the server claims and to add
// caution; never let them lower a protection the person set (an "always ask"
// stays "always ask" however harmless a tool says it is).
type Hints struct {
	// The JSON names are MCP's, so that hints read back as they were sent.
	ReadOnly    Hint   `json:"readOnlyHint,omitempty"`    // the tool does not modify its environment
	Destructive Hint   `json:"destructiveHint,omitempty"` // changes may be destructive (MCP default: true)
	Idempotent  Hint   `json:"idempotentHint,omitempty"`  // repeating a call has no further effect
	OpenWorld   Hint   `json:"openWorldHint,omitempty"`   // the tool reaches outside entities (MCP default: true)
	Title       string `json:"title,omitempty"`           // sanitised to one line
}

// ParseHints reads an MCP tool's "annotations" object. Empty input and null
// give zero Hints (every hint absent). Keys match exactly, as the
// specification spells them (encoding/json alone would also accept
// "READONLYHINT"); unknown keys are ignored.
//
// On error ParseHints returns zero Hints, the most cautious reading, with
// an error saying which key was wrong.
func ParseHints(raw json.RawMessage) (Hints, error) {
	var fields map[string]json.RawMessage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return Hints{}, fmt.Errorf("reading tool annotations: %w", err)
		}
	}
	var h Hints
	for _, f := range []struct {
		key string
		dst *Hint
	}{
		{"readOnlyHint", &h.ReadOnly},
		{"destructiveHint", &h.Destructive},
		{"idempotentHint", &h.Idempotent},
		{"openWorldHint", &h.OpenWorld},
	} {
		if v, ok := fields[f.key]; ok {
			if err := json.Unmarshal(v, f.dst); err != nil {
				return Hints{}, fmt.Errorf("reading tool annotation %s: %w", f.key, err)
			}
		}
	}
	if v, ok := fields["title"]; ok {
		var title *string
		if err := json.Unmarshal(v, &title); err != nil {
			return Hints{}, fmt.Errorf("reading tool annotation title: %w", err)
		}
		if title != nil {
			h.Title = sanitize.Line(*title)
		}
	}
	return h, nil
}

// SafeToRunConcurrently reports whether the server explicitly says the tool
// only reads (readOnlyHint true), so calls to it may run side by side.
func (h Hints) SafeToRunConcurrently() bool {
	return h.ReadOnly == HintTrue
}

// NeedsReview reports whether a call deserves the person's extra review. As
// in MCP, destructiveHint counts only for tools that are not read-only, and
// defaults to true there: a read-only tool needs no review, and any other
// tool does unless the server says it is not destructive. A contradictory
// pair (read-only yet destructive) counts as destructive.
func (h Hints) NeedsReview() bool {
	return h.Destructive == HintTrue || (h.ReadOnly != HintTrue && h.Destructive != HintFalse)
}
