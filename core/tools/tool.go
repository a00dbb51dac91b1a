package tools

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Tool is one tool of one server, as mcptray shows it to people and agents.
type Tool struct {
	// Server is the name of the server that has the tool.
	Server string `json:"server"`
	// Name is the tool's name as the server spells it: the name to call it by.
	Name string `json:"name"`
	// QualifiedName is mcp__{server}__{tool}, unique among every server's
	// tools; set by whoever knows all of them (AssignNames).
	QualifiedName string `json:"qualifiedName,omitempty"`
	// Title and Description are sanitised; Description is cut to
	// MaxDescription.
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema and OutputSchema are the server's JSON byte for byte:
	// decoding and re-encoding would drop keys such as a top-level anyOf.
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Hints        Hints           `json:"hints"`
	// Meta is the tool's _meta as the server sent it (an MCP App's view
	// is named there), or nil.
	Meta json.RawMessage `json:"meta,omitempty"`
	// HiddenText says its name, title, description or annotations' title
	// held characters
	// that hide text or change its direction (removed above): the server
	// tried to tell the model something a person would not see.
	HiddenText bool `json:"hiddenText,omitempty"`
	// HiddenWords is the text those characters spelled (tag characters
	// and variation selectors each stand for a character or a byte a
	// model reads: sanitize.Smuggled), for the pins to read; "" if none.
	HiddenWords string `json:"hiddenWords,omitempty"`
	// Hidden says where those characters were: in which of its texts, on
	// which line, which characters (at most maxHidden).
	Hidden []HiddenAt `json:"hidden,omitempty"`
}

// wireTool is a tool as tools/list sends it.
type wireTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
	Meta         json.RawMessage `json:"_meta"`
}

// Parse reads one entry of a tools/list result from server. Annotations
// that cannot be read are dropped, which only adds caution; a tool with no
// name or no input schema is an error.
func Parse(server string, raw json.RawMessage) (Tool, error) {
	var w wireTool
	if err := json.Unmarshal(raw, &w); err != nil {
		return Tool{}, fmt.Errorf("reading a tool of %s: %w", server, err)
	}
	if w.Name == "" {
		return Tool{}, errors.New("a tool has no name")
	}
	if len(w.InputSchema) == 0 || string(w.InputSchema) == "null" {
		return Tool{}, fmt.Errorf("tool %q has no input schema", sanitize.Line(w.Name))
	}
	t := Tool{
		Server:       server,
		Name:         w.Name,
		Title:        sanitize.Line(w.Title),
		Description:  TruncateDescription(w.Description),
		InputSchema:  w.InputSchema,
		OutputSchema: w.OutputSchema,
	}
	var ann struct {
		Title string `json:"title"`
	}
	if len(w.Annotations) > 0 {
		_ = json.Unmarshal(w.Annotations, &ann) // annotations that cannot be read are dropped below
	}
	shown := w.Name + "\n" + w.Title + "\n" + w.Description + "\n" + ann.Title
	t.HiddenText = sanitize.Hides(shown)
	if t.HiddenText {
		t.HiddenWords = sanitize.Smuggled(shown)
		t.Hidden = FindHidden(Field{"name", w.Name}, Field{"title", w.Title}, Field{"description", w.Description}, Field{"annotations' title", ann.Title})
	}
	if len(w.Meta) > 0 && string(w.Meta) != "null" {
		t.Meta = w.Meta
	}
	if len(w.Annotations) > 0 {
		t.Hints, _ = ParseHints(w.Annotations)
	}
	return t, nil
}
