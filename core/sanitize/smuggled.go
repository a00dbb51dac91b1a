package sanitize

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Smuggled is the text spelled in s by characters that do not show: tag
// characters (U+E0020–U+E007E, each an ASCII character) and variation
// selectors (U+FE00–U+FE0F and U+E0100–U+E01EF, each a byte: 0–15, then
// 16–255, read as UTF-8). A model reads them as the text they spell; a
// person sees nothing. Each run of them is one piece of the answer, the
// pieces joined by a space; a run that spells nothing printable (the
// single selector after a digit) is left out, and so are the selectors and
// tags that are part of an emoji (emoji.go). "" when s hides no text.
func Smuggled(s string) string {
	if !mayHide(s) {
		return ""
	}
	var pieces []string
	var run []byte
	end := func() {
		if len(run) > 0 {
			if t := strings.TrimSpace(Line(strings.ToValidUTF8(string(run), ""))); t != "" {
				pieces = append(pieces, t)
			}
			run = run[:0]
		}
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if k := emojiPart(s, i); k > 0 { // ❤️, England's flag
			end()
			i += k
			continue
		}
		i += n
		switch {
		case r >= 0xe0020 && r <= 0xe007e:
			run = append(run, byte(r-0xe0000))
		case r >= 0xfe00 && r <= 0xfe0f:
			run = append(run, byte(r-0xfe00))
		case r >= 0xe0100 && r <= 0xe01ef:
			run = append(run, byte(r-0xe0100+16))
		case r == 0xe0001 || r == 0xe007f: // language tag, cancel tag: part of a run
		default:
			end()
		}
	}
	end()
	return strings.Join(pieces, " ")
}

// mayHide reports whether s holds a character from U+FE00 up: every
// character Smuggled reads is one.
func mayHide(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xef { // the first byte of U+F000 and above
			return true
		}
	}
	return false
}

// JSON returns the JSON text raw with String's cleaning applied to every
// string in it, keys and values, and every other byte as it was: the order
// of keys, the spacing and the numbers are kept. A string is written anew
// only when cleaning changed it. When nothing needs changing, or raw is
// not JSON that can be read, it returns raw itself without allocating.
func JSON(raw []byte) []byte {
	if !jsonMayNeed(raw) {
		return raw
	}
	var out []byte
	last := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return raw
		}
		lit := raw[i : end+1]
		i = end
		var s string
		if json.Unmarshal(lit, &s) != nil {
			return raw
		}
		c := String(s)
		if c == s {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(raw))
		}
		out = append(out, raw[last:i-len(lit)+1]...)
		out = appendString(out, c)
		last = end + 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// jsonMayNeed reports whether raw holds anything String could change: a
// byte beyond ASCII, or an escape of a character it removes or rewrites
// (\u…, \b, \f, \r).
func jsonMayNeed(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c >= utf8.RuneSelf:
			return true
		case c == '\\' && i+1 < len(raw):
			switch raw[i+1] {
			case 'u', 'b', 'f', 'r':
				return true
			}
			i++
		}
	}
	return false
}

// stringEnd is the index of the quote that closes the JSON string opened
// at raw[start], or -1.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// appendString appends s as a JSON string, leaving <, > and & as they are.
func appendString(out []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(out, bytes.TrimRight(b.Bytes(), "\n")...)
}
