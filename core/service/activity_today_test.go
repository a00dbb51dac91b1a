package service

import (
	"context"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/activity"
)

// TestActivityToday: today's summary, the tray's line, comes from the
// record the service was given, with the calls the flow guard held; with
// no record it says so in words.
func TestActivityToday(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{}})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := h.start(false).ActivityToday(ctx); err == nil || CodeOf(err) != Other {
		t.Errorf("with no record: %v", err)
	}
	l, err := activity.Open(ctx, activity.Options{Path: h.paths.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := h.start(false, withRecord(l))
	for _, d := range []activity.Decision{activity.Allowed, activity.GuardDeclined, activity.GuardNoWindow} {
		l.RecordCall(activity.Call{Time: time.Now(), App: "Claude Code", Server: "chat", Tool: "post", Outcome: activity.Refused, Decision: d})
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	sum, err := s.ActivityToday(ctx)
	if err != nil || sum.Calls != 3 || sum.Held != 2 {
		t.Errorf("ActivityToday = %+v, %v; want 3 calls, 2 held", sum, err)
	}
}
