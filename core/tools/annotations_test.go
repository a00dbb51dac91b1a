package tools

import (
	"encoding/json"
	"testing"
)

func TestParseHints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		raw     string
		want    Hints
		wantErr bool
	}{
		{"empty input", "", Hints{}, false},
		{"null", "null", Hints{}, false},
		{"empty object", "{}", Hints{}, false},
		{
			"all set",
			`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false,"title":"Read file"}`,
			Hints{ReadOnly: HintTrue, Destructive: HintFalse, Idempotent: HintTrue, OpenWorld: HintFalse, Title: "Read file"},
			false,
		},
		{"explicit false is not absent", `{"readOnlyHint":false}`, Hints{ReadOnly: HintFalse}, false},
		{"null hint is absent", `{"destructiveHint":null,"title":null}`, Hints{}, false},
		{"unknown keys ignored", `{"x-vendor":{"a":1},"readOnlyHint":true}`, Hints{ReadOnly: HintTrue}, false},
		{"keys match exactly", `{"READONLYHINT":true,"readonlyhint":true}`, Hints{}, false},
		{"title sanitised to one line", `{"title":"Delete\u202e\nall\u200b  files "}`, Hints{Title: "Delete all files"}, false},
		{"hint of wrong type", `{"readOnlyHint":"yes"}`, Hints{}, true},
		{"wrong type after a good hint", `{"readOnlyHint":true,"destructiveHint":1}`, Hints{}, true},
		{"title of wrong type", `{"title":5}`, Hints{}, true},
		{"not an object", `[true]`, Hints{}, true},
		{"malformed", `{"readOnlyHint":`, Hints{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseHints(json.RawMessage(tt.raw))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseHints(%s) error = %v, want error: %v", tt.raw, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseHints(%s) = %+v, want %+v", tt.raw, got, tt.want)
			}
		})
	}
}

func TestHintsPolicy(t *testing.T) {
	t.Parallel()
	all := []Hint{HintAbsent, HintFalse, HintTrue}
	for _, ro := range all {
		for _, de := range all {
			h := Hints{ReadOnly: ro, Destructive: de}
			wantConcurrent := ro == HintTrue
			wantReview := de == HintTrue || (ro != HintTrue && de != HintFalse)
			if got := h.SafeToRunConcurrently(); got != wantConcurrent {
				t.Errorf("readOnly=%v destructive=%v: SafeToRunConcurrently() = %v, want %v", ro, de, got, wantConcurrent)
			}
			if got := h.NeedsReview(); got != wantReview {
				t.Errorf("readOnly=%v destructive=%v: NeedsReview() = %v, want %v", ro, de, got, wantReview)
			}
		}
	}
}

// The policy spelled out case by case, so that a change to the expression
// above cannot silently change both sides.
func TestHintsPolicyCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		h                      Hints
		concurrent, needReview bool
	}{
		{"no annotations", Hints{}, false, true},
		{"read-only, destructive absent (it counts only for writers)", Hints{ReadOnly: HintTrue}, true, false},
		{"read-only and not destructive", Hints{ReadOnly: HintTrue, Destructive: HintFalse}, true, false},
		{"contradictory: read-only yet destructive", Hints{ReadOnly: HintTrue, Destructive: HintTrue}, true, true},
		{"writes, not destructive", Hints{ReadOnly: HintFalse, Destructive: HintFalse}, false, false},
		{"not destructive, read-only absent", Hints{Destructive: HintFalse}, false, false},
		{"writes, destructive absent (defaults to true)", Hints{ReadOnly: HintFalse}, false, true},
		{"idempotent and closed world change nothing", Hints{Idempotent: HintTrue, OpenWorld: HintFalse}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.h.SafeToRunConcurrently(); got != tt.concurrent {
				t.Errorf("SafeToRunConcurrently() = %v, want %v", got, tt.concurrent)
			}
			if got := tt.h.NeedsReview(); got != tt.needReview {
				t.Errorf("NeedsReview() = %v, want %v", got, tt.needReview)
			}
		})
	}
}

func TestHintString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		h    Hint
		want string
	}{
		{HintAbsent, "absent"}, {HintFalse, "false"}, {HintTrue, "true"}, {Hint(9), "Hint(9)"},
	}
	for _, tt := range tests {
		if got := tt.h.String(); got != tt.want {
			t.Errorf("Hint(%d).String() = %q, want %q", uint8(tt.h), got, tt.want)
		}
	}
}
