package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-text/typesetting/unicodedata"
)

// An emoji is drawn from a sequence that may hold characters which,
// anywhere else, hide text (Unicode Technical Standard #51):
//
//   - a variation selector, U+FE0E (text style) or U+FE0F (emoji style),
//     right after a pictograph (❤️, ™️), or after a digit, '#' or '*'
//     before U+20E3 COMBINING ENCLOSING KEYCAP (1️⃣);
//   - a zero-width joiner between two emoji (👩‍💻, ❤️‍🔥, 👨🏽‍💻);
//   - the tag characters of a subdivision's flag after U+1F3F4 WAVING BLACK
//     FLAG, up to U+E007F CANCEL TAG (England's, Scotland's and Wales').
//
// Those are shown, not hidden: String keeps them and Hides and Find pass
// over them. Everything else stays hidden: a selector after a letter, a
// second selector, or one followed by any other selector or tag (the first
// of a run that spells bytes, Smuggled), the selectors U+FE00–U+FE0D and
// U+E0100 up, a joiner not between two emoji, tags not spelling one of
// those flags. A pictograph takes one selector, which spells a single byte
// that is not a printable character, so allowing it after any pictograph
// (Unicode's Extended_Pictographic, a few more than the ones with a
// listed variation sequence) lets no text through.
//
// Only the flags of England, Scotland and Wales are recommended for
// general interchange, and so drawn: after another subdivision's tags a
// platform draws a black flag and the tags, which spell letters a model
// reads, show nothing, so they stay hidden.

// subdivisionFlags are the tag characters, to the cancel tag, of the
// subdivision flags Unicode recommends: gbeng, gbsct, gbwls.
var subdivisionFlags = []string{tagged("gbeng"), tagged("gbsct"), tagged("gbwls")}

// tagged spells code in tag characters and ends it with a cancel tag.
func tagged(code string) string {
	var b strings.Builder
	for _, c := range code {
		b.WriteRune(0xe0000 + c)
	}
	b.WriteRune(0xe007f)
	return b.String()
}

// emojiPart is the length in bytes of the characters at s[i:] that would
// hide text elsewhere but here are part of an emoji, as above; 0 when
// s[i:] does not begin such a part. What comes before s[i] is its context.
func emojiPart(s string, i int) int {
	r, n := utf8.DecodeRuneInString(s[i:])
	switch r {
	case 0xfe0e, 0xfe0f, 0x200d, 0xe0067:
	default:
		return 0
	}
	prev, pn := utf8.DecodeLastRuneInString(s[:i])
	next, _ := utf8.DecodeRuneInString(s[i+n:])
	switch r {
	case 0x200d:
		if !pictograph(next) {
			return 0
		}
		if prev == 0xfe0f { // ❤️‍🔥: the selector after a pictograph
			prev, _ = utf8.DecodeLastRuneInString(s[:i-pn])
		} else if prev >= 0x1f3fb && prev <= 0x1f3ff { // 👨🏽‍💻: a skin tone modifier
			return n
		}
		if pictograph(prev) {
			return n
		}
	case 0xe0067: // 'g', the first letter of each flag's tags
		if prev != 0x1f3f4 {
			return 0
		}
		for _, f := range subdivisionFlags {
			if strings.HasPrefix(s[i:], f) {
				return len(f)
			}
		}
	default: // VS15, VS16
		if smuggles(next) {
			return 0
		}
		if pictograph(prev) || (next == 0x20e3 && (prev >= '0' && prev <= '9' || prev == '#' || prev == '*')) {
			return n
		}
	}
	return 0
}

// pictograph reports whether r is drawn as an emoji or can be: Unicode's
// Extended_Pictographic property.
func pictograph(r rune) bool {
	return r >= 0xa9 && unicode.Is(unicodedata.Extended_Pictographic, r)
}
