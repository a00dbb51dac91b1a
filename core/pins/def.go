package pins

import (
	"bytes"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/tools"
)

// Def is one tool's or prompt's definition as a model reads it. For a
// prompt, InputSchema holds its arguments as the server listed them and
// the other schema and annotations are empty.
type Def struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  tools.Hints     `json:"annotations"`
	Meta         json.RawMessage `json:"meta,omitempty"`
	// HiddenText says the server's text held hidden characters, removed
	// before anyone saw it (tools.Tool.HiddenText).
	HiddenText bool `json:"hiddenText,omitempty"`
	// HiddenWords is the text those characters spelled
	// (tools.Tool.HiddenWords), read by Scan as the model reads it.
	HiddenWords string `json:"hiddenWords,omitempty"`
	// Hidden says where those characters were (tools.Tool.Hidden): what
	// Scan names. Not part of the definition: Same leaves it out.
	Hidden []tools.HiddenAt `json:"hidden,omitempty"`
}

// FromTool is t's definition.
func FromTool(t tools.Tool) Def {
	return Def{
		Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: nonNull(t.OutputSchema),
		Annotations: t.Hints, Meta: nonNull(t.Meta), HiddenText: t.HiddenText, HiddenWords: t.HiddenWords, Hidden: t.Hidden,
	}
}

// FromPrompt is p's definition: its arguments stand for its schema.
func FromPrompt(p mcp.Prompt) Def {
	d := Def{Name: p.Name, Title: p.Title, Description: p.Description}
	if len(p.Arguments) > 0 {
		d.InputSchema, _ = json.Marshal(p.Arguments)
	}
	return d
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// Same reports whether a and b are the same definition, names aside: JSON
// that differs only in spacing or the order of keys is the same.
func (d Def) Same(o Def) bool {
	return d.Title == o.Title && d.Description == o.Description && d.Annotations == o.Annotations && d.HiddenText == o.HiddenText && d.HiddenWords == o.HiddenWords &&
		sameJSON(d.InputSchema, o.InputSchema) && sameJSON(d.OutputSchema, o.OutputSchema) && sameJSON(d.Meta, o.Meta)
}

// Equal reports whether a and b are the same definition under the same
// name.
func (d Def) Equal(o Def) bool { return d.Name == o.Name && d.Same(o) }

// sameJSON compares two JSON texts by what they say: the bytes first (the
// usual case, a list that did not change, costs a comparison), then their
// canonical forms.
func sameJSON(a, b json.RawMessage) bool {
	a, b = nonNull(a), nonNull(b)
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	return bytes.Equal(canonical(a), canonical(b))
}

// canonical is raw with its keys sorted and no spacing (encoding/json
// sorts map keys); raw that is not JSON stays as it is.
func canonical(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}
