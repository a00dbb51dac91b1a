package activity

import (
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"
)

// appendUnkeyed adds n rows after the newest, chained with plain SHA-256:
// what a program of the person's user can do without the record's key.
// When edit, it first changes the newest row and chains it anew too.
func appendUnkeyed(t *testing.T, path string, n int, edit bool) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var last Entry
	if err := scanEntry(db.QueryRow(`SELECT `+columns+` FROM activity ORDER BY id DESC LIMIT 1`), &last); err != nil {
		t.Fatal(err)
	}
	put := func(e *Entry) {
		t.Helper()
		if _, err := db.Exec(`INSERT OR REPLACE INTO activity (`+columns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			e.ID, e.Time.UnixNano(), e.Kind, e.App, e.Face, e.Server, e.Tool, int64(e.Duration), e.Outcome, e.Reason,
			e.Decision, e.ResultSize, e.Arguments, e.ArgumentsKept, e.Action, e.Target, e.Detail, e.prev, e.hash); err != nil {
			t.Fatal(err)
		}
	}
	if edit {
		last.Tool, last.Outcome = "delete_everything", Refused
		last.hash = hashOf(nil, last.prev, &last)
		put(&last)
	}
	prev := last.hash
	for i := range n {
		e := Entry{ID: last.ID + int64(i) + 1, Time: time.Now(), Kind: KindCall, App: "Claude Code", Face: "stdio",
			Server: "files", Tool: "read", Outcome: Answered, Decision: Allowed, Arguments: `{"path":"string"}`}
		e.prev = prev
		e.hash = hashOf(nil, prev, &e)
		prev = e.hash
		put(&e)
	}
	if _, err := db.Exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('head', ?)`, last.ID+int64(n)); err != nil {
		t.Fatal(err)
	}
}

// TestUnkeyedTailFailsVerify: a program without the record's key adds rows
// after the last seal, or changes the rows written since, chaining them
// with plain SHA-256 as an unsealed record's are. Verify names them, and
// still names them once the running mcptray, which has the key, has gone
// on from them and sealed over them.
func TestUnkeyedTailFailsVerify(t *testing.T) {
	keys := testKeys(t)
	for _, edit := range []bool{false, true} {
		path := sealedRecord(t, keys, 10)
		// Rows the writer wrote and did not seal yet (a killed mcptray's):
		// the forgery goes after them, or changes the newest of them.
		l := open(t, Options{Path: path, Keys: keys, SealEvery: time.Hour})
		l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
		l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
		flush(t, l) // Flush seals: rows 11 and 12 are sealed
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		appendUnkeyed(t, path, 2, edit)
		first := int64(13)
		if edit {
			first = 12
		}
		check := func(when string) {
			t.Helper()
			res, words := verifyProblems(t, path, keys)
			i := slices.IndexFunc(res.Problems, func(p Problem) bool { return p.Kind == Unkeyed })
			if i < 0 || res.Problems[i].ID != first || res.Problems[i].To != 14 {
				t.Errorf("edit %v, %s: verify says %q (%+v), want rows %d–14 named as written without the key", edit, when, words, res, first)
				return
			}
			if !strings.Contains(strings.Join(res.Lines(), "\n"), "without the record's key") {
				t.Errorf("edit %v, %s: the words do not say it: %q", edit, when, res.Lines())
			}
		}
		check("before mcptray goes on")
		l = open(t, Options{Path: path, Keys: keys})
		l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
		flush(t, l)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		check("sealed over")
	}
}
