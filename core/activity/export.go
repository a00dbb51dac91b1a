package activity

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"
)

// csvHeader names Export's columns.
var csvHeader = []string{"id", "time", "kind", "app", "face", "server", "tool", "duration_ms", "outcome", "reason",
	"decision", "result_size", "arguments", "arguments_kept", "action", "target", "detail", "hash"}

// Export writes the rows f picks to w as CSV, oldest first, with a header
// line, and returns how many it wrote.
func (l *Log) Export(ctx context.Context, w io.Writer, f Filter) (int, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return 0, err
	}
	n := 0
	f.Limit = 10000
	f.AfterID = 0
	for {
		rows, err := l.query(ctx, f, true)
		if err != nil {
			return n, err
		}
		if len(rows) == 0 {
			break
		}
		for _, e := range rows {
			rec := []string{strconv.FormatInt(e.ID, 10), e.Time.UTC().Format(time.RFC3339Nano), string(e.Kind), e.App, e.Face,
				e.Server, e.Tool, strconv.FormatFloat(float64(e.Duration)/1e6, 'f', 3, 64), string(e.Outcome), e.Reason,
				string(e.Decision), strconv.Itoa(e.ResultSize), e.Arguments, strconv.FormatBool(e.ArgumentsKept),
				string(e.Action), e.Target, e.Detail, fmt.Sprintf("%x", e.hash)}
			if err := cw.Write(rec); err != nil {
				return n, err
			}
			n++
		}
		f.AfterID = rows[len(rows)-1].ID
	}
	cw.Flush()
	return n, cw.Error()
}
