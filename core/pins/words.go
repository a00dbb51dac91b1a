package pins

import (
	"fmt"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/mcptray/mcptray/core/tools"
)

// Op says whether a Segment of a description was kept, added or removed.
type Op string

// The ops of a Segment.
const (
	Same    Op = "same"
	Added   Op = "added"
	Dropped Op = "removed"
)

// Segment is a run of a description's words that was kept, added or
// removed.
type Segment struct {
	Op   Op     `json:"op"`
	Text string `json:"text"`
}

// Words are what a Change says in plain words.
type Words struct {
	// Summary is one line: "changed", "is new", "was renamed from `x`".
	Summary string `json:"summary"`
	// Description is the description's words with those added and
	// removed marked, when it changed (or the whole text, added, for a
	// new one).
	Description []Segment `json:"description,omitempty"`
	// Lines say each other change: "now also asks for `path` (text)".
	Lines []string `json:"lines,omitempty"`
}

// Describe says c in words.
func Describe(c Change) Words {
	switch c.Kind {
	case New:
		w := Words{Summary: "is new"}
		if c.New.Description != "" {
			w.Description = []Segment{{Added, c.New.Description}}
		}
		w.Lines = schemaWords(nil, c.New.InputSchema, "asks for")
		return w
	case Removed:
		return Words{Summary: "was removed"}
	case Renamed:
		return Words{Summary: fmt.Sprintf("was renamed from `%s`; nothing else changed", c.Was)}
	case Unchanged:
		return Words{Summary: "is unchanged"}
	}
	w := Words{Summary: "changed"}
	if c.Weakened {
		w.Summary = "changed, and now claims to be less risky than before"
	}
	o, n := c.Old, c.New
	if o.Title != n.Title {
		w.Lines = append(w.Lines, fmt.Sprintf("its title is now %q (was %q)", n.Title, o.Title))
	}
	if o.Description != n.Description {
		w.Description = WordDiff(o.Description, n.Description)
		w.Lines = append(w.Lines, "its description changed")
	}
	if !sameJSON(o.InputSchema, n.InputSchema) {
		lines := schemaWords(o.InputSchema, n.InputSchema, "asks for")
		if len(lines) == 0 {
			lines = []string{"what it asks for changed in details of its schema"}
		}
		w.Lines = append(w.Lines, lines...)
	}
	if !sameJSON(o.OutputSchema, n.OutputSchema) {
		lines := schemaWords(o.OutputSchema, n.OutputSchema, "returns")
		if len(lines) == 0 {
			lines = []string{"what it says it returns changed"}
		}
		w.Lines = append(w.Lines, lines...)
	}
	w.Lines = append(w.Lines, hintWords(o.Annotations, n.Annotations)...)
	if !sameJSON(o.Meta, n.Meta) {
		w.Lines = append(w.Lines, "its _meta (information for apps) changed")
	}
	return w
}

// hintWords says how the annotations changed.
func hintWords(was, now tools.Hints) []string {
	var out []string
	say := func(before, after tools.Hint, yes, no string) {
		if before == after {
			return
		}
		out = append(out, fmt.Sprintf("now %s (before: %s)", hintPhrase(after, yes, no), hintPhrase(before, yes, no)))
	}
	say(was.ReadOnly, now.ReadOnly, "says it only reads", "says it may change things")
	say(was.Destructive, now.Destructive, "says it may delete or overwrite", "says it never deletes or overwrites")
	say(was.Idempotent, now.Idempotent, "says repeating a call changes nothing more", "says repeating a call may do more")
	say(was.OpenWorld, now.OpenWorld, "says it may reach outside (the internet, other services)", "says it reaches nothing outside")
	if was.Title != now.Title {
		out = append(out, fmt.Sprintf("its annotated title is now %q (was %q)", now.Title, was.Title))
	}
	return out
}

func hintPhrase(h tools.Hint, yes, no string) string {
	switch h {
	case tools.HintTrue:
		return yes
	case tools.HintFalse:
		return no
	}
	return "says nothing about it"
}

// WordDiff marks the words of now that were added to was and those of was
// that were removed, with sergi/go-diff's diff run on words rather than
// characters (each distinct word, and each run of spaces and punctuation,
// stands for one rune), then cleaned up so that a reader sees whole
// phrases.
func WordDiff(was, now string) []Segment {
	index := map[string]rune{}
	var words []string
	encode := func(s string) []rune {
		var out []rune
		for _, tok := range tokens(s) {
			r, ok := index[tok]
			if !ok {
				r = rune(len(words))
				index[tok] = r
				words = append(words, tok)
			}
			out = append(out, r)
		}
		return out
	}
	a, b := encode(was), encode(now)
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(a, b, false))
	var out []Segment
	for _, d := range diffs {
		var text []byte
		for _, r := range []rune(d.Text) {
			text = append(text, words[r]...)
		}
		op := Same
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = Added
		case diffmatchpatch.DiffDelete:
			op = Dropped
		}
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Text += string(text)
			continue
		}
		out = append(out, Segment{op, string(text)})
	}
	return out
}

// tokens splits s into words and the runs of other characters between
// them.
func tokens(s string) []string {
	var out []string
	start, inWord := 0, false
	for i, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\''
		if i > start && w != inWord {
			out = append(out, s[start:i])
			start = i
		}
		inWord = w
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
