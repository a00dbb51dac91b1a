package activity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcptray/mcptray/core/jsonwire"
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
	if jsonwire.Valid(raw) {
		if b, ok := appendShape(nil, bytes.TrimSpace(raw), m, 0); ok {
			return string(b)
		}
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

// appendShape appends the shape of the valid JSON value raw, as
// json.Marshal(shape(…)) writes it, read in one pass (jsonwire) instead of
// decoded into maps first; false when raw holds what it leaves to
// shape: a key with an escape or not in UTF-8, or two keys that mask
// alike.
func appendShape(dst, raw []byte, m *masker, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return jsonwire.AppendString(dst, "…"), true
	}
	switch raw[0] {
	case 'n':
		return append(dst, `"null"`...), true
	case 't', 'f':
		return append(dst, `"boolean"`...), true
	case '"':
		s, ok := jsonwire.String(raw)
		if !ok {
			return dst, false
		}
		dst = append(dst, `"string(`...)
		dst = strconv.AppendInt(dst, int64(utf8.RuneCountInString(s)), 10)
		return append(dst, `)"`...), true
	case '[':
		n := 0
		var first []byte
		if !jsonwire.Elements(raw, func(v []byte) bool {
			if n == 0 {
				first = v
			}
			n++
			return true
		}) {
			return dst, false
		}
		dst = append(dst, `["array(`...)
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, `)"`...)
		if first != nil {
			var ok bool
			dst = append(dst, ',')
			if dst, ok = appendShape(dst, first, m, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case '{':
		type member struct {
			key   string
			shape []byte
		}
		var members []member
		ok := jsonwire.Members(raw, func(k, v []byte) bool {
			if !utf8.Valid(k) {
				return false // decoding would make it U+FFFD
			}
			key := m.text(string(k))
			for _, o := range members {
				if o.key == key {
					return false
				}
			}
			sh, ok := appendShape(nil, v, m, depth+1)
			members = append(members, member{key, sh})
			return ok
		})
		if !ok {
			return dst, false
		}
		slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
		dst = append(dst, '{')
		for i, o := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonwire.AppendString(dst, o.key)
			dst = append(dst, ':')
			dst = append(dst, o.shape...)
		}
		return append(dst, '}'), true
	default: // a number
		return append(dst, `"number"`...), true
	}
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
		b, _ := json.Marshal(m.value(string(raw)))
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
		return m.value(v)
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
