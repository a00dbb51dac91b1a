package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseLocatesHidden: a tool whose texts hide characters says in
// which text, on which line, and which characters, by code point and
// name.
func TestParseLocatesHidden(t *testing.T) {
	t.Parallel()
	raw := `{"name":"send\u200b_mail","title":"Send","description":"Sends mail.\nAlso \u202ereads\u202c keys.","inputSchema":{"type":"object"}}`
	tool, err := Parse("mail", json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range tool.Hidden {
		got = append(got, h.Words())
	}
	want := []string{
		"U+200B ZERO WIDTH SPACE at line 1 of its name",
		"U+202E RIGHT-TO-LEFT OVERRIDE at line 2 of its description",
		"U+202C POP DIRECTIONAL FORMATTING at line 2 of its description",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("its hidden characters:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	clean, err := Parse("mail", json.RawMessage(`{"name":"send","description":"Sends mail 🙂.","inputSchema":{}}`))
	if err != nil || clean.Hidden != nil {
		t.Errorf("a clean tool: %+v, %v", clean.Hidden, err)
	}
}
