package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	const schema = `{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"x-custom":  1}`
	raw := `{"name":"find","title":"Fi\u202end","description":"` + strings.Repeat("d", 5000) +
		`","inputSchema":` + schema + `,"annotations":{"readOnlyHint":true,"destructiveHint":"yes"}}`
	tool, err := Parse("files", json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if tool.Server != "files" || tool.Name != "find" || tool.Title != "Find" {
		t.Errorf("tool = %+v", tool)
	}
	if string(tool.InputSchema) != schema {
		t.Errorf("schema changed:\n got %s\nwant %s", tool.InputSchema, schema)
	}
	if n := len([]rune(tool.Description)); n != MaxDescription {
		t.Errorf("description has %d runes", n)
	}
	// Unreadable annotations fall back to the cautious reading.
	if tool.Hints.ReadOnly != HintAbsent || !tool.Hints.NeedsReview() {
		t.Errorf("hints = %+v", tool.Hints)
	}

	for _, bad := range []string{`{"inputSchema":{}}`, `{"name":"x"}`, `{"name":"x","inputSchema":null}`, `[]`} {
		if _, err := Parse("s", json.RawMessage(bad)); err == nil {
			t.Errorf("Parse(%s) accepted it", bad)
		}
	}
}

func TestHintsJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Hints{ReadOnly: HintTrue, Destructive: HintFalse})
	if err != nil || string(b) != `{"readOnlyHint":true,"destructiveHint":false}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
}
