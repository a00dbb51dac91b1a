// Package jsonwire reads and writes the few JSON shapes on a tool call's
// way through mcptray without encoding/json's reflection: whether a message
// is JSON at all, the members of an object, a string. The gateway decodes an app's tools/call, the stdio
// transport the server's answer and the connection manager its result,
// once each, with it; encoding/json did each through reflection and
// allocations that cost a call more than its own work (bench/README.md).
//
// The input must be valid JSON (Valid): the scanner checks its
// structure, not every byte of it. Whatever it does not read plainly (a
// key with escapes), it reports, and the caller decodes that message with
// encoding/json as before.
package jsonwire

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Members calls fn with each member of the object b, in order: its key as
// written between the quotes and its value as written. It returns false
// when b is not an object, a key holds an escape, or fn returns false.
func Members(b []byte, fn func(key, value []byte) bool) bool {
	i := space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = space(b, i+1)
	if i < len(b) && b[i] == '}' {
		return space(b, i+1) == len(b)
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		end, escaped := stringEnd(b, i)
		if end < 0 || escaped {
			return false
		}
		key := b[i+1 : end-1]
		i = space(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = space(b, i+1)
		vend := Skip(b, i)
		if vend < 0 || !fn(key, b[i:vend]) {
			return false
		}
		i = space(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = space(b, i+1)
		case '}':
			return space(b, i+1) == len(b)
		default:
			return false
		}
	}
	return false
}

// Pick reads the members of the object b that keys name into vals
// (vals[i] for keys[i], nil when absent) as encoding/json decodes them
// into a struct with those fields, skipping the others. It returns false
// when b is not an object Members reads, one of them is written twice, or
// a member's key is one of them in another case (encoding/json matches
// keys whatever their case): encoding/json is then to read b.
func Pick(b []byte, keys []string, vals [][]byte) bool {
	clear(vals)
	return Members(b, func(k, v []byte) bool {
		for i, key := range keys {
			switch {
			case string(k) == key:
				if vals[i] != nil {
					return false
				}
				vals[i] = v
				return true
			case strings.EqualFold(string(k), key):
				return false
			}
		}
		return true
	})
}

// Elements calls fn with each element of the array b, as written. It
// returns false when b is not an array or fn returns false.
func Elements(b []byte, fn func(value []byte) bool) bool {
	i := space(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = space(b, i+1)
	if i < len(b) && b[i] == ']' {
		return space(b, i+1) == len(b)
	}
	for i < len(b) {
		end := Skip(b, i)
		if end < 0 || !fn(b[i:end]) {
			return false
		}
		i = space(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = space(b, i+1)
		case ']':
			return space(b, i+1) == len(b)
		default:
			return false
		}
	}
	return false
}

// Skip returns where the value that starts at b[i] ends, or -1.
func Skip(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := stringEnd(b, i)
		return end
	case c == '{' || c == '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, _ := stringEnd(b, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default: // a number, true, false or null
		start := i
		for i < len(b) && !isDelim(b[i]) {
			i++
		}
		if i == start {
			return -1
		}
		return i
	}
}

// stringEnd returns where the string that starts at b[i] (its quote) ends,
// after its closing quote, or -1; and whether it holds an escape.
func stringEnd(b []byte, i int) (end int, escaped bool) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			i++
		}
	}
	return -1, escaped
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func space(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// String is the JSON string raw (with its quotes) decoded; false when raw
// is not a string.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	end, escaped := stringEnd(raw, 0)
	if end != len(raw) {
		return "", false
	}
	if !escaped {
		s := raw[1 : len(raw)-1]
		if utf8.Valid(s) {
			return string(s), true
		}
	}
	var s string // escapes, or bytes that are not UTF-8: encoding/json's way
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// IsString reports whether raw is the JSON string s, written plainly.
func IsString(raw []byte, s string) bool {
	return len(raw) == len(s)+2 && raw[0] == '"' && raw[len(raw)-1] == '"' && string(raw[1:len(raw)-1]) == s
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped exactly as
// encoding/json's Marshal escapes it (HTML's <, > and & too, and bytes
// that are not UTF-8 as U+FFFD).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendCompact appends the valid JSON src without the space between its
// tokens, as json.Compact does.
func AppendCompact(dst, src []byte) []byte {
	start, inString := 0, false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
