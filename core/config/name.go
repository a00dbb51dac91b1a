package config

import (
	"unicode"
	"unicode/utf8"

	"github.com/mcptray/mcptray/core/sanitize"
)

// hiddenMark stands for each character of a server name that would not show
// as written.
const hiddenMark = '?'

// displayName returns the name a server goes by in mcptray for its name as
// written, and whether that name holds hidden characters.
//
// A name that sanitize.Line leaves alone is used as it is. Any other name
// has a character that would be hidden or changed on screen: an invisible or
// control character, a bidi control, a line break, white space other than
// one space between words, invalid UTF-8. Each such character shows as '?'
// instead of being dropped, so that "goo\u200Bgle" is listed as "goo?gle" and
// can never pass for, or take the name of, "google".
func displayName(name string) (display string, hidden bool) {
	if sanitize.Line(name) == name {
		return name, false
	}
	out := make([]rune, 0, len(name))
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		i += n
		shown := r != utf8.RuneError && (r == ' ' || !unicode.IsSpace(r)) && sanitize.String(string(r)) == string(r)
		if !shown {
			r = hiddenMark
		}
		out = append(out, r)
	}
	// A space shows only between other characters, and only one at a time.
	for i, r := range out {
		if r == ' ' && (i == 0 || i == len(out)-1 || out[i-1] == ' ') {
			out[i] = hiddenMark
		}
	}
	return string(out), true
}
