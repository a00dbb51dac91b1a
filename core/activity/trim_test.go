package activity

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// simulatedTrims runs the writer's trimming over a year of seals, one
// every every, with rowsPerSeal rows each and retention of days, as
// trimSeals does it (when the file has doubled since the last trim, at
// least trimAtLeast), with lineSize bytes a seal. It checks after each
// trim that Verify would take every gap as trimmed, and returns the
// seals file's largest size and the seals left.
func simulatedTrims(t *testing.T, every time.Duration, rowsPerSeal int64, days int, lineSize int64) (largest int64, left []seal) {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(1, 0, 0)
	var file []seal
	var size, trimmedSize, dropped int64
	trims := 0
	n, head := int64(0), int64(0)
	for now := start; now.Before(end); now = now.Add(every) {
		n++
		head += rowsPerSeal
		// Retention deleted the rows older than days: rowsPerSeal a seal.
		pruned := max(0, head-int64(days)*int64(24*time.Hour/every)*rowsPerSeal)
		file = append(file, seal{N: n, Time: now.UnixNano(), Head: head, Pruned: pruned})
		size += lineSize
		largest = max(largest, size)
		if size < max(trimAtLeast, 2*trimmedSize) {
			continue
		}
		keep, drop := planTrim(file, now, pruned)
		kept := file[:0]
		for i, s := range file {
			if keep[i] {
				kept = append(kept, s)
			}
		}
		dropped += drop
		n++
		kept = append(kept, seal{N: n, Time: now.UnixNano(), Head: head, Pruned: pruned, Dropped: dropped})
		file = kept
		size = int64(len(file)) * lineSize
		trimmedSize = size
		if trims++; trims%16 != 0 {
			continue // every trim's file is checked in TestTrimmedSealsVerify; here, some
		}
		if got, problems := gapProblems(file, gapsOf(file), pruned); got != dropped || len(problems) > 0 {
			t.Fatalf("%s: after a trim, verify would say %v (dropped %d, declared %d)", now.Format(time.DateTime), problems, dropped, got)
		}
	}
	if got, problems := gapProblems(file, gapsOf(file), file[len(file)-1].Pruned); got != dropped || len(problems) > 0 {
		t.Fatalf("at the end, verify would say %v (dropped %d, declared %d)", problems, dropped, got)
	}
	return largest, file
}

// gapsOf are the runs of missing seals between seals, as checkSeals
// finds them.
func gapsOf(seals []seal) []sealGap {
	var gaps []sealGap
	for i, s := range seals {
		g := sealGap{from: 1, to: s.N - 1, next: s}
		if i > 0 {
			g.from, g.prev = seals[i-1].N+1, &seals[i-1]
		}
		if g.to >= g.from {
			gaps = append(gaps, g)
		}
	}
	return gaps
}

// TestSealsFileYear: a year of a busy mcptray, sealing every 5 s all day
// long (the most the writer seals), keeps the seals file within the
// record's own size limit (DefaultMaxMB), and every trim leaves a file
// that Verify takes as trimmed. A year of untrimmed seals would be some
// 1.8 GB.
func TestSealsFileYear(t *testing.T) {
	sample := seal{N: 6_307_200, Time: time.Now().UnixNano(), Every: 5000, Pruned: 1_000_000_000, Head: 1_000_000_000,
		PrunedHash: bytes.Repeat([]byte{0xff}, sha256.Size), Hash: bytes.Repeat([]byte{0xff}, sha256.Size), MAC: bytes.Repeat([]byte{0xff}, sha256.Size)}
	lineSize := int64(len(sample.line()) + 1)
	largest, left := simulatedTrims(t, DefaultSealEvery, 20, DefaultDays, lineSize)
	if limit := int64(DefaultMaxMB * 1e6); largest > limit {
		t.Errorf("the seals file grew to %d bytes in a year, over the record's %d", largest, limit)
	}
	t.Logf("a year: the seals file at most %.1f MB, %d seals left (%d bytes a seal)", float64(largest)/1e6, len(left), lineSize)
	// The seals left still vouch for the rows left: the last day's all,
	// then one in trimBlock, back to what retention kept.
	last := time.Unix(0, left[len(left)-1].Time)
	var day, older int
	for _, s := range left {
		if last.Sub(time.Unix(0, s.Time)) < trimKeepAll {
			day++
		} else {
			older++
		}
	}
	perDay := int(24 * time.Hour / DefaultSealEvery)
	if day < perDay || older < (DefaultDays-1)*perDay/trimBlock {
		t.Errorf("the seals left: %d of the last day, %d older", day, older)
	}
}

