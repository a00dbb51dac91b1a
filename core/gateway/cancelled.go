package gateway

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/server"
)

// An app's notifications/cancelled ends the request it names, and that
// request gets no answer: MCP says the receiver should not send one, and
// the app may already have given its id to its next request. Direct calls
// are kept in flight in Gateway.calls (directcall.go); a request mcp-go's
// server answers is kept there too (inFlight), so that one notification
// finds either, whichever face it came on.

// inFlight keeps the request body, of the session in ctx, in flight
// until answerable is called, in a context that the app's
// notifications/cancelled of it ends. answerable reports whether the
// request is still to be answered: false once the app cancelled it. A
// message that is not a request of a session is always answerable.
func (g *Gateway) inFlight(ctx context.Context, body []byte) (context.Context, func() (answerable bool)) {
	s := server.ClientSessionFromContext(ctx)
	if s == nil {
		return ctx, func() bool { return true }
	}
	var m envelope
	if json.Unmarshal(body, &m) != nil || m.Method == "" || !plainID(m.ID) {
		return ctx, func() bool { return true }
	}
	ctx, cancel := context.WithCancel(ctx)
	key := callKey(s.SessionID(), m.ID)
	mine := &cancel // its own pointer, as a direct call's
	g.calls.m.Store(key, mine)
	return ctx, func() bool {
		defer cancel()
		return g.calls.m.CompareAndDelete(key, mine)
	}
}
