package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// tools/call without mcp-go's dispatch: for every message, mcp-go's
// HandleMessage decodes the body four times (its envelope, the protocol
// revision, the trace context, the request with its arguments into a map)
// and encodes the answer through reflection, which on a call of a small
// tool costs more than the gateway's own work and the trip to the server
// together. A plain tools/call of a live session in a revision before
// 2026-07-28 — the calls apps make all day — is decoded once here and goes
// to the same handler mcp-go would call, with the session in its context
// as before (progress, the server's questions to the app); its answer is
// the same JSON-RPC message. Anything else (another method, a task, the
// 2026-07-28 revision's fields, an unknown tool) is the MCP server's to
// answer, as before.

// callRequest is what a plain tools/call holds; the fields that make it
// not plain are kept only to be seen.
type callRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      *mcp.Meta       `json:"_meta"`

		Task           json.RawMessage `json:"task"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage `json:"requestState"`
	} `json:"params"`
}

// legacySession is a session of the gateway's own (stream.go,
// httpsession.go).
type legacySession interface {
	server.ClientSession
	legacy() bool
}

// directCalls are the direct calls in flight, so that
// notifications/cancelled reaches them as it reaches mcp-go's.
type directCalls struct {
	m sync.Map // session id + "\x00" + the request's id, compact → context.CancelFunc
}

func callKey(session string, id json.RawMessage) string {
	var b bytes.Buffer
	b.WriteString(session)
	b.WriteByte(0)
	if json.Compact(&b, id) != nil {
		b.Write(id)
	}
	return b.String()
}

// cancel cancels the direct call that notification (a
// notifications/cancelled) names, and reports whether there was one.
func (d *directCalls) cancel(session string, notification []byte) bool {
	var n struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(notification, &n) != nil || len(n.ID) > 0 || n.Method != string(mcp.MethodNotificationCancelled) ||
		!plainID(n.Params.RequestID) {
		return false
	}
	cancel, ok := d.m.LoadAndDelete(callKey(session, n.Params.RequestID))
	if ok {
		cancel.(context.CancelFunc)()
	}
	return ok
}

// directCall answers body when it is a plain tools/call of a live legacy
// session in ctx, and reports whether it is; when it is not, mcp-go is to
// answer. answer gets the answer, encoded, and whether it is a result
// rather than an error, once: perhaps before directCall returns, perhaps on
// the goroutine that reads a stdio server's output (see Gateway.forward),
// so it must not wait on anything. directCall does not keep body.
func (g *Gateway) directCall(ctx context.Context, body []byte, answer func(out []byte, isResult bool)) bool {
	s, _ := server.ClientSessionFromContext(ctx).(legacySession)
	if s == nil || !s.Initialized() || !s.legacy() || !bytes.Contains(body, []byte(`"tools/call"`)) {
		return false
	}
	var req callRequest
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != mcp.JSONRPC_VERSION || req.Method != string(mcp.MethodToolsCall) ||
		!plainID(req.ID) || req.Params == nil ||
		len(req.Params.Task) > 0 || len(req.Params.InputResponses) > 0 || len(req.Params.RequestState) > 0 ||
		req.Params.Meta.ProtocolVersion() != "" {
		return false
	}
	r, ok := g.toolRoute(req.Params.Name)
	if !ok {
		return false // mcp-go says it is unknown, in its words
	}
	g.apps.seen(s.SessionID()) // what mcp-go's hooks would have recorded

	ctx, cancel := context.WithCancel(ctx)
	key := callKey(s.SessionID(), req.ID)
	g.calls.m.Store(key, cancel)

	call := mcp.CallToolRequest{}
	call.Method = string(mcp.MethodToolsCall)
	call.Params.Name = req.Params.Name
	call.Params.Meta = req.Params.Meta
	if a := bytes.TrimSpace(req.Params.Arguments); len(a) > 0 && string(a) != "null" {
		call.Params.RawArguments = a
	}
	g.forward(ctx, r, call, func(res *mcp.CallToolResult, err error) {
		g.calls.m.Delete(key)
		cancel()
		answer(g.encodeAnswer(req.ID, res, err))
	})
	return true
}

// encodeAnswer is the JSON-RPC answer with id to a call whose handler
// returned res and err, as mcp-go encodes it; a panic (in a content type's
// encoding) is an error answer, not the end of mcptray.
func (g *Gateway) encodeAnswer(id json.RawMessage, res *mcp.CallToolResult, err error) (out []byte, isResult bool) {
	defer func() {
		if p := recover(); p != nil {
			g.log.Error("gateway: answering a call", "panic", p)
			out, isResult = jsonrpc(id, `"error":{"code":-32603,"message":"mcptray failed on this request"`, nil, `}`), false
		}
	}()
	if err != nil {
		msg, _ := json.Marshal(err.Error())
		return jsonrpc(id, `"error":{"code":-32603,"message":`, msg, `}`), false
	}
	enc, err := encodeResult(res)
	if err != nil {
		g.log.Error("gateway: encoding an answer", "err", err)
		return jsonrpc(id, `"error":{"code":-32603,"message":"mcptray could not encode its answer"`, nil, `}`), false
	}
	return jsonrpc(id, `"result":`, enc, ``), true
}

// encodeResult encodes res as mcp-go does. mcp-go's encoding goes through
// a map of its fields, at four times the cost of the usual result's: its
// content, perhaps isError, and nothing else, which is encoded here to the
// same bytes (a map's keys come out sorted: "content", then "isError").
func encodeResult(res *mcp.CallToolResult) ([]byte, error) {
	if res == nil || res.Meta != nil || res.ResultType != "" || len(res.RawStructuredContent) > 0 || res.StructuredContent != nil ||
		len(res.InputRequests) > 0 || res.RequestState != "" {
		return json.Marshal(res)
	}
	content := []byte("[]") // none is an empty list, as in mcp-go
	if len(res.Content) > 0 {
		var err error
		if content, err = json.Marshal(res.Content); err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, len(content)+len(`{"content":,"isError":true}`))
	out = append(out, `{"content":`...)
	out = append(out, content...)
	if res.IsError {
		out = append(out, `,"isError":true`...)
	}
	return append(out, '}'), nil
}

// plainID says whether id is a JSON-RPC request's id: a string or a
// number. mcp-go refuses the rest in its words.
func plainID(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
}

// toolRoutes are where the calls of the servers' tools the gateway offers
// go, by the name apps call them by: the routes of mcp-go's handlers.
type toolRoutes map[string]route

func newToolRoutes(routes []route) *toolRoutes {
	m := make(toolRoutes, len(routes))
	for _, r := range routes {
		m[r.qualified] = r
	}
	return &m
}

// toolRoute is the route of the tool apps call name; false when the
// gateway offers none by that name for direct calls.
func (g *Gateway) toolRoute(name string) (route, bool) {
	if m := g.routes.Load(); m != nil {
		r, ok := (*m)[name]
		return r, ok
	}
	return route{}, false
}

// jsonrpc is the JSON-RPC message with id whose member is head, body and
// tail.
func jsonrpc(id json.RawMessage, head string, body []byte, tail string) []byte {
	out := make([]byte, 0, 32+len(id)+len(head)+len(body)+len(tail))
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, ',')
	out = append(out, head...)
	out = append(out, body...)
	out = append(out, tail...)
	return append(out, '}')
}

// cancelDirect cancels the direct call that body names when it is a
// notifications/cancelled of the session in ctx, and reports whether it
// did; the rest is mcp-go's.
func (g *Gateway) cancelDirect(ctx context.Context, body []byte) bool {
	s := server.ClientSessionFromContext(ctx)
	if s == nil || !bytes.Contains(body, []byte(`"notifications/cancelled"`)) {
		return false
	}
	return g.calls.cancel(s.SessionID(), body)
}
