package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateDescription(t *testing.T) {
	t.Parallel()
	// The promise, as a literal: the table below counts from the constant.
	if MaxDescription != 2048 {
		t.Fatalf("MaxDescription = %d, want 2048 characters", MaxDescription)
	}
	at := func(n int, r string) string { return strings.Repeat(r, n) }
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"short", "Lists files.", "Lists files."},
		{"sanitised", "Lists\u202E files\u200B.", "Lists files."},
		{"exactly the limit", at(MaxDescription, "x"), at(MaxDescription, "x")},
		{"one over", at(MaxDescription+1, "x"), at(MaxDescription-1, "x") + "…"},
		{"counts runes not bytes", at(MaxDescription, "日"), at(MaxDescription, "日")},
		{"cuts multi-byte runes whole", at(MaxDescription+5, "日"), at(MaxDescription-1, "日") + "…"},
		{"4-byte runes", at(3*MaxDescription, "🙂"), at(MaxDescription-1, "🙂") + "…"},
		{"removed characters do not count", at(MaxDescription, "x") + at(100, "\u200B"), at(MaxDescription, "x")},
		{"white space before the cut dropped", at(MaxDescription-3, "x") + " \n " + at(50, "y"), at(MaxDescription-3, "x") + "…"},
		{"60 KB", at(60_000, "ab "), strings.TrimRight(at(60_000, "ab ")[:MaxDescription-1], " ") + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := TruncateDescription(tt.in)
			if got != tt.want {
				t.Errorf("TruncateDescription(%.40q…) = %.40q… (%d runes), want %.40q… (%d runes)",
					tt.in, got, utf8.RuneCountInString(got), tt.want, utf8.RuneCountInString(tt.want))
			}
			if n := utf8.RuneCountInString(got); n > MaxDescription {
				t.Errorf("result has %d runes, more than %d", n, MaxDescription)
			}
			if !utf8.ValidString(got) {
				t.Error("result is not valid UTF-8")
			}
		})
	}
}
