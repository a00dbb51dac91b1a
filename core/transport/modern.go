package transport

import (
	"context"
	"sync"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// streamableHTTP is mcp-go's streamable HTTP transport, made able to speak
// protocol revision 2026-07-28 while it keeps listening on the GET stream
// for servers that predate it.
//
// mcp-go's client offers 2026-07-28 (server/discover, no initialize) only
// over a transport that does not require the legacy protocol, and its
// StreamableHTTP says it requires it whenever continuous listening is on,
// because the GET stream is gone in 2026-07-28. But the transport already
// opens that stream only once a legacy handshake is done, so both can be
// had: this type says it does not require the legacy protocol. An upstream
// change making RequiresLegacyProtocol false whenever the listener defers to
// the negotiated version would remove it.
//
// It also keeps a sign-in request from being hidden: mcp-go falls back to
// initialize after any failed server/discover, and a server that lets
// initialize through without a sign-in (as the MCP authorization spec
// allows) would then be spoken to in the old revision for the whole
// connection. A server that wants a sign-in for server/discover is a
// 2026-07-28 one: the initialize that follows fails with the same
// *AuthError, so the sign-in comes first.
type streamableHTTP struct {
	*mcptransport.StreamableHTTP

	mu         sync.Mutex
	discoverAE error // the *AuthError server/discover met, until initialize
}

// RequiresLegacyProtocol reports false: see the type's comment.
func (t *streamableHTTP) RequiresLegacyProtocol() bool { return false }

// SendRequest sends one request through mcp-go's transport.
func (t *streamableHTTP) SendRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	switch req.Method {
	case string(mcp.MethodInitialize):
		t.mu.Lock()
		err := t.discoverAE
		t.discoverAE = nil
		t.mu.Unlock()
		if err != nil {
			return nil, err
		}
	case string(mcp.MethodServerDiscover):
		resp, err := t.StreamableHTTP.SendRequest(ctx, req)
		if IsAuthError(err) {
			t.mu.Lock()
			t.discoverAE = err
			t.mu.Unlock()
		}
		return resp, err
	}
	return t.StreamableHTTP.SendRequest(ctx, req)
}
