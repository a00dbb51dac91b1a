package jsonwire

import (
	"encoding/json"
	"strings"
	"testing"
)

// validCases are the places a JSON checker goes wrong: each is checked
// against encoding/json's Valid, which is what Valid must say.
var validCases = []string{
	``, ` `, `null`, `nul`, `nulll`, `true`, `tru`, `false`, `falsey`, `True`,
	`0`, `-0`, `00`, `01`, `-`, `-a`, `1.`, `1.5`, `.5`, `1e`, `1e5`, `1E+5`, `1e-5`, `1e+`, `-1.5e-3`, `1.5.5`, `+1`, `0x10`,
	`""`, `"`, `"a`, `"\"`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\a"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`, `"\u00e"`, `"\u"`,
	"\"a\tb\"", "\"a\x00b\"", "\"a\x1fb\"", "\"a\x7fb\"", "\"\xff\xfe\"", "\"é\"", "\"\u2028\"",
	`{}`, `{ }`, `{`, `}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":1,"b":[2,{"c":null}]}`,
	`{,}`, `{"a":1}}`, `{"a":{"b":{}}}`, `{1:2}`, `{"a":1,"a":2}`,
	`[]`, `[ ]`, `[`, `]`, `[1,]`, `[,1]`, `[1 2]`, `[1,2]`, `[[[]]]`, `[[]`, `[]]`, `[{}]`, `[{]}`, `[}`, `{]`,
	" \t\r\n{\"a\" : [ 1 , 2 ] } \n", "\v1", "1 2", "[1]x", `{"a":1}{}`, "\xef\xbb\xbf{}",
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`,
}

func TestValidIsEncodingJSONs(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

// TestValidNestingLimit: encoding/json refuses more than 10000 levels,
// and so does Valid, with more levels than its stack starts with.
func TestValidNestingLimit(t *testing.T) {
	for _, depth := range []int{63, 64, 65, 9999, 10000, 10001, 20000} {
		for _, open := range []string{"[", `{"a":`} {
			closing := "]"
			if open != "[" {
				closing = "}"
			}
			doc := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(closing, depth))
			if got, want := Valid(doc), json.Valid(doc); got != want || (depth <= 10000) != got {
				t.Errorf("%d levels of %s: Valid = %v, encoding/json says %v", depth, open, got, want)
			}
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	msg := []byte(validCases[len(validCases)-1])
	b.Run("jsonwire", func(b *testing.B) {
		for b.Loop() {
			Valid(msg)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			json.Valid(msg)
		}
	})
}
