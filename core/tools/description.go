package tools

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcptray/mcptray/core/sanitize"
)

// MaxDescription is the most characters (runes) of a tool description an
// agent is shown. Servers generated from OpenAPI documents put 15–60 KB in
// one description, about 15,000 tokens on every turn of every conversation.
const MaxDescription = 2048

// ellipsis marks a description that was cut.
const ellipsis = "…"

// TruncateDescription returns s sanitised and cut to at most MaxDescription
// runes. A cut never splits a rune; white space before the cut is dropped
// and "…" is appended, within the limit, so a reader knows text is missing.
func TruncateDescription(s string) string {
	s = sanitize.String(s)
	if utf8.RuneCountInString(s) <= MaxDescription {
		return s
	}
	keep := MaxDescription - utf8.RuneCountInString(ellipsis)
	end := 0
	for range keep {
		_, n := utf8.DecodeRuneInString(s[end:])
		end += n
	}
	return strings.TrimRightFunc(s[:end], unicode.IsSpace) + ellipsis
}
