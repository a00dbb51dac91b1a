package activity

import (
	"encoding/json"
	"testing"
)

var shapeInputs = []string{
	`{"text":"hi"}`, `{}`, `[]`, `null`, `"x"`, `12`, `true`,
	` { "path" : "/home/ann/notes.txt" , "recursive" : false , "ids" : [ 1 , 2 , 3 ] , "n" : null } `,
	`{"b":1,"a":{"z":[[],[{"deep":{"er":[1]}}]],"é":"ü中","<k>":"\u00e9\n"}}`,
	`{"password":"hunter22","token":"x","apiKey":1}`,
	`{"a":1,"a":2}`, `{"a\u0062":1}`, `{"a":"bad \xff utf-8"}`,
	`[[[[[[[[[[[["too deep"]]]]]]]]]]]]`, `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":1}}}}}}}}}}`,
	`{"bearer":"Bearer abcdefghijklmnop"}`,
}

// TestShapeOfAsBefore: the shape read in one pass is the shape decoded
// first, byte for byte.
func TestShapeOfAsBefore(t *testing.T) {
	m := newMasker([]string{"hunter22"})
	for _, raw := range shapeInputs {
		checkShape(t, m, raw)
	}
}

func FuzzShapeOf(f *testing.F) {
	for _, raw := range shapeInputs {
		f.Add(raw)
	}
	m := newMasker([]string{"hunter22"})
	f.Fuzz(func(t *testing.T, raw string) { checkShape(t, m, raw) })
}

func checkShape(t *testing.T, m *masker, raw string) {
	t.Helper()
	if !json.Valid([]byte(raw)) {
		return
	}
	v, err := decodeArgs(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(shape(v, m, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := shapeOf(json.RawMessage(raw), m); got != string(want) {
		t.Errorf("shapeOf(%s) = %s, decoded first: %s", raw, got, want)
	}
}
