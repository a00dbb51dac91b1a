package activity

import (
	"bytes"
	"crypto/sha256"
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
		if got, problems := gapProblems(file, gapsOf(file)); got != dropped || len(problems) > 0 {
			t.Fatalf("%s: after a trim, verify would say %v (dropped %d, declared %d)", now.Format(time.DateTime), problems, dropped, got)
		}
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
	// then one an hour, then one a day, back to what retention kept.
	last := time.Unix(0, left[len(left)-1].Time)
	var day, hourly int
	for _, s := range left {
		switch age := last.Sub(time.Unix(0, s.Time)); {
		case age < trimKeepAll:
			day++
		case age < trimHourly:
			hourly++
		}
	}
	if day < int(trimKeepAll/DefaultSealEvery)/2 || hourly < 24*28 {
		t.Errorf("the seals left: %d of the last day, %d hourly", day, hourly)
	}
}

// trimmedRecord writes a record over three weeks of a fake clock, each
// day an hour of calls with a seal every ten minutes, with retention of
// ten days and a small trimming size, and returns its path.
func trimmedRecord(t *testing.T, keys Keys) (path string, now func() time.Time) {
	t.Helper()
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	now = func() time.Time { return clock }
	l := open(t, Options{Keys: keys, Now: now, Settings: Settings{Days: 10}, trimAt: 4 << 10})
	path = l.opts.Path
	for range 21 {
		clock = clock.Add(24*time.Hour - time.Hour)
		l.SetSettings(Settings{Days: 10}) // retention, then the trim, at the next flush
		for range 6 {
			clock = clock.Add(10 * time.Minute)
			c := call("Claude Code", "files", "read", Answered, Allowed, `{}`)
			c.Time = clock
			l.RecordCall(c)
			flush(t, l)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path, now
}

// TestTrimmedSealsVerify: the writer trims the seals file as it goes,
// and Verify takes the trims as declared; seals removed by hand beside
// a trim still show, and so does the trim's own seal removed.
func TestTrimmedSealsVerify(t *testing.T) {
	keys := testKeys(t)
	path, _ := trimmedRecord(t, keys)
	res, words := verifyProblems(t, path, keys)
	lines := sealLines(t, path)
	if len(words) > 0 || res.SealsDropped == 0 || int64(len(lines))+res.SealsDropped < 21*6 {
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
