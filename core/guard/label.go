package guard

import (
	"strings"

	"github.com/mcptray/mcptray/core/config"
)

// Label is one thing a tool can do with data, as a bit of Labels.
type Label uint8

// The three labels.
const (
	// Private: it reads the person's data (files, mail, an account).
	Private Label = 1 << iota
	// Untrusted: it brings in content that someone else wrote.
	Untrusted
	// Egress: it can send data out of the computer.
	Egress
)

// all are the labels in the order they are said.
var all = [...]Label{Private, Untrusted, Egress}

// String is the label's word: "private", "untrusted" or "egress".
func (l Label) String() string {
	switch l {
	case Private:
		return "private"
	case Untrusted:
		return "untrusted"
	case Egress:
		return "egress"
	}
	return "none"
}

// Labels is a set of labels.
type Labels uint8

// Has reports whether s holds l.
func (s Labels) Has(l Label) bool { return s&Labels(l) != 0 }

// String lists the labels: "private, egress", or "none".
func (s Labels) String() string {
	var out []string
	for _, l := range all {
		if s.Has(l) {
			out = append(out, l.String())
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// Reason is why a tool has a label, in words a person reads: "reads
// private data: it may read ~/Documents".
type Reason struct {
	Label Label  `json:"label"`
	Words string `json:"words"`
}

// ToolLabels are one tool's labels with their reasons.
type ToolLabels struct {
	// Tool is the tool's qualified name (mcp__SERVER__TOOL); Server and
	// ServerTool are its server and the server's name for it.
	Tool, Server, ServerTool string
	Labels                   Labels
	// Reasons say why, one or more for each label, the person's
	// corrections among them.
	Reasons []Reason
	// Destinations are where its server may send data, as the egress
	// question names them ("hooks.slack.com"): its granted hosts, or a
	// remote server's host.
	Destinations []string
}

// add gives t the label l for the reason words.
func (t *ToolLabels) add(l Label, words string) {
	t.Labels |= Labels(l)
	t.Reasons = append(t.Reasons, Reason{Label: l, Words: lead(l) + words})
}

// lead starts a reason with what the label means.
func lead(l Label) string {
	switch l {
	case Private:
		return "reads private data: "
	case Untrusted:
		return "brings in content others wrote: "
	}
	return "can send data out: "
}

// Correct applies the person's correction: a label set true is added, one
// set false removed with its reasons, each change said as theirs.
func (t ToolLabels) Correct(c config.LabelChange) ToolLabels {
	for _, x := range []struct {
		l Label
		v *bool
	}{{Private, c.Private}, {Untrusted, c.Untrusted}, {Egress, c.Egress}} {
		switch {
		case x.v == nil:
		case *x.v:
			t.Reasons = append(t.Reasons, Reason{Label: x.l, Words: lead(x.l) + "you said so"})
			t.Labels |= Labels(x.l)
		default:
			kept := t.Reasons[:0:0]
			for _, r := range t.Reasons {
				if r.Label != x.l {
					kept = append(kept, r)
				}
			}
			t.Reasons = append(kept, Reason{Label: x.l, Words: "not " + x.l.String() + ": you said so"})
			t.Labels &^= Labels(x.l)
		}
	}
	return t
}

// Words says the labels with their reasons, one a line.
func (t ToolLabels) Words() string {
	if len(t.Reasons) == 0 {
		return "no label: it reads nothing of yours, brings in nothing from outside and sends nothing out, as far as mcptray can tell"
	}
	lines := make([]string, len(t.Reasons))
	for i, r := range t.Reasons {
		lines[i] = r.Words
	}
	return strings.Join(lines, "\n")
}
