package activity

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestResetIsDeclared: a reset deletes every row and says so, in its seal
// and in the new record's first row; Verify proves the new rows and says
// when the record was started anew. The same file deleted by hand, and
// started again by mcptray, still reads as replaced.
func TestResetIsDeclared(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 10)
	l := open(t, Options{Path: path, Keys: keys})
	deleted, err := l.Reset(t.Context(), "the command line")
	if err != nil || deleted != 10 {
		t.Fatalf("reset: %d, %v", deleted, err)
	}
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	rows, err := l.Query(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(rows, func(a, b Entry) int { return int(a.ID - b.ID) })
	if len(rows) != 2 || rows[0].Action != RecordReset || rows[0].App != "the command line" || rows[0].ID != 11 ||
		rows[0].TrustWords() != "the command line started the activity record anew: rows 1–10 before it were deleted" {
		t.Fatalf("the new record's rows: %+v", rows)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	res, words := verifyProblems(t, path, keys)
	lines := strings.Join(res.Lines(), "\n")
	if len(words) > 0 || len(res.Resets) != 1 || res.FirstID != 11 || res.SealedThrough != 12 ||
		!strings.Contains(lines, "Proven: rows 11–12") || !strings.Contains(lines, "Started anew on purpose on") || !strings.Contains(lines, "by the command line: rows 1–10 were deleted") {
		t.Errorf("verify after a reset: %q\n%s", words, lines)
	}

	// The file deleted by hand: the next mcptray starts one anew, and
	// Verify says that it is not the record sealed.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	l = open(t, Options{Path: path, Keys: keys})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	res, words = verifyProblems(t, path, keys)
	if res.Problem == nil || !slices.ContainsFunc(res.Problems, func(p Problem) bool { return p.Kind == Break && strings.Contains(p.Words, "replaced") }) {
		t.Errorf("the file deleted by hand: verify says %q", words)
	}
}

// TestResetNeedsTheKeys: a sealed record is not reset where its keys
// cannot be had (no keychain given, or a locked one): the reset could not
// be sealed, and would read as rows deleted by someone else.
func TestResetNeedsTheKeys(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 3)
	l := open(t, Options{Path: path})
	if _, err := l.Reset(t.Context(), "the command line"); err == nil || !strings.Contains(err.Error(), "could not say that it was yours") {
		t.Errorf("a reset without the keys: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, words := verifyProblems(t, path, keys); len(words) > 0 {
		t.Errorf("after a reset refused: %q", words)
	}
}