// trimmedRecord writes a record over days of a fake clock, each day an
// hour of calls with perDay seals, with retention of keep days and a
// small trimming size, and returns its path.
func trimmedRecord(t *testing.T, keys Keys, days, perDay, keep int) string {
	t.Helper()
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	l := open(t, Options{Keys: keys, Now: now, Settings: Settings{Days: keep}, trimAt: 4 << 10})
	path := l.opts.Path
	for range days {
		clock = clock.Add(24*time.Hour - time.Hour)
		l.SetSettings(Settings{Days: keep}) // retention, then the trim, at the next flush
		for range perDay {
			clock = clock.Add(time.Hour / time.Duration(perDay))
			c := call("Claude Code", "files", "read", Answered, Allowed, `{}`)
			c.Time = clock
			l.RecordCall(c)
			flush(t, l)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTrimmedSealsVerify: the writer trims the seals file as it goes,
// and Verify takes the trims as declared; seals removed by hand beside
// a trim still show, and so does the trim's own seal removed.
func TestTrimmedSealsVerify(t *testing.T) {
	keys := testKeys(t)
	for _, c := range []struct {
		name               string
		days, perDay, keep int
	}{
		{"seals of deleted rows", 14, 5, 5},
		{"old seals thinned", 12, 12, 30},
	} {
		t.Run(c.name, func(t *testing.T) { trimmedSealsVerify(t, keys, c.days, c.perDay, c.keep) })
	}
}

func trimmedSealsVerify(t *testing.T, keys Keys, days, perDay, keep int) {
	path := trimmedRecord(t, keys, days, perDay, keep)
	res, words := verifyProblems(t, path, keys)
	lines := sealLines(t, path)
	if len(words) > 0 || res.SealsDropped == 0 || int64(len(lines))+res.SealsDropped < int64(days*perDay) {
		t.Fatalf("a trimmed record: verify says %q, %d seals dropped, %d left (%+v)", words, res.SealsDropped, len(lines), res)
	}
	t.Logf("%d seals left, %d dropped", len(lines), res.SealsDropped)
	trimIdx := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"dropped":`) })
	for _, c := range []struct {
		name string
		drop func(lines []string) []string
	}{
		{"an old seal beside a trim's gaps", func(l []string) []string { return slices.Delete(l, 1, 2) }},
		{"a seal of the last day", func(l []string) []string { return slices.Delete(l, len(l)-3, len(l)-2) }},
		{"the trim's own seal", func(l []string) []string {
			// Every trim's seal: the gaps are then declared by none.
			return slices.DeleteFunc(l, func(s string) bool { return strings.Contains(s, `"dropped":`) })
		}},
	} {
		if trimIdx < 0 {
			t.Fatal("no trim's seal in the file")
		}
		writeSealLines(t, path, c.drop(slices.Clone(lines)))
		res, words := verifyProblems(t, path, keys)
		if res.Problem == nil || !slices.ContainsFunc(res.Problems, func(p Problem) bool { return p.Kind == SealsAltered }) {
			t.Errorf("%s removed by hand: verify says %q", c.name, words)
		}
		writeSealLines(t, path, lines)
	}
	if _, words := verifyProblems(t, path, keys); len(words) > 0 {
		t.Errorf("the seals put back: %q", words)
	}
}

// TestStolenStateCannotTrimThePast: someone who took the sealing state
// (the keychain's sealing item: the next seal's key and the chain's key)
// changes an old row, chains every row after it anew with the chain's
// key, drops every seal that vouches for the old rows, and seals the
// result with a trim's seal of their own, timed as they like. Verify
// does not take that as a trim: the seals they dropped are not inside
// one block of trimBlock numbers.
func TestStolenStateCannotTrimThePast(t *testing.T) {
	keys := testKeys(t)
	path := filepath.Join(t.TempDir(), "activity.db")
	l := open(t, Options{Path: path, Keys: keys})
	for range 2*trimBlock + 10 {
		l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
		flush(t, l) // a seal a row
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var st sealState
	if err := getJSON(t.Context(), keys, itemsFor(path).state, &st); err != nil {
		t.Fatal(err)
	}
	const changed = 30
	tamper(t, path, `UPDATE activity SET tool = 'delete_repo' WHERE id = ?`, changed)
	head, hash := rechain(t, path, st.Chain)
	seals, lines, _, err := readSeals(path)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for i, s := range seals {
		if s.Head < changed {
			kept = append(kept, lines[i])
		}
	}
	// A seal timed just after the last one kept, then the trim's seal a
	// month later: by time, every seal they dropped would look old.
	last, _ := parseSeal(kept[len(kept)-1])
	j := seal{N: st.Next, Time: last.Time + 1, Every: 5000, Head: head, Hash: hash}
	j.MAC = macOf(st.Key, st.Record, j)
	st.Next, st.Key = st.Next+1, ratchet(st.Key)
	forged := seal{N: st.Next, Time: time.Now().Add(30 * 24 * time.Hour).UnixNano(), Every: 5000, Head: head, Hash: hash,
		Dropped: j.N - 1 - int64(len(kept))}
	forged.MAC = macOf(st.Key, st.Record, forged)
	writeSealLines(t, path, append(kept, j.line(), forged.line()))
	st.Next, st.Key, st.Last = st.Next+1, ratchet(st.Key), forged.line()
	if err := setJSON(t.Context(), keys, itemsFor(path).state, st); err != nil {
		t.Fatal(err)
	}
	res, words := verifyProblems(t, path, keys)
	if res.Problem == nil || !slices.ContainsFunc(res.Problems, func(p Problem) bool { return p.Kind == SealsAltered }) {
		t.Errorf("a forged trim over a changed row: verify says %q (%+v)", words, res)
	}
	t.Logf("verify: %q", words)
}

// rechain chains every row anew from the first one's prev with key, as
// the writer does, and returns the newest row and its hash.
func rechain(t *testing.T, path string, key []byte) (int64, []byte) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, false))
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
	prev := all[0].prev
	for i := range all {
		e := &all[i]
		e.prev, e.hash = prev, hashOf(key, prev, e)
		prev = e.hash
		if _, err := db.Exec(`UPDATE activity SET prev = ?, hash = ? WHERE id = ?`, e.prev, e.hash, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	return all[len(all)-1].ID, prev
}
