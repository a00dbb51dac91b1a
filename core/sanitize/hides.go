package sanitize

import "unicode/utf8"

// Hides reports whether s holds characters that String removes because
// they hide text or change its direction (zero-width and other format
// characters, bidirectional controls, tag characters, variation
// selectors), as opposed to control characters and line breaks, which
// text copied between systems holds without meaning harm, and to the
// joiners, selectors and tags that are part of an emoji (emoji.go). A tool
// description that Hides tried to tell the model something the person
// would not see.
func Hides(s string) bool {
	return Index(s) >= 0
}

// Index is the byte index in s of the first character that Hides
// reports, or -1 if there is none.
func Index(s string) int {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r > 0x9f && removed(r) {
			if k := emojiPart(s, i); k > 0 {
				i += k
				continue
			}
			return i
		}
		i += n
	}
	return -1
}
