package conn

import (
	"strings"
	"testing"
)

func TestObjectArguments(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "{}", ""},
		{"null", "{}", ""},
		{" null\n", "{}", ""},
		{`{"text":"hi", "n": 1}`, `{"text":"hi", "n": 1}`, ""}, // unchanged, spaces and order kept
		{` {"a":{"b":[1,2]}} `, `{"a":{"b":[1,2]}}`, ""},
		{`{"text":`, "", "not valid JSON"},
		{`{"a":1} {"b":2}`, "", "not valid JSON"},
		{`["hello"]`, "", "not a list or a single value"},
		{`"hello"`, "", "not a list or a single value"},
		{`42`, "", "not a list or a single value"},
	} {
		got, err := objectArguments([]byte(tc.in))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("objectArguments(%q): error %v, want one saying %q", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("objectArguments(%q): %v", tc.in, err)
		case tc.err == "" && string(got) != tc.want:
			t.Errorf("objectArguments(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
