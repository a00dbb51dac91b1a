package activity

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// These attacks leave every link of the chain as it was, and every seal the
// keychain remembers: only the keyed row check and the seals' own numbering
// and MACs show them. An attacker without the keys can make each of them.

// verifyProblems verifies the record at path with keys and returns its
// problems' words.
func verifyProblems(t *testing.T, path string, keys Keys) (VerifyResult, []string) {
	t.Helper()
	res, err := open(t, Options{Path: path, ReadOnly: true, Keys: keys}).Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, p := range res.Problems {
		words = append(words, p.Words)
	}
	return res, words
}

// TestRowEditedUnderItsHashFailsVerify: a row's content changed and its
// hash left alone keeps every link and every seal; the row's keyed hash
// is all that shows it.
func TestRowEditedUnderItsHashFailsVerify(t *testing.T) {
	for _, id := range []int{3, 20} { // a row in the middle, the newest sealed
		keys := testKeys(t)
		path := sealedRecord(t, keys, 20)
		tamper(t, path, `UPDATE activity SET outcome = 'refused', tool = 'delete' WHERE id = ?`, id)
		res, words := verifyProblems(t, path, keys)
		if res.Problem == nil || res.Problem.Kind != Changed || res.Problem.ID != int64(id) {
			t.Errorf("row %d edited under its hash: verify says %q (%+v)", id, words, res)
		}
	}
}

// sealLines reads the seals file of the record at path, one seal a line.
func sealLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(sealsPath(path))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func writeSealLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(sealsPath(path), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSealsFileAttacksFailVerify: each way of editing the seals file is
// said, in words that name what was done.
func TestSealsFileAttacksFailVerify(t *testing.T) {
	attacks := []struct {
		name string
		edit func(lines []string) []string // nil: the file is removed
		says string
	}{
		{"the oldest seals removed", func(l []string) []string { return l[2:] }, "seals 1 to 2 were removed from the seals file"},
		{"a seal removed from the middle", func(l []string) []string { return append(l[:2:2], l[3:]...) }, "seal 3 was removed from the seals file"},
		{"the newest seals cut", func(l []string) []string { return l[:len(l)-2] }, "the seals file was cut back"},
		{"a seal's row moved", func(l []string) []string {
			l[2] = strings.Replace(l[2], `"head":`, `"head":1`, 1)
			return l
		}, "seal 3 was changed or forged"},
		{"two seals swapped", func(l []string) []string {
			l[1], l[2] = l[2], l[1]
			return l
		}, "seal 2 comes after seal 3"},
		{"a line that is no seal", func(l []string) []string { return append(l[:1:1], append([]string{"{not a seal"}, l[1:]...)...) }, "1 lines of the seals file are not seals"},
		{"the newest seal written out anew", func(l []string) []string {
			l[len(l)-1] = strings.Replace(l[len(l)-1], `{"n":`, `{ "n":`, 1) // the same seal, another line
			return l
		}, "is not the one the keychain remembers"},
		{"the seals file removed", nil, "the seals file was removed"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			keys := testKeys(t)
			path := sealedRecord(t, keys, 20)
			if lines := sealLines(t, path); len(lines) < 5 {
				t.Fatalf("the record has %d seals, the test needs 5", len(lines))
			}
			if a.edit == nil {
				if err := os.Remove(sealsPath(path)); err != nil {
					t.Fatal(err)
				}
			} else {
				writeSealLines(t, path, a.edit(sealLines(t, path)))
			}
			res, words := verifyProblems(t, path, keys)
			if res.Problem == nil || !strings.Contains(strings.Join(words, "\n"), a.says) {
				t.Errorf("verify does not say %q: %q", a.says, words)
			}
			for _, p := range res.Problems {
				if p.Kind != SealsAltered {
					t.Errorf("only the seals were edited, yet verify says the rows were: %+v", p)
				}
			}
		})
	}
}

// TestSealedRecordWithoutItsKeysSaysSo: a sealed record read where its
// keys are not at hand (no keychain) has its links checked, not its rows'
// content, and says so rather than that all is well.
func TestSealedRecordWithoutItsKeysSaysSo(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 20)
	res, err := open(t, Options{Path: path, ReadOnly: true}).Verify(t.Context())
	if err != nil || res.Problem != nil || res.Sealed || res.Unchecked != 20 {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if got := strings.Join(res.Lines(), "\n"); !strings.Contains(got, "20 rows are chained with the record's key") || !strings.Contains(got, "not their content") {
		t.Errorf("words: %s", got)
	}
	// A row changed under its hash is as unchecked as the rest, and the
	// words say that no row's content was checked.
	tamper(t, path, `UPDATE activity SET outcome = 'refused' WHERE id = 3`)
	if res, err := open(t, Options{Path: path, ReadOnly: true}).Verify(t.Context()); err != nil || res.Problem != nil || res.Unchecked != 20 {
		t.Errorf("verify after an edit: %+v %v", res, err)
	}
}

