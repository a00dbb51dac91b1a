package jsonwire

import (
	"bytes"
	"encoding/json"
	"testing"
)

var texts = []string{
	"", "hi", `say "hi"`, `back\slash`, "tab\there", "line\nbreak\r\n", "\b\f\x00\x01\x1f",
	"<script>&amp;</script>", "é ü 中文 🙂", "\u2028\u2029", "bad \xff\xfe utf-8", "\xed\xa0\x80", "end\x7f",
}

func TestAppendStringIsEncodingJSONs(t *testing.T) {
	for _, s := range texts {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, encoding/json: %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range texts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, encoding/json: %s", s, got, want)
		}
	})
}

func TestString(t *testing.T) {
	for _, s := range texts {
		raw, _ := json.Marshal(s)
		var want string
		json.Unmarshal(raw, &want)
		if got, ok := String(raw); !ok || got != want {
			t.Errorf("String(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`"plain \u00e9"`, `"a\/b"`, "\"raw \xff\""} {
		var want string
		json.Unmarshal([]byte(raw), &want)
		if got, ok := String([]byte(raw)); !ok || got != want {
			t.Errorf("String(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{``, `1`, `"open`, `"a" `, `null`} {
		if _, ok := String([]byte(raw)); ok {
			t.Errorf("String(%s) reads a string", raw)
		}
	}
}

var objects = []string{
	`{}`, ` { } `, `{"a":1}`, `{"jsonrpc":"2.0","id":"x-1","result":{"content":[{"type":"text","text":"hi \"}]"}]}}`,
	"{\n \"a\" : [1, {\"b\": [true, false, null]}] ,\t\"c\":\"}\"\n}", `{"a":{"b":{"c":[[],[{}]]}},"d":-1.5e3}`,
	`{"a":"x\\"}`, `{"a":1,"a":2}`,
}

func TestMembersAsEncodingJSON(t *testing.T) {
	for _, o := range objects {
		var keys []string
		var values []string
		if !Members([]byte(o), func(k, v []byte) bool {
			keys, values = append(keys, string(k)), append(values, string(v))
			return true
		}) {
			t.Errorf("Members(%s) failed", o)
			continue
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(o), &want); err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if string(want[k]) != values[i] && k != "a" {
				t.Errorf("Members(%s): %s is %s, want %s", o, k, values[i], want[k])
			}
		}
		if len(want) > len(keys) {
			t.Errorf("Members(%s) read %d members, encoding/json %d", o, len(keys), len(want))
		}
	}
	for _, o := range []string{``, `[]`, `"s"`, `{"a"}`, `{"a":1,}`, `{"a":1} x`, `{"a\u0062":1}`, `{"a":`, `{"a":1`} {
		if Members([]byte(o), func(k, v []byte) bool { return true }) {
			t.Errorf("Members(%s) read it as an object", o)
		}
	}
}

func TestElements(t *testing.T) {
	var got []string
	if !Elements([]byte(` [ {"a":[1,2]}, "x,]", 3 ] `), func(v []byte) bool { got = append(got, string(v)); return true }) {
		t.Fatal("Elements failed")
	}
	if want := []string{`{"a":[1,2]}`, `"x,]"`, `3`}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Elements = %q, want %q", got, want)
	}
	if !Elements([]byte(`[]`), func([]byte) bool { return false }) {
		t.Error("Elements([]) failed")
	}
	for _, a := range []string{`{}`, `[1,]`, `[1 2]`, `[`} {
		if Elements([]byte(a), func([]byte) bool { return true }) {
			t.Errorf("Elements(%s) read it as an array", a)
		}
	}
}

func TestAppendCompactIsJSONCompact(t *testing.T) {
	for _, o := range objects {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(o)); err != nil {
			t.Fatal(err)
		}
		if got := AppendCompact([]byte("x"), []byte(o)); string(got) != "x"+want.String() {
			t.Errorf("AppendCompact(%q) = %q, json.Compact: %q", o, got[1:], want.Bytes())
		}
	}
}

// TestPick: the members named are read, the others skipped, an absent
// one nil; a member twice, or one of them in another case (which
// encoding/json would take for it), leaves the object to encoding/json.
func TestPick(t *testing.T) {
	keys := []string{"id", "result"}
	for _, tt := range []struct {
		in   string
		ok   bool
		want [2]string
	}{
		{`{"id":"a","other":[1,{"id":2}],"result":{"x":1}}`, true, [2]string{`"a"`, `{"x":1}`}},
		{` { "result" : null } `, true, [2]string{"", "null"}},
		{`{}`, true, [2]string{}},
		{`{"id":"a","id":"b"}`, false, [2]string{}},
		{`{"id":"a","ID":"b"}`, false, [2]string{}},
		{`{"Result":{}}`, false, [2]string{}},
		{`[{"id":"a"}]`, false, [2]string{}},
	} {
		vals := [][]byte{[]byte("stale"), nil}
		ok := Pick([]byte(tt.in), keys, vals)
		if ok != tt.ok {
			t.Errorf("Pick(%s): %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if ok && (string(vals[0]) != tt.want[0] || string(vals[1]) != tt.want[1]) {
			t.Errorf("Pick(%s) = %q, want %q", tt.in, vals, tt.want)
		}
	}
}
