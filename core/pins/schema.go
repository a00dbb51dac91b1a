package pins

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// field is one property of an object schema, as words need it.
type field struct {
	kind        string
	required    bool
	description string
}

// fields reads the top-level properties of an object schema; anything
// else reads as none.
func fields(raw json.RawMessage) map[string]field {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	out := make(map[string]field, len(s.Properties))
	for name, p := range s.Properties {
		f := field{kind: typeWords(p.Type), description: p.Description, required: slices.Contains(s.Required, name)}
		if len(p.Enum) > 0 {
			f.kind = "one of a list"
		}
		out[name] = f
	}
	return out
}

// typeWords is a JSON Schema type as a person says it.
func typeWords(t any) string {
	switch t := t.(type) {
	case string:
		switch t {
		case "string":
			return "text"
		case "number":
			return "a number"
		case "integer":
			return "a whole number"
		case "boolean":
			return "yes or no"
		case "array":
			return "a list"
		case "object":
			return "a group of values"
		case "null":
			return "nothing"
		}
		return t
	case []any:
		var parts []string
		for _, x := range t {
			parts = append(parts, typeWords(x))
		}
		return strings.Join(parts, " or ")
	}
	return "any value"
}

// schemaWords says how the fields of an object schema changed, verb being
// what the tool does with them ("asks for", "returns"): "now also asks for
// `path` (text)", "no longer asks for `city`", "`x` is now a number, was
// text". A schema that is not an object of properties gives no words.
func schemaWords(was, now json.RawMessage, verb string) []string {
	o, n := fields(was), fields(now)
	var names []string
	for k := range o {
		names = append(names, k)
	}
	for k := range n {
		if _, ok := o[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var out []string
	for _, name := range names {
		a, inOld := o[name]
		b, inNew := n[name]
		switch {
		case !inOld:
			extra := b.kind
			if b.required {
				extra += ", required"
			}
			line := fmt.Sprintf("now also %s `%s` (%s)", verb, name, extra)
			if was == nil {
				line = fmt.Sprintf("%s `%s` (%s)", verb, name, extra)
			}
			if b.description != "" {
				line += fmt.Sprintf(", described as %q", b.description)
			}
			out = append(out, line)
		case !inNew:
			out = append(out, fmt.Sprintf("no longer %s `%s`", verb, name))
		default:
			if a.kind != b.kind {
				out = append(out, fmt.Sprintf("`%s` is now %s, was %s", name, b.kind, a.kind))
			}
			if a.required != b.required {
				if b.required {
					out = append(out, fmt.Sprintf("`%s` is now required", name))
				} else {
					out = append(out, fmt.Sprintf("`%s` is now optional", name))
				}
			}
			if a.description != b.description {
				out = append(out, fmt.Sprintf("`%s` is now described as %q (was %q)", name, b.description, a.description))
			}
		}
	}
	return out
}
