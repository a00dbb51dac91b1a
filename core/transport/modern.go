package transport

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
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
		return t.discover(ctx, req)
	}
	return t.StreamableHTTP.SendRequest(ctx, req)
}

// errNotModern says a server answered server/discover without naming a
// revision from 2026-07-28 on: it answers any method, and is an older one.
var errNotModern = errors.New("the server's answer to server/discover names no protocol version mcptray can speak without initialize")

// discover sends server/discover, and mends what mcp-go's negotiation
// would take wrongly:
//
//   - an UnsupportedProtocolVersion error (-32022) that lists the very
//     version asked for as supported is answered by asking once more,
//     as SEP-2575 tells a client to retry with a supported version (mcp-go
//     retries only with a different one, and would fall back to
//     initialize);
//   - a success that names no 2026-07-28-or-later version is an older
//     server answering every method alike: an error, so mcp-go falls back
//     to initialize.
func (t *streamableHTTP) discover(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	resp, err := t.StreamableHTTP.SendRequest(ctx, req)
	if err == nil && resp != nil && resp.Error != nil && resp.Error.Code == mcp.UNSUPPORTED_PROTOCOL_VERSION &&
		slices.Contains(supportedVersions(resp.Error.Data), requestVersion(req)) {
		resp, err = t.StreamableHTTP.SendRequest(ctx, req)
	}
	if IsAuthError(err) {
		t.mu.Lock()
		t.discoverAE = err
		t.mu.Unlock()
	}
	if err == nil && resp != nil && resp.Error == nil {
		var result struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		_ = json.Unmarshal(resp.Result, &result)
		if !slices.ContainsFunc(result.SupportedVersions, mcp.IsModernProtocol) {
			return nil, errNotModern
		}
	}
	return resp, err
}

// supportedVersions reads the versions an UnsupportedProtocolVersion
// error's data lists.
func supportedVersions(data any) []string {
	b, err := json.Marshal(data)
	if err != nil {
		return nil
	}
	var d struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(b, &d)
	return d.Supported
}

// requestVersion is the protocol version a request's _meta asks for.
func requestVersion(req mcptransport.JSONRPCRequest) string {
	b, err := json.Marshal(req.Params)
	if err != nil {
		return ""
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(b, &p)
	v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v
}
