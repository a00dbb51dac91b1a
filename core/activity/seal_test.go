package activity

import (
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/keychain"
	"github.com/zalando/go-keyring"
)

// These tests attack the record as someone who has read this package would,
// against a real SQLite file and the real keychain: on Linux the Secret
// Service that make test starts (gnome-keyring, unlocked, in a private D-Bus
// session), under a service name of the test's own, removed at the end. The
// person's own keychain items are never touched.

// testKeys is a keychain on a throwaway service name.
func testKeys(t *testing.T) Keys {
	t.Helper()
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		if os.Getenv("CI") == "" {
			t.Skip("no D-Bus session bus: run make test, which starts one with an unlocked gnome-keyring")
		}
		t.Fatal("no D-Bus session bus: run make test, which starts one with an unlocked gnome-keyring")
	}
	service := "mcptray-test-" + rand.Text()
	t.Cleanup(func() {
		if err := keyring.DeleteAll(service); err != nil {
			t.Errorf("removing the test's keychain items: %v", err)
		}
	})
	return keychain.New(service)
}

// sealedRecord writes n rows to a new record sealed with keys, closes it,
// and returns its path.
func sealedRecord(t *testing.T, keys Keys, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "activity.db")
	l := open(t, Options{Path: path, Keys: keys})
	for i := range n {
		l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{"i":`+string(rune('0'+i%10))+`}`))
		if i%5 == 4 {
			flush(t, l) // one seal per batch of five
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// oldHash is the chain as it was before it was keyed: plain SHA-256 over
// public content, which anyone can recompute.
func oldHash(prev []byte, e *Entry) []byte {
	c := canon{ID: e.ID, Time: e.Time.UnixNano(), Kind: e.Kind, App: e.App, Face: e.Face, Server: e.Server,
		Tool: e.Tool, Duration: int64(e.Duration), Outcome: string(e.Outcome), Reason: e.Reason,
		Decision: string(e.Decision), ResultSize: int64(e.ResultSize), Arguments: e.Arguments,
		ArgumentsKept: e.ArgumentsKept, Action: string(e.Action), Target: e.Target, Detail: e.Detail}
	b, _ := json.Marshal(c)
	h := sha256.New()
	h.Write(prev)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
	return h.Sum(nil)
}

// recompute renumbers the rows 1… (when renumber) and recomputes every
// row's prev and hash with plain SHA-256 from the first row's prev, then
// sets meta.head to the last: what an attacker does after changing rows.
func recompute(t *testing.T, path string, renumber bool) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
	if _, err := db.Exec(`DELETE FROM activity`); err != nil {
		t.Fatal(err)
	}
	var prev []byte
	for i := range all {
		e := &all[i]
		if renumber {
			e.ID = int64(i + 1)
		}
		if prev == nil {
			prev = e.prev
		}
		e.prev, e.hash = prev, oldHash(prev, e)
		prev = e.hash
		if _, err := db.Exec(`INSERT INTO activity (`+columns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			e.ID, e.Time.UnixNano(), e.Kind, e.App, e.Face, e.Server, e.Tool, int64(e.Duration), e.Outcome, e.Reason,
			e.Decision, e.ResultSize, e.Arguments, e.ArgumentsKept, e.Action, e.Target, e.Detail, e.prev, e.hash); err != nil {
			t.Fatal(err)
		}
	}
	if len(all) > 0 {
		if _, err := db.Exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('head', ?)`, all[len(all)-1].ID); err != nil {
			t.Fatal(err)
		}
	}
}

