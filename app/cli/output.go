package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// writeJSON writes v as JSON for scripts, with every invisible or
// direction-changing character escaped (\u202e, \u200b, C1 controls): a
// server's name or text printed raw could reorder or hide what a person
// reads in a terminal, and encoding/json leaves those as they are.
func writeJSON(w io.Writer, v any, indent bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeInvisible(buf.Bytes()))
	return err
}

// escapeInvisible escapes, in JSON text, the runes a terminal does not
// show as themselves. In JSON such runes can only stand inside strings,
// where \uXXXX means the same rune.
func escapeInvisible(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if invisible(r) {
			if r > 0xffff { // a surrogate pair
				r1, r2 := utf16Pair(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

func invisible(r rune) bool {
	return (r >= 0x7f && r <= 0x9f) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
