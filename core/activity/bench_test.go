package activity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkMillion measures the record at 1,000,000 calls spread over 90
// days (20 servers, 5 apps): filtering one server's calls over a day
// (query=server-day, the newest 500 as the window shows them), the apps,
// servers and tools of a day for the window's filters (names=day), today's
// summary (summary=day), and the file's size with its WAL
// (MB/million-rows). Goal: each query ≤ 50 ms. Filling the record takes a while; it is made once per
// run.
//
//	go test -run '^$' -bench Million -benchtime 20x ./core/activity
func BenchmarkMillion(b *testing.B) {
	const rows = 1_000_000
	now := time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)
	path := filepath.Join(b.TempDir(), "activity.db")
	ctx := context.Background()
	l, err := Open(ctx, Options{Path: path, BatchRows: 5000, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	span := 90 * 24 * time.Hour
	for i := range rows {
		c := Call{Time: now.Add(-span + time.Duration(i)*(span/rows)), App: fmt.Sprintf("app%d", i%5), Face: "stdio",
			Server: fmt.Sprintf("server%02d", i%20), Tool: fmt.Sprintf("tool%d", i%7), Duration: time.Duration(i%900) * time.Millisecond,
			Outcome: Answered, Decision: Allowed, ResultSize: i % 4000, Arguments: json.RawMessage(`{"path":"/home/me/notes.md","n":3}`)}
		l.RecordCall(c)
		if i%5000 == 4999 {
			if err := l.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := l.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if d := l.Dropped(); d > 0 {
		b.Fatalf("%d rows were dropped while filling", d)
	}
	size := func() float64 {
		var n int64
		for _, suffix := range []string{"", "-wal"} {
			if fi, err := os.Stat(path + suffix); err == nil {
				n += fi.Size()
			}
		}
		return float64(n) / 1e6
	}
	day := StartOfDay(now)
	b.Run("query=server-day", func(b *testing.B) {
		for range b.N {
			got, err := l.Query(ctx, Filter{Server: "server07", Since: day, Limit: 500})
			if err != nil || len(got) == 0 {
				b.Fatal(len(got), err)
			}
		}
		b.ReportMetric(size(), "MB/million-rows")
	})
	b.Run("names=day", func(b *testing.B) { // the window's filters
		for range b.N {
			n, err := l.Names(ctx, day)
			if err != nil || len(n.Servers) != 20 {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("summary=day", func(b *testing.B) {
		for range b.N {
			s, err := l.Summary(ctx, day)
			if err != nil || s.Calls == 0 {
				b.Fatal(s, err)
			}
		}
	})
}
