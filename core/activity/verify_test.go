package activity

import (
	"path/filepath"
	"strconv"
	"testing"
)

// TestVerifySaysWhichRowsWent: rows removed from the middle, the start or
// the end of a record are named, first to last, in the problem and in its
// words; a record with no keychain counts its rows as chained with plain
// SHA-256.
func TestVerifySaysWhichRowsWent(t *testing.T) {
	cases := []struct {
		name, query string
		want        Problem
	}{
		{"from the middle", `DELETE FROM activity WHERE id BETWEEN 4 AND 6`, Problem{Kind: Removed, ID: 4, To: 6, Words: "rows 4–6 were removed"}},
		{"from the start", `DELETE FROM activity WHERE id <= 2`, Problem{Kind: FrontDeleted, ID: 1, To: 2, Words: "rows 1–2 were removed"}},
		{"from the end", `DELETE FROM activity WHERE id >= 9`, Problem{Kind: Truncated, ID: 9, To: 10, Words: "rows 9–10 were removed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "activity.db")
			l := open(t, Options{Path: path})
			for i := range 10 {
				l.RecordCall(call("Claude Code", "files", "t"+strconv.Itoa(i), Answered, Allowed, `{}`))
			}
			flush(t, l)
			if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil || res.Unkeyed != 10 {
				t.Fatalf("before: %+v %v", res, err)
			}
			tamper(t, path, c.query)
			res, err := l.Verify(t.Context())
			if err != nil || res.Problem == nil {
				t.Fatalf("verify: %+v %v", res, err)
			}
			c.want.Removed = true
			if *res.Problem != c.want {
				t.Errorf("got %+v, want %+v", *res.Problem, c.want)
			}
		})
	}
}
