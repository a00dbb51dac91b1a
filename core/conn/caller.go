package conn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Caller is the app a tool call is made for, when it is made through the
// gateway: where the server's progress and its requests during the call
// go. A nil field means the app cannot take that; the server's request
// then goes where it would without a Caller (a question to the person,
// through Options.Elicit; roots/list to the server's own folder; a request
// to the AI model is refused).
type Caller struct {
	// Progress receives the server's notifications/progress for the call,
	// in order; with it set, the call carries a progress token of
	// mcptray's own.
	Progress func(mcp.ProgressNotificationParams)
	// Elicit asks the app's person a server's question (elicitation/create).
	Elicit func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
	// Roots lists the app's roots (roots/list), for a server with no
	// folder of its own.
	Roots func(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error)
	// Sample asks the app's AI model (sampling/createMessage).
	Sample func(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
}

// ErrCallerCannot is what a Caller's Elicit, Roots or Sample returns when
// the app cannot take the request after all: it goes where it would without a
// Caller.
var ErrCallerCannot = errors.New("the app cannot take the server's request")

type callerKey struct{}

// WithCaller returns ctx carrying c: a CallTool with it routes the server's
// progress and questions during the call to c.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

func callerOf(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// calls are the tool calls in flight, by server, and the progress tokens
// mcptray gave them.
type calls struct {
	seq      atomic.Int64
	mu       sync.Mutex
	byServer map[string]map[*call]struct{}
	byToken  map[string]*call
}

type call struct {
	caller *Caller // nil for a call made for no app
	token  string  // "" without progress
}

// begin records a call to server, giving it a progress token when its
// caller wants progress, and returns the call and how to end it.
func (cs *calls) begin(server string, caller *Caller) (*call, func()) {
	c := &call{caller: caller}
	if caller != nil && caller.Progress != nil {
		c.token = fmt.Sprintf("mcptray-%d", cs.seq.Add(1))
	}
	cs.mu.Lock()
	if cs.byServer == nil {
		cs.byServer, cs.byToken = map[string]map[*call]struct{}{}, map[string]*call{}
	}
	if cs.byServer[server] == nil {
		cs.byServer[server] = map[*call]struct{}{}
	}
	cs.byServer[server][c] = struct{}{}
	if c.token != "" {
		cs.byToken[c.token] = c
	}
	cs.mu.Unlock()
	return c, func() {
		cs.mu.Lock()
		// The server's set stays, empty, for its next call: made anew,
		// it was one more allocation a call.
		delete(cs.byServer[server], c)
		if c.token != "" {
			delete(cs.byToken, c.token)
		}
		cs.mu.Unlock()
	}
}

// callerFor is the Caller whose call to server a request from the server
// belongs to: the one ctx carries (a request sent on the call's own
// stream, or as its multi round-trip input), or else the only call in
// flight to that server (stdio carries no link from a request to the call
// that caused it). With several calls in flight there is no telling, and
// nil is returned.
func (cs *calls) callerFor(ctx context.Context, server string) *Caller {
	if c := callerOf(ctx); c != nil {
		return c
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.byServer[server]) != 1 {
		return nil
	}
	for c := range cs.byServer[server] {
		return c.caller
	}
	return nil
}

// relayProgress passes a server's notifications/progress to the caller
// whose token it carries, with the token's value the caller gave.
func (cs *calls) relayProgress(n mcp.JSONRPCNotification) {
	if n.Method != string(mcp.MethodNotificationProgress) {
		return
	}
	f := n.Params.AdditionalFields
	cs.mu.Lock()
	c := cs.byToken[fmt.Sprint(f["progressToken"])]
	cs.mu.Unlock()
	if c == nil {
		return
	}
	p := mcp.ProgressNotificationParams{ProgressToken: c.token}
	p.Progress, _ = f["progress"].(float64)
	p.Total, _ = f["total"].(float64)
	msg, _ := f["message"].(string)
	p.Message = sanitize.String(msg)
	c.caller.Progress(p)
}
