package pins

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/unicode/norm"
)

// The look-alike letters are read with Unicode's confusables (UTS #39, the
// data of go.mau.fi/util/confusable): Cyrillic о and р read as o and p,
// mathematical and fullwidth letters (through NFKC, golang.org/x/text) as
// the plain ones.

// isASCII reports whether s is all ASCII: nothing to fold.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asLatin is the ASCII letter or letters r looks like, or "": a letter
// outside ASCII that UTS #39 maps to ASCII letters alone.
func asLatin(r rune) string {
	if r < utf8.RuneSelf || !unicode.IsLetter(r) {
		return ""
	}
	// Compatibility forms (fullwidth, mathematical letters) are the
	// letters they are: NFKC writes them so. The rest, Cyrillic о and
	// the like, are read as UTS #39's prototype (which writes I as l).
	repl := norm.NFKC.String(string(r))
	if !asciiLetters(repl) {
		repl = confusable.GetReplacement(r)
	}
	if !asciiLetters(repl) {
		return ""
	}
	return repl
}

// asciiLetters reports whether s is ASCII letters, one or more.
func asciiLetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// foldConfusables is s as a model reads it: each letter outside ASCII
// that looks like Latin letters written as them; ASCII stays as it is
// (the skeleton of UTS #39 would also fold m into rn, l into I).
func foldConfusables(s string) string {
	var b strings.Builder
	folding := false
	for i, r := range s {
		if l := asLatin(r); l != "" {
			if !folding {
				folding = true
				b.Grow(len(s))
				b.WriteString(s[:i])
			}
			b.WriteString(l)
			continue
		}
		if folding {
			b.WriteRune(r)
		}
	}
	if !folding {
		return s
	}
	return b.String()
}

// mixedWord finds the first word of s that mixes Latin letters with
// letters of another alphabet that look like Latin ones ("Ignоre" with a
// Cyrillic о), and where it is: a word of one alphabet (Russian, Greek)
// is no look-alike. nil when none.
func mixedWord(s string) []int {
	start, latin, other := -1, false, false
	for i, r := range s + " " {
		if unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start, latin, other = i, false, false
			}
			switch {
			case r < utf8.RuneSelf:
				latin = true
			case unicode.Is(unicode.Latin, r):
			case asLatin(r) != "":
				other = true
			}
			continue
		}
		if start >= 0 && latin && other {
			return []int{start, i}
		}
		start = -1
	}
	return nil
}
