package activity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// maxDepth bounds how deep arguments are described; deeper values are
// "…".
const maxDepth = 8

// decodeArgs decodes a call's arguments, numbers as they were written.
func decodeArgs(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// shapeOf describes args without a value: each key (masked when it is
// itself a secret) with its value's type, a string's and a list's length.
// {"path":"string(24)","recursive":"boolean","ids":["array(3)","number"]}.
func shapeOf(raw json.RawMessage, m *masker) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	v, err := decodeArgs(raw)
	if err != nil {
		return fmt.Sprintf(`"not JSON (%d bytes)"`, len(raw))
	}
	b, err := json.Marshal(shape(v, m, 0))
	if err != nil {
		return `"unreadable"`
	}
	return string(b)
}

func shape(v any, m *masker, depth int) any {
	if depth > maxDepth {
		return "…"
	}
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return fmt.Sprintf("string(%d)", utf8.RuneCountInString(v))
	case []any:
		out := []any{fmt.Sprintf("array(%d)", len(v))}
		if len(v) > 0 {
			out = append(out, shape(v[0], m, depth+1))
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[m.text(k)] = shape(e, m, depth+1)
		}
		return out
	}
	return "unknown"
}

// keptOf is args with their values, each secret in them masked: the value
// of a key named like a secret (password, token…) whole, and in every
// other string each of mcptray's secrets' values and each value that looks
// like a secret.
func keptOf(raw json.RawMessage, m *masker) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	v, err := decodeArgs(raw)
	if err != nil {
		// Not JSON: masked as text, kept as a string.
		b, _ := json.Marshal(m.text(string(raw)))
		return string(b)
	}
	b, err := json.Marshal(kept(v, m, 0))
	if err != nil {
		return `"unreadable"`
	}
	return string(b)
}

func kept(v any, m *masker, depth int) any {
	if depth > maxDepth {
		return "…"
	}
	switch v := v.(type) {
	case string:
		return m.text(v)
	case json.Number:
		if s := m.text(v.String()); s != v.String() {
			return s
		}
		return v
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = kept(e, m, depth+1)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if secretKeyName.MatchString(k) && e != nil {
				out[m.text(k)] = Masked
				continue
			}
			out[m.text(k)] = kept(e, m, depth+1)
		}
		return out
	}
	return v
}
