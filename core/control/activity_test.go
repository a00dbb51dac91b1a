package control

import (
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/service"
)

// TestActivityToday: the tray's and the window's summary of today comes
// over the control socket as the service gives it, the calls the flow
// guard held with it.
func TestActivityToday(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	l, err := activity.Open(t.Context(), activity.Options{Path: p.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := serveAt(t, p, make(chan string, 1), func(o *service.Options) { o.Record = l })
	l.RecordCall(activity.Call{Time: time.Now(), App: "Claude Code", Server: "chat", Tool: "post", Outcome: activity.Refused, Decision: activity.GuardBlocked})
	if err := l.Flush(r.ctx); err != nil {
		t.Fatal(err)
	}
	sum, err := r.cl.ActivityToday(r.ctx)
	if err != nil || sum.Calls != 1 || sum.Held != 1 || len(sum.Apps) != 1 || sum.Apps[0].App != "Claude Code" {
		t.Errorf("ActivityToday over the socket = %+v, %v", sum, err)
	}
}
