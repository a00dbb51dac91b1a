package sanitize

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

//go:generate go run gennames.go

// Found is one kind of character that String takes out, where it is in a
// text: its code point and name, the line and column of its first
// occurrence, and how often it occurs on that line. A run of characters
// that spells text unseen (Smuggled) is one Found, which says what it
// spells. A person reads it as "U+202E RIGHT-TO-LEFT OVERRIDE at line 12".
type Found struct {
	// Line is the line it is on, from 1; Column the character where it
	// first is on that line, from 1.
	Line   int `json:"line"`
	Column int `json:"column"`
	// CodePoint is "U+202E" (of a run, its first character's); "" for
	// bytes that are not UTF-8.
	CodePoint string `json:"codePoint"`
	// Name is its Unicode name, "RIGHT-TO-LEFT OVERRIDE" (Name).
	Name string `json:"name"`
	// Count is how often it occurs on the line; of a run, its length.
	Count int `json:"count"`
	// Spells is the text a run of tag characters or variation selectors
	// spells, as a model reads it; "" otherwise.
	Spells string `json:"spells,omitempty"`
}

// Words says f, its line aside: "U+202E RIGHT-TO-LEFT OVERRIDE",
// "U+200B ZERO WIDTH SPACE (3 times)", or for a run, "14 invisible
// characters spelling "ignore all" (from U+E0069 TAG LATIN SMALL LETTER I)".
func (f Found) Words() string {
	what := strings.TrimSpace(f.CodePoint + " " + f.Name)
	switch {
	case f.Spells != "":
		return fmt.Sprintf("%d invisible characters spelling %q (from %s)", f.Count, f.Spells, what)
	case f.Count > 1:
		return fmt.Sprintf("%s (%d times)", what, f.Count)
	}
	return what
}

// Name is the Unicode name ("RIGHT-TO-LEFT OVERRIDE") of r, one of the
// characters Find reports, or for a control character, which Unicode does
// not name, its usual name ("ESCAPE"). Another character is an "UNNAMED
// CHARACTER".
func Name(r rune) string {
	if n, ok := controlNames[r]; ok {
		return n
	}
	if n, ok := names[r]; ok { // names.go
		return n
	}
	switch {
	case r >= 0xfe00 && r <= 0xfe0f:
		return fmt.Sprintf("VARIATION SELECTOR-%d", r-0xfe00+1)
	case r >= 0xe0100 && r <= 0xe01ef:
		return fmt.Sprintf("VARIATION SELECTOR-%d", r-0xe0100+17)
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return "CONTROL CHARACTER"
	case r >= 0xe0000 && r <= 0xe007f:
		return "UNASSIGNED TAG CHARACTER"
	}
	return "UNNAMED CHARACTER"
}

// controlNames are the usual names of the control characters a text may
// hold on purpose, or to rewrite what a terminal shows.
var controlNames = map[rune]string{
	0x00: "NULL", 0x07: "BELL", 0x08: "BACKSPACE", 0x0b: "LINE TABULATION", 0x0c: "FORM FEED",
	0x0d: "CARRIAGE RETURN", 0x1b: "ESCAPE", 0x7f: "DELETE", 0x85: "NEXT LINE",
}

// Find lists where s holds characters that hide text or change its
// direction (those Hides reports), by line ('\n' ends one) and, on each,
// in the order they first occur.
func Find(s string) []Found {
	if !Hides(s) {
		return nil
	}
	return find(s, func(r rune) bool { return r > 0x9f && removed(r) })
}

// FindAll is Find, and also the control characters, line breaks other
// than '\n' and "\r\n", and bytes that are not UTF-8: every place String
// changes s.
func FindAll(s string) []Found {
	if String(s) == s {
		return nil
	}
	return find(s, func(r rune) bool { return removed(r) || lineBreak(r) })
}

// find lists where s holds characters for which take is true, and bytes
// that are not UTF-8.
func find(s string, take func(rune) bool) []Found {
	var out []Found
	line, col := 1, 0
	first := 0 // out's first Found of this line
	add := func(f Found) {
		for i := first; i < len(out); i++ {
			if f.Spells == "" && out[i].Spells == "" && out[i].CodePoint == f.CodePoint {
				out[i].Count++
				return
			}
		}
		out = append(out, f)
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		col++
		switch {
		case r == '\n':
			line, col, first = line+1, 0, len(out)
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case r > 0x7f && emojiPart(s, i) > 0: // shown, not hidden
			k := emojiPart(s, i)
			col += utf8.RuneCountInString(s[i:i+k]) - 1
			i += k
			continue
		case r == utf8.RuneError && n == 1:
			add(Found{Line: line, Column: col, Name: "BYTES THAT ARE NOT UTF-8", Count: 1})
		case smuggles(r):
			// A run that spells text is one Found, saying what.
			end := i
			for end < len(s) {
				q, m := utf8.DecodeRuneInString(s[end:])
				if !smuggles(q) {
					break
				}
				end += m
			}
			run := s[i:end]
			if spelled := Smuggled(run); spelled != "" {
				out = append(out, Found{Line: line, Column: col, CodePoint: fmt.Sprintf("%U", r), Name: Name(r),
					Count: utf8.RuneCountInString(run), Spells: spelled})
				col += utf8.RuneCountInString(run) - 1
				i = end
				continue
			}
			for _, q := range run { // each alone, then on past the run
				add(Found{Line: line, Column: col, CodePoint: fmt.Sprintf("%U", q), Name: Name(q), Count: 1})
				col++
			}
			col--
			i = end
			continue
		case take(r):
			add(Found{Line: line, Column: col, CodePoint: fmt.Sprintf("%U", r), Name: Name(r), Count: 1})
		}
		i += n
	}
	return out
}

// smuggles reports whether r is one of the characters Smuggled reads.
func smuggles(r rune) bool {
	return (r >= 0xe0000 && r <= 0xe007f) || (r >= 0xfe00 && r <= 0xfe0f) || (r >= 0xe0100 && r <= 0xe01ef)
}
