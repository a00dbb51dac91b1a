package sanitize

import (
	"strings"
	"unicode"
)

// Hides reports whether s holds characters that String removes because
// they hide text or change its direction (zero-width and other format
// characters, bidirectional controls, tag characters), as opposed to
// control characters and line breaks, which text copied between systems
// holds without meaning harm. A tool description that Hides tried to tell
// the model something the person would not see.
func Hides(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return r > 0x9f && (unicode.Is(unicode.Cf, r) || unicode.Is(hidden, r))
	}) >= 0
}
