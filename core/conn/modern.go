package conn

import (
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/tools"
)

// Revision 2026-07-28 removed the initialize handshake: every request
// carries the protocol version, the client's capabilities and who it is in
// its _meta, and over streamable HTTP the method in an Mcp-Method header
// (SEP-2575, SEP-2243). mcp-go's client adds them to the requests it sends;
// mcptray sends tools/list past it (to keep schemas raw), so it adds them
// itself. An upstream way to send a raw request through the client (or to
// list tools keeping their raw JSON) would remove this file.

// rawParams returns params with the request metadata of revision
// 2026-07-28 in its _meta, and the headers that go with it; on an older
// connection, params as they are and no headers. params is nil or a map.
func (sess *session) rawParams(method string, params map[string]any) (any, http.Header) {
	if !sess.modern {
		if params == nil {
			return nil, nil
		}
		return params, nil
	}
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	out["_meta"] = map[string]any{
		mcp.MetaKeyProtocolVersion:    sess.client.ProtocolVersion(),
		mcp.MetaKeyClientCapabilities: sess.caps,
		mcp.MetaKeyClientInfo:         sess.info,
	}
	h := http.Header{}
	h.Set(mcp.HeaderMethod, method)
	return out, h
}

// headerToolOK reports whether a listed tool's x-mcp-header annotations
// are valid. Over streamable HTTP in 2026-07-28 a client must leave out a
// tool whose annotations are not, so that one bad definition does not stop
// the others from being used (SEP-2243); elsewhere they mean nothing.
func (sess *session) headerToolOK(raw json.RawMessage) error {
	if !sess.modern || !sess.http {
		return nil
	}
	var wire struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil || len(wire.InputSchema) == 0 {
		return nil // tools.Parse says what is wrong with it
	}
	return mcp.ValidateParamHeaderAnnotations(&mcp.Tool{Name: wire.Name, RawInputSchema: wire.InputSchema})
}

// paramHeaders returns the Mcp-Param-* headers that mirror a tools/call's
// arguments named by the tool's x-mcp-header annotations (SEP-2243): mcp-go
// mirrors them only for tools it listed itself.
func (sess *session) paramHeaders(tool *tools.Tool, arguments json.RawMessage) http.Header {
	if !sess.modern || !sess.http || tool == nil || len(tool.InputSchema) == 0 {
		return nil
	}
	params, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{tool.Name, arguments})
	if err != nil {
		return nil
	}
	t := mcp.Tool{Name: tool.Name, RawInputSchema: tool.InputSchema}
	generated := mcp.GenerateParamHeaders(&t, params)
	if len(generated) == 0 {
		return nil
	}
	h := http.Header{}
	for k, v := range generated {
		h.Set(k, v)
	}
	return h
}
