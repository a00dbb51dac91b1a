package conn

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestCallerFor: a server's request goes to the caller its context
// carries, else to the only call in flight to that server; with two calls
// in flight, or none, there is no telling whose it is.
func TestCallerFor(t *testing.T) {
	t.Parallel()
	var cs calls
	app, other := &Caller{}, &Caller{}
	if c := cs.callerFor(context.Background(), "notes"); c != nil {
		t.Errorf("with no call in flight: %p", c)
	}
	_, end := cs.begin("notes", app)
	if c := cs.callerFor(context.Background(), "notes"); c != app {
		t.Errorf("with one call in flight: %p, want the app's %p", c, app)
	}
	if c := cs.callerFor(context.Background(), "files"); c != nil {
		t.Errorf("another server's request: %p", c)
	}
	_, end2 := cs.begin("notes", nil)
	if c := cs.callerFor(context.Background(), "notes"); c != nil {
		t.Errorf("with two calls in flight: %p", c)
	}
	if c := cs.callerFor(WithCaller(context.Background(), other), "notes"); c != other {
		t.Errorf("a request that carries its call: %p, want %p", c, other)
	}
	end2()
	end()
	if len(cs.byServer["notes"]) != 0 || len(cs.byToken) != 0 {
		t.Errorf("ended calls are remembered: %v %v", cs.byServer, cs.byToken)
	}
}

// TestRelayProgress: progress with a call's token reaches its caller
// under that token, its message sanitised; other tokens and other
// notifications reach nobody.
func TestRelayProgress(t *testing.T) {
	t.Parallel()
	var cs calls
	var got []mcp.ProgressNotificationParams
	c, end := cs.begin("notes", &Caller{Progress: func(p mcp.ProgressNotificationParams) { got = append(got, p) }})
	defer end()
	if c.token == "" {
		t.Fatal("a caller that wants progress got no token")
	}
	note := func(method string, f map[string]any) mcp.JSONRPCNotification {
		n := mcp.JSONRPCNotification{}
		n.Method = method
		n.Params.AdditionalFields = f
		return n
	}
	cs.relayProgress(note("notifications/progress", map[string]any{"progressToken": c.token, "progress": 1.0, "total": 2.0, "message": "half\u202e"}))
	cs.relayProgress(note("notifications/progress", map[string]any{"progressToken": "someone-else", "progress": 1.0}))
	cs.relayProgress(note("notifications/message", map[string]any{"progressToken": c.token}))
	if len(got) != 1 || got[0].Progress != 1 || got[0].Total != 2 || got[0].Message != "half" {
		t.Errorf("relayed %+v", got)
	}
	if plain, end := cs.begin("notes", &Caller{}); plain.token != "" {
		t.Errorf("a caller that wants no progress got token %q", plain.token)
		end()
	} else {
		end()
	}
}
