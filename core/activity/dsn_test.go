package activity

import (
	"context"
	"path/filepath"
	"testing"
)

// TestOddPath: a folder whose name holds a space, a ?, a # and a % (which
// a file: URI would otherwise read as its own) holds the record.
func TestOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my data ?#% x")
	l := open(t, Options{Path: filepath.Join(dir, "activity.db")})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	r, err := Open(context.Background(), Options{Path: filepath.Join(dir, "activity.db"), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if rows, err := r.Query(t.Context(), Filter{}); err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
}