// TestSealedRowsAreKeyed: a sealed record's rows are chained with its key,
// not with a hash anyone can recompute from the file.
func TestSealedRowsAreKeyed(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 5)
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT ` + columns + ` FROM activity ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var e Entry
		if err := scanEntry(rows, &e); err != nil {
			t.Fatal(err)
		}
		if n++; bytes.Equal(e.hash, oldHash(e.prev, &e)) || bytes.Equal(e.hash, hashOf(nil, e.prev, &e)) {
			t.Errorf("row %d is chained with plain SHA-256", e.ID)
		}
	}
	if err := rows.Err(); err != nil || n != 5 {
		t.Fatalf("read %d rows: %v", n, err)
	}
}

// TestSealedRecordSaysWhichRowsWent: rows the seals vouch for and that
// are gone are named, first to last, whichever end they went from.
func TestSealedRecordSaysWhichRowsWent(t *testing.T) {
	cases := []struct {
		name, query string
		want        Problem
	}{
		{"the newest", `DELETE FROM activity WHERE id >= 15`, Problem{Kind: Truncated, ID: 15, To: 20}},
		{"the newest one", `DELETE FROM activity WHERE id = 20`, Problem{Kind: Truncated, ID: 20, To: 20}},
		{"the oldest", `DELETE FROM activity WHERE id <= 6`, Problem{Kind: FrontDeleted, ID: 1, To: 6}},
		{"every row", `DELETE FROM activity`, Problem{Kind: Emptied, ID: 1, To: 20}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keys := testKeys(t)
			path := sealedRecord(t, keys, 20)
			tamper(t, path, c.query)
			res, words := verifyProblems(t, path, keys)
			if res.Problem == nil || res.Problem.Kind != c.want.Kind || res.Problem.ID != c.want.ID || res.Problem.To != c.want.To {
				t.Errorf("got %q %+v, want %+v", words, res.Problem, c.want)
			}
			if c.want.Kind == Truncated && !strings.Contains(words[0], map[bool]string{true: " is missing", false: " are missing"}[c.want.ID == c.want.To]) {
				t.Errorf("words: %q", words)
			}
		})
	}
}

// TestFirstRowMustFollowWhatRetentionDeleted: after retention deleted the
// oldest rows, the first row left must follow the last one deleted, as
// the seals say; rows chained anew from elsewhere, even with the chain's
// key, do not.
func TestFirstRowMustFollowWhatRetentionDeleted(t *testing.T) {
	keys := testKeys(t)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "activity.db")
	l := open(t, Options{Path: path, Keys: keys, Now: func() time.Time { return now }})
	for _, age := range []int{100, 99, 98, 2, 1, 0} { // days
		c := call("Claude Code", "files", "read", Answered, Allowed, `{}`)
		c.Time = now.Add(-time.Duration(age) * 24 * time.Hour)
		l.RecordCall(c)
	}
	flush(t, l)
	l.SetSettings(Settings{}) // 90 days: rows 1-3 go
	flush(t, l)
	if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil || res.FirstID != 4 {
		t.Fatalf("after retention: %+v %v", res, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Rows 4-6 chained anew from another row 3, with the chain's key
	// taken from the keychain.
	var st sealState
	if err := getJSON(t.Context(), keys, itemsFor(path).state, &st); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT ` + columns + ` FROM activity ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var all []Entry
	for rows.Next() {
		var e Entry
		if err := scanEntry(rows, &e); err != nil {
			t.Fatal(err)
		}
		all = append(all, e)
	}
	rows.Close()
	prev := make([]byte, 32)
	for i := range all {
		all[i].prev, all[i].hash = prev, hashOf(st.Chain, prev, &all[i])
		prev = all[i].hash
		if _, err := db.Exec(`UPDATE activity SET prev = ?, hash = ? WHERE id = ?`, all[i].prev, all[i].hash, all[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	res, words := verifyProblems(t, path, keys)
	if !slices.ContainsFunc(res.Problems, func(p Problem) bool {
		return p.Kind == Changed && p.ID == 4 && strings.Contains(p.Words, "row 4 does not follow the last row retention deleted")
	}) {
		t.Errorf("verify does not say that row 4 does not follow row 3: %q", words)
	}
}
