// Package sanitize makes server-supplied text safe to show to a person or a
// model: tool names and descriptions, tool output, error messages and dialog
// texts.
//
// It removes characters that can hide text or make it read differently from
// what it is — bidirectional overrides that reorder a command in an approval
// dialog, zero-width and tag characters that smuggle instructions past a
// reader, control characters that rewrite a terminal line — and repairs
// invalid UTF-8.
//
// It must never add, reorder or rewrite visible text: everything it keeps
// comes out in the order it went in. It does not escape for HTML, shells or
// terminals, does not normalise Unicode, and does not judge what the text
// says; those are other layers' jobs.
package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// hidden lists, by code point, the characters that hide or reorder text
// (named below), the tag block, the variation selectors and the blank
// Hangul fillers. Most of the first are in Unicode category Cf as well;
// listing them here keeps them removed whatever Unicode version the standard
// library carries, and covers the tag block's unassigned code points, which
// are not Cf. Variation selectors are marks (Mn) and the fillers letters
// (Lo): neither shows, and a run of variation selectors after any letter
// spells bytes a model reads (Smuggled).
var hidden = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00ad, Hi: 0x00ad, Stride: 1}, // soft hyphen
		{Lo: 0x061c, Hi: 0x061c, Stride: 1}, // Arabic letter mark
		{Lo: 0x115f, Hi: 0x1160, Stride: 1}, // Hangul choseong and jungseong fillers: blank letters
		{Lo: 0x180b, Hi: 0x180f, Stride: 1}, // Mongolian variation selectors and vowel separator
		{Lo: 0x200b, Hi: 0x200f, Stride: 1}, // zero-width space, (non-)joiner, LRM, RLM
		{Lo: 0x202a, Hi: 0x202e, Stride: 1}, // bidi embeddings and overrides
		{Lo: 0x2060, Hi: 0x206f, Stride: 1}, // word joiner, invisible operators, isolates, deprecated format
		{Lo: 0x3164, Hi: 0x3164, Stride: 1}, // Hangul filler: a blank letter
		{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1}, // variation selectors: each can carry a byte unseen
		{Lo: 0xfeff, Hi: 0xfeff, Stride: 1}, // zero-width no-break space (BOM)
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1}, // halfwidth Hangul filler
		{Lo: 0xfff9, Hi: 0xfffb, Stride: 1}, // interlinear annotation
	},
	R32: []unicode.Range32{
		{Lo: 0xe0000, Hi: 0xe007f, Stride: 1}, // tags: invisible ASCII look-alikes
		{Lo: 0xe0100, Hi: 0xe01ef, Stride: 1}, // variation selectors supplement: a byte each, unseen
	},
}

// removed reports whether String drops r: C0 and C1 control characters
// except '\n' and '\t' ('\r' and U+0085 are line breaks, handled before
// this), every character of Unicode category Cf, and the hidden table.
func removed(r rune) bool {
	if r < utf8.RuneSelf {
		return (r < 0x20 || r == 0x7f) && r != '\n' && r != '\t'
	}
	return (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || unicode.Is(hidden, r)
}

// lineBreak reports whether r ends a line in a way String rewrites as '\n':
// carriage return (a lone one returns a terminal to the start of the line,
// letting later text overwrite earlier text), next line, and the Unicode
// line and paragraph separators.
func lineBreak(r rune) bool {
	return r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// String returns s without the characters that can hide text or spoof what
// a reader sees:
//
//   - C0 and C1 control characters, except '\n' and '\t';
//   - every character of Unicode category Cf: bidi embeddings, overrides,
//     isolates and marks, zero-width characters, the word joiner and the
//     invisible operators, the soft hyphen, interlinear annotation marks;
//   - the tag block U+E0000–U+E007F, assigned or not;
//   - the variation selectors U+FE00–U+FE0F and U+E0100–U+E01EF (and the
//     Mongolian ones), and the blank Hangul fillers.
//
// Every line break is written as '\n': "\r\n", a lone '\r' (which lets later
// text overwrite a line on a terminal), U+0085, U+2028 and U+2029 each become
// one '\n'. Each run of invalid UTF-8 bytes becomes one U+FFFD, as with
// strings.ToValidUTF8.
//
// The joiners, selectors and tags that are part of an emoji (👩‍💻, ❤️,
// England's flag) are kept: they hide nothing there (emoji.go). Elsewhere
// they are removed, which takes apart the Persian words that use U+200C:
// the price of not letting them hide text.
//
// When nothing needs changing, String returns s itself without allocating,
// so it is cheap to call on every string a server sends.
func String(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t' {
				i++
				continue
			}
			return clean(s, i)
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if removed(r) {
			if k := emojiPart(s, i); k > 0 {
				i += k
				continue
			}
		}
		if (r == utf8.RuneError && n == 1) || removed(r) || lineBreak(r) {
			return clean(s, i)
		}
		i += n
	}
	return s
}

// clean is String's slow path: s[:start] is already known to be clean.
func clean(s string, start int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:start])
	invalid := false // inside a run of invalid bytes
	for i := start; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == utf8.RuneError && n == 1 {
			if !invalid {
				b.WriteRune(utf8.RuneError)
			}
			invalid = true
			continue
		}
		invalid = false
		switch {
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
		case lineBreak(r):
			b.WriteByte('\n')
		case removed(r):
			if k := emojiPart(s, i-n); k > 0 { // kept whole
				b.WriteString(s[i-n : i-n+k])
				i += k - n
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line returns s made fit for a single-line label such as a server name or a
// menu item: String's cleaning, then every run of white space (line breaks,
// tabs, no-break and other Unicode spaces) becomes one ' ', with none at
// either end.
//
// Like String, it returns s itself when nothing needs changing.
func Line(s string) string {
	t := String(s)
	if isLine(t) {
		return t
	}
	var b strings.Builder
	b.Grow(len(t))
	space := false
	for _, r := range t {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isLine reports whether t, already cleaned by String, is a valid Line: its
// only white space is single ' ' between other characters.
func isLine(t string) bool {
	prevSpace := true // so that a leading space fails
	for _, r := range t {
		if unicode.IsSpace(r) {
			if r != ' ' || prevSpace {
				return false
			}
			prevSpace = true
			continue
		}
		prevSpace = false
	}
	return !prevSpace || t == ""
}
