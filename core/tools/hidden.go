package tools

import (
	"fmt"

	"github.com/mcptray/mcptray/core/sanitize"
)

// HiddenAt is one kind of hidden character in one of a tool's or a
// prompt's texts: "U+202E RIGHT-TO-LEFT OVERRIDE at line 2 of its
// description".
type HiddenAt struct {
	// Field is the text: "name", "title", "description" or "annotations'
	// title".
	Field string `json:"field"`
	sanitize.Found
}

// Words says it, and where: "U+202E RIGHT-TO-LEFT OVERRIDE at line 2 of
// its description".
func (h HiddenAt) Words() string {
	return fmt.Sprintf("%s at line %d of its %s", h.Found.Words(), h.Line, h.Field)
}

// maxHidden bounds the hidden characters a tool's texts are said to hold.
const maxHidden = 20

// Field is one of a tool's or a prompt's texts, as the server sent it,
// by its name.
type Field struct{ Name, Text string }

// FindHidden says where fields hold characters that hide text or change
// its direction (sanitize.Find): at most maxHidden, in the order of the
// fields given.
func FindHidden(fields ...Field) []HiddenAt {
	var out []HiddenAt
	for _, f := range fields {
		for _, found := range sanitize.Find(f.Text) {
			if len(out) == maxHidden {
				return out
			}
			out = append(out, HiddenAt{Field: f.Name, Found: found})
		}
	}
	return out
}
