package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/activity"
)

// TestActivityRead: the record's rows, the names in them and its
// verification come from the record the running mcptray keeps, whatever
// a front end asks of them: a filter asking for more rows than one answer
// holds gets maxActivityRows.
func TestActivityRead(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{}})
	s := h.start(false)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := s.Activity(ctx, ActivityFilter{}); err == nil || CodeOf(err) != Other {
		t.Errorf("rows with no record: %v", err)
	}
	l, err := activity.Open(ctx, activity.Options{Path: h.paths.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s.UseActivity(l)
	now := time.Now()
	for i := range maxActivityRows + 5 {
		srv := "files"
		if i%2 == 1 {
			srv = "github"
		}
		l.RecordCall(activity.Call{Time: now.Add(time.Duration(i-maxActivityRows-5) * time.Millisecond), App: "Claude Code",
			Server: srv, Tool: "read", Outcome: activity.Answered})
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Activity(ctx, ActivityFilter{Limit: 1 << 20})
	if err != nil || len(rows) != maxActivityRows {
		t.Fatalf("asking for a million rows gave %d (%v), want %d", len(rows), err, maxActivityRows)
	}
	rows, err = s.Activity(ctx, ActivityFilter{Server: "github", Limit: 3})
	if err != nil || len(rows) != 3 || rows[0].Server != "github" || rows[0].ID <= rows[1].ID {
		t.Errorf("github's newest three: %+v, %v", rows, err)
	}
	names, err := s.ActivityNames(ctx, now.Add(-time.Hour))
	if err != nil || strings.Join(names.Servers, ",") != "files,github" || strings.Join(names.Apps, ",") != "Claude Code" {
		t.Errorf("names: %+v, %v", names, err)
	}
	res, err := s.VerifyActivity(ctx)
	if err != nil || res.Problem != nil || res.Rows != maxActivityRows+5 {
		t.Errorf("verification: %+v, %v", res, err)
	}
}
