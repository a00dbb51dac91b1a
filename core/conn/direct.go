package conn

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/jsonwire"
	"github.com/mcptray/mcptray/core/transport"
)

// Why tools/call has a direct path: it is the gateway's hot path, and
// mcp-go's Client.CallTool spends most of a call's CPU on work a session
// in a revision before 2026-07-28 does not need. On every call it encodes
// the params through their MarshalJSON, runs the 2026-07-28 multi
// round-trip loop, and decodes the answer three times over
// (mcp.ParseCallToolResult: a probe, then the result, each content item
// twice).
//
// So on such a session over stdio or streamable HTTP a tools/call goes
// straight through the session's transport. The request is the one mcp-go
// would send, with the app's arguments as they came and an id of its own
// ("mcptray-N", which cannot meet the client's numbers); the transport is
// the same object, so the server's progress, its requests during the call
// and the end of the connection reach the call as before. Errors are made
// the way mcp-go makes them (*transport.Error for the transport's, the
// JSON-RPC error as an error), and a call whose context ends tells the
// server with notifications/cancelled, as mcp-go's client does. The usual
// answer (text content, perhaps isError) is decoded once (quickResult);
// anything else goes to mcp-go's parser.

// directIDs numbers the direct calls of every session.
var directIDs atomic.Int64

// cancelNotificationTimeout bounds sending notifications/cancelled, as
// mcp-go's client bounds it.
const cancelNotificationTimeout = 5 * time.Second

// canCallDirect reports whether tools/call on a session over tr, in a
// revision before 2026-07-28, may go straight through tr: mcptray's stdio
// transport and streamable HTTP. SSE, WebSocket and in-process sessions
// keep mcp-go's path.
func canCallDirect(tr mcptransport.Interface) bool {
	switch tr.(type) {
	case *transport.Stdio:
		return true
	case legacyRequirer: // streamable HTTP
		return true
	}
	return false
}

// callDirect calls tool with arguments (a JSON object) through the
// session's transport; token, when not "", is the call's progress token.
func (sess *session) callDirect(ctx context.Context, tool string, arguments json.RawMessage, token string) (*mcp.CallToolResult, error) {
	tr := sess.client.GetTransport()
	req := directRequest(tool, arguments, token)
	if err := ctx.Err(); err != nil {
		return nil, mcptransport.NewError(err) // not sent: nothing to cancel
	}
	resp, err := tr.SendRequest(ctx, req)
	return directAnswer(ctx, tr, req.ID, resp, err)
}

// callDirectAsync is callDirect on a stdio session without the wait: done
// gets the answer, on the goroutine that reads the server's output (see
// Stdio.SendRequestAsync).
func (sess *session) callDirectAsync(ctx context.Context, tr *transport.Stdio, tool string, arguments json.RawMessage, token string, done func(*mcp.CallToolResult, error)) {
	req := directRequest(tool, arguments, token)
	err := tr.SendRequestAsync(ctx, req, func(resp *mcptransport.JSONRPCResponse, err error) {
		done(directAnswer(ctx, tr, req.ID, resp, err))
	})
	if err != nil { // not sent: nothing to cancel
		done(nil, mcptransport.NewError(err))
	}
}

// directRequest is the tools/call mcp-go would send, with an id of its
// own: its params encoded here, as encoding/json encodes them, so that
// the transport writes them as they are (arguments is valid JSON).
func directRequest(tool string, arguments json.RawMessage, token string) mcptransport.JSONRPCRequest {
	params := make([]byte, 0, len(`{"name":,"arguments":,"_meta":{"progressToken":}}`)+len(tool)+len(arguments)+len(token)+8)
	params = append(params, `{"name":`...)
	params = jsonwire.AppendString(params, tool)
	params = append(params, `,"arguments":`...)
	params = append(params, arguments...)
	if token != "" {
		params = append(params, `,"_meta":{"progressToken":`...)
		params = jsonwire.AppendString(params, token)
		params = append(params, '}')
	}
	params = append(params, '}')
	return mcptransport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(directID()),
		Method:  string(mcp.MethodToolsCall),
		Params:  json.RawMessage(params),
	}
}

// directID is a direct call's id of its own: "mcptray-N".
func directID() string {
	var buf [32]byte
	return string(strconv.AppendInt(append(buf[:0], "mcptray-"...), directIDs.Add(1), 10))
}

// directAnswer reads the answer to the direct call id, or says why there
// is none, as mcp-go's client would.
func directAnswer(ctx context.Context, tr mcptransport.Interface, id mcp.RequestId, resp *mcptransport.JSONRPCResponse, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		if ctx.Err() != nil {
			cancelOnServer(ctx, tr, id)
		}
		return nil, mcptransport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	if res, ok := quickResult(resp.Result); ok {
		return res, nil
	}
	return mcp.ParseCallToolResult(&resp.Result)
}

// quickResult decodes the usual tools/call result, text content and
// perhaps isError, once, as mcp.ParseCallToolResult would read it. Any
// member it does not know (structuredContent, _meta, annotations, …), a
// member twice, content that is not text, no content or what does not
// read plainly makes it report false, and mcp-go's parser reads the
// result: it drops nothing mcp-go would keep. raw is valid JSON, as the
// transport cut it from the message.
func quickResult(raw json.RawMessage) (*mcp.CallToolResult, bool) {
	var content []byte
	var isError, sawIsError bool
	if !jsonwire.Members(raw, func(k, v []byte) bool {
		switch string(k) {
		case "content":
			if content != nil {
				return false
			}
			content = v
		case "isError":
			if sawIsError {
				return false
			}
			sawIsError = true
			switch string(v) {
			case "true":
				isError = true
			case "false", "null":
			default:
				return false
			}
		default:
			return false
		}
		return true
	}) || content == nil {
		return nil, false
	}
	res := &mcp.CallToolResult{IsError: isError}
	if !jsonwire.Elements(content, func(item []byte) bool {
		var text, typ []byte
		if !jsonwire.Members(item, func(k, v []byte) bool {
			switch {
			case string(k) == "type" && typ == nil:
				typ = v
			case string(k) == "text" && text == nil:
				text = v
			default:
				return false
			}
			return true
		}) || !jsonwire.IsString(typ, mcp.ContentTypeText) {
			return false
		}
		c := mcp.TextContent{Type: mcp.ContentTypeText}
		if text != nil && string(text) != "null" {
			var ok bool
			if c.Text, ok = jsonwire.String(text); !ok {
				return false
			}
		}
		res.Content = append(res.Content, c) // empty content stays nil, as in mcp-go
		return true
	}) {
		return nil, false
	}
	return res, true
}

// cancelOnServer tells the server to stop working on the request id,
// whose context has ended, as mcp-go's client does: not over HTTP (where
// earlier revisions keep their behaviour), with a context of its own, off
// the caller's path, best effort.
func cancelOnServer(ctx context.Context, tr mcptransport.Interface, id mcp.RequestId) {
	if _, ok := tr.(mcptransport.HTTPConnection); ok {
		return
	}
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{
				AdditionalFields: map[string]any{"requestId": id, "reason": ctx.Err().Error()},
			},
		},
	}
	ctx = context.WithoutCancel(ctx)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, cancelNotificationTimeout)
		defer cancel()
		_ = tr.SendNotification(ctx, n)
	}()
}