// copyRecord copies the record's file (and its WAL, if any) from src to dst.
func copyRecord(t *testing.T, src, dst string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(dst + suffix)
		in, err := os.Open(src + suffix)
		if err != nil {
			continue
		}
		out, err := os.Create(dst + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
}

// TestAttacksFailVerify: each way of altering the record that the chain
// alone did not show fails Verify once the record is keyed and sealed.
func TestAttacksFailVerify(t *testing.T) {
	attacks := []struct {
		name   string
		want   ProblemKind
		attack func(t *testing.T, path string, keys Keys)
	}{
		{"newest rows deleted, meta.head moved", Truncated, func(t *testing.T, path string, _ Keys) {
			tamper(t, path, `DELETE FROM activity WHERE id > 14`)
			tamper(t, path, `UPDATE meta SET value = 14 WHERE key = 'head'`)
		}},
		{"oldest rows deleted, pruned set", FrontDeleted, func(t *testing.T, path string, _ Keys) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			var h []byte
			if err := db.QueryRow(`SELECT hash FROM activity WHERE id = 6`).Scan(&h); err != nil {
				t.Fatal(err)
			}
			db.Close()
			tamper(t, path, `DELETE FROM activity WHERE id <= 6`)
			tamper(t, path, `INSERT OR REPLACE INTO meta (key, value) VALUES ('pruned', 6)`)
			tamper(t, path, `INSERT OR REPLACE INTO meta (key, value) VALUES ('pruned-hash', ?)`, h)
		}},
		{"every row deleted", Emptied, func(t *testing.T, path string, _ Keys) {
			tamper(t, path, `DELETE FROM activity`)
			tamper(t, path, `DELETE FROM meta WHERE key IN ('head', 'pruned', 'pruned-hash')`)
		}},
		{"a row edited, the chain recomputed", Rewritten, func(t *testing.T, path string, _ Keys) {
			tamper(t, path, `UPDATE activity SET outcome = 'refused' WHERE id = 3`)
			recompute(t, path, false)
		}},
		{"a row deleted, the chain recomputed", Rewritten, func(t *testing.T, path string, _ Keys) {
			tamper(t, path, `DELETE FROM activity WHERE id = 9`)
			recompute(t, path, true)
		}},
		{"the file replaced by an older copy", Truncated, func(t *testing.T, path string, keys Keys) {
			older := filepath.Join(t.TempDir(), "older.db")
			copyRecord(t, path, older)
			l := open(t, Options{Path: path, Keys: keys})
			for range 5 {
				l.RecordCall(call("Cursor", "files", "write", Answered, Allowed, `{}`))
			}
			flush(t, l)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			copyRecord(t, older, path)
		}},
		{"the file replaced by a fresh one", Replaced, func(t *testing.T, path string, _ Keys) {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(path + suffix)
			}
			l := open(t, Options{Path: path}) // the attacker has no key
			for range 20 {
				l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			keys := testKeys(t)
			path := sealedRecord(t, keys, 20)
			a.attack(t, path, keys)
			l := open(t, Options{Path: path, ReadOnly: true, Keys: keys})
			res, err := l.Verify(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var kinds []ProblemKind
			for _, p := range res.Problems {
				kinds = append(kinds, p.Kind)
			}
			if !slices.Contains(kinds, a.want) {
				t.Errorf("verify does not say %s: %+v", a.want, res)
			}
			t.Logf("verify: %s", strings.Join(res.Lines(), "\n"))
		})
	}
	_ = time.Now
}

// TestSealedRecordSaysWhatIsProven: an untouched sealed record is proven
// from its first row to the last sealed, and says so; retention's
// deletions, sealed before they are made, are not taken for an attack;
// the chain goes on from them.
func TestSealedRecordSaysWhatIsProven(t *testing.T) {
	keys := testKeys(t)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "activity.db")
	l := open(t, Options{Path: path, Keys: keys, Now: func() time.Time { return now }})
	for _, age := range []int{100, 95, 91, 89, 10, 0} { // days
		c := call("Claude Code", "files", "read", Answered, Allowed, `{}`)
		c.Time = now.Add(-time.Duration(age) * 24 * time.Hour)
		l.RecordCall(c)
	}
	flush(t, l)
	res, err := l.Verify(t.Context())
	if err != nil || res.Problem != nil || !res.Sealed || res.SealedThrough != 6 || res.Unkeyed != 0 {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if got := strings.Join(res.Lines(), "\n"); !strings.HasPrefix(got, "Proven: rows 1–6, 21 Feb – 1 Jun, sealed every 5 s") {
		t.Errorf("words: %s", got)
	}
	l.SetSettings(Settings{}) // 90 days: rows 1-3 go
	flush(t, l)
	c := call("Claude Code", "files", "read", Answered, Allowed, `{}`)
	c.Time = now
	l.RecordCall(c)
	flush(t, l)
	res, err = l.Verify(t.Context())
	if err != nil || res.Problem != nil || res.FirstID != 4 || res.SealedThrough != 7 {
		t.Fatalf("verify after retention: %+v %v", res, err)
	}
	if got := strings.Join(res.Lines(), "\n"); !strings.HasPrefix(got, "Proven: rows 4–7") {
		t.Errorf("words: %s", got)
	}
	// Retention deleting every row is no attack either.
	l.SetSettings(Settings{Days: 1})
	now = now.Add(48 * time.Hour)
	flush(t, l)
	if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil || res.Rows != 0 {
		t.Fatalf("verify after retention deleted all: %+v %v", res, err)
	}
}

// TestNoKeychainSaysNotSealed: without a keychain the record is chained,
// and says that it is not sealed.
func TestNoKeychainSaysNotSealed(t *testing.T) {
	l := open(t, Options{})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	res, err := l.Verify(t.Context())
	if err != nil || res.Problem != nil || res.Sealed {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if got := strings.Join(res.Lines(), "\n"); !strings.Contains(got, "chained but not sealed") {
		t.Errorf("words: %s", got)
	}
}

// TestStolenSealingStateCannotRewriteThePast: whoever takes the sealing
// state from the keychain today (the chain's key and the next seal's key)
// can rewrite rows and chain them with the key, and seal the result; the
// seals made before, under keys that cannot be computed from today's,
// still show it.
func TestStolenSealingStateCannotRewriteThePast(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 20)
	var st sealState
	if err := getJSON(t.Context(), keys, itemsFor(path).state, &st); err != nil {
		t.Fatal(err)
	}
	// Row 3 changed, the chain recomputed with the chain's key.
	tamper(t, path, `UPDATE activity SET outcome = 'refused' WHERE id = 3`)
	db, err := sql.Open("sqlite", path)
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
	prev := genesis
	for i := range all {
		all[i].prev, all[i].hash = prev, hashOf(st.Chain, prev, &all[i])
		prev = all[i].hash
		if _, err := db.Exec(`UPDATE activity SET prev = ?, hash = ? WHERE id = ?`, all[i].prev, all[i].hash, all[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	// And sealed with the stolen key, the keychain's state moved on.
	s := seal{N: st.Next, Time: time.Now().UnixNano(), Every: 5000, Head: 20, Hash: prev}
	s.MAC = macOf(st.Key, st.Record, s)
	f, err := os.OpenFile(sealsPath(path), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s.line() + "\n")
	f.Close()
	st.Next, st.Key, st.Last = st.Next+1, ratchet(st.Key), s.line()
	if err := setJSON(t.Context(), keys, itemsFor(path).state, st); err != nil {
		t.Fatal(err)
	}

	l := open(t, Options{Path: path, ReadOnly: true, Keys: keys})
	res, err := l.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem == nil || res.Problem.Kind != Rewritten || res.Problem.ID != 5 {
		t.Errorf("verify: %+v", res)
	}
}

// TestSealInFileNotInKeychain: a writer stopped between writing a seal
// and keeping the next key in the keychain leaves a record that verifies,
// and the next writer goes on from the seal in the file.
func TestSealInFileNotInKeychain(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 5)
	before, err := keys.Get(t.Context(), itemsFor(path).state)
	if err != nil {
		t.Fatal(err)
	}
	l := open(t, Options{Path: path, Keys: keys})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := keys.Set(t.Context(), itemsFor(path).state, before); err != nil { // as if it had stopped
		t.Fatal(err)
	}
	check := func(want int64) {
		t.Helper()
		r := open(t, Options{Path: path, ReadOnly: true, Keys: keys})
		res, err := r.Verify(t.Context())
		if err != nil || res.Problem != nil || res.SealedThrough != want {
			t.Errorf("verify: %+v %v", res, err)
		}
	}
	check(6)
	l = open(t, Options{Path: path, Keys: keys})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	check(7)
}

// TestWriterSealsABreak: mcptray started on a file put back to an older
// copy goes on recording, and seals that it found the record so: verify
// says so after new rows were written and sealed.
func TestWriterSealsABreak(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 5)
	older := filepath.Join(t.TempDir(), "older.db")
	copyRecord(t, path, older)
	l := open(t, Options{Path: path, Keys: keys})
	for range 5 {
		l.RecordCall(call("Cursor", "files", "write", Answered, Allowed, `{}`))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	copyRecord(t, older, path)
	l = open(t, Options{Path: path, Keys: keys})
	for range 8 {
		l.RecordCall(call("Cursor", "files", "write", Answered, Allowed, `{}`))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	r := open(t, Options{Path: path, ReadOnly: true, Keys: keys})
	res, err := r.Verify(t.Context())
	if err != nil || res.Problem == nil || res.Problem.Kind != Break {
		t.Fatalf("verify: %+v %v", res, err)
	}
	t.Log(strings.Join(res.Lines(), "\n"))
}

// TestRecordsKeepTheirOwnSeals: two records in one keychain (two homes of
// one person, or the tests' many mcptrays) seal in turns, each in its own
// run of seals: neither verify finds the other's seals missing from its
// file.
func TestRecordsKeepTheirOwnSeals(t *testing.T) {
	keys := testKeys(t)
	a := open(t, Options{Path: filepath.Join(t.TempDir(), "activity.db"), Keys: keys})
	b := open(t, Options{Path: filepath.Join(t.TempDir(), "activity.db"), Keys: keys})
	for range 3 {
		for _, l := range []*Log{a, b} {
			l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
			flush(t, l)
		}
	}
	for name, l := range map[string]*Log{"first": a, "second": b} {
		res, err := l.Verify(t.Context())
		if err != nil || res.Problem != nil || !res.Sealed || res.Rows != 3 || res.SealedThrough != 3 {
			t.Errorf("the %s record: %+v %v", name, res, err)
		}
	}
}

// TestLegacyKeysAdopted: a record sealed when every record's keys were
// kept in one pair of items verifies as it is, and its next writer moves
// the keys to its own items; another record's legacy keys stay where they
// are.
func TestLegacyKeysAdopted(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 5)
	own := itemsFor(path)
	for _, k := range [][2]secret.Key{{own.verify, legacyItems.verify}, {own.state, legacyItems.state}} {
		b, err := keys.Get(t.Context(), k[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := keys.Set(t.Context(), k[1], b); err != nil {
			t.Fatal(err)
		}
		if err := keys.Delete(t.Context(), k[0]); err != nil {
			t.Fatal(err)
		}
	}
	verify := func(l *Log, rows int64) {
		t.Helper()
		res, err := l.Verify(t.Context())
		if err != nil || res.Problem != nil || !res.Sealed || res.Rows != rows {
			t.Fatalf("verify: %+v %v", res, err)
		}
	}
	other := open(t, Options{Path: filepath.Join(t.TempDir(), "activity.db"), Keys: keys})
	other.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, other)
	if _, err := keys.Get(t.Context(), legacyItems.verify); err != nil {
		t.Fatalf("another record took the legacy keys: %v", err)
	}

	ro := open(t, Options{Path: path, Keys: keys, ReadOnly: true})
	verify(ro, 5)
	l := open(t, Options{Path: path, Keys: keys})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	verify(l, 6)
	if _, err := keys.Get(t.Context(), legacyItems.verify); !errors.Is(err, secret.ErrNotFound) {
		t.Fatalf("the legacy keys stayed after the writer moved them: %v", err)
	}
}

// TestMovedRecordSaysSo: a sealed record copied to another folder is not
// said to be as written, nor to have been written without a keychain.
func TestMovedRecordSaysSo(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 5)
	moved := filepath.Join(t.TempDir(), "activity.db")
	copyRecord(t, path, moved)
	res, err := open(t, Options{Path: moved, Keys: keys, ReadOnly: true}).Verify(t.Context())
	if err != nil || res.Sealed || !strings.Contains(res.NotSealed, "moved or copied here") {
		t.Fatalf("verify: %+v %v", res, err)
	}
}
