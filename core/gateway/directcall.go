package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/jsonwire"
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
	Params  *callParams     `json:"params"`
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      *mcp.Meta       `json:"_meta"`

	Task           json.RawMessage `json:"task"`
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
}

// ownSession is a session of the gateway's own (stream.go,
// httpsession.go), which says whether the gateway answers its plain calls
// itself: the main path of every call an app makes today.
type ownSession interface {
	server.ClientSession
	answersDirect() bool
}

// directCalls are the direct calls in flight, so that
// notifications/cancelled reaches them as it reaches mcp-go's.
type directCalls struct {
	m sync.Map // session id + "\x00" + the request's id, compact → *context.CancelFunc
}

func callKey(session string, id json.RawMessage) string {
	if compact(id) {
		return session + "\x00" + string(id)
	}
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
		(*cancel.(*context.CancelFunc))()
	}
	return ok
}

// directCall answers body when it is a plain tools/call of a live session
// of the gateway's own in ctx that it answers directly (answersDirect), and reports whether it is; when it is not, mcp-go is to
// answer. answer gets the answer, encoded, and whether it is a result
// rather than an error (nil: none, the app cancelled the call), once: perhaps before directCall returns, perhaps on
// the goroutine that reads a stdio server's output (see Gateway.forward),
// so it must not wait on anything. directCall does not keep body.
func (g *Gateway) directCall(ctx context.Context, body []byte, answer func(out []byte, isResult bool)) bool {
	return g.directCallIn(ctx, nil, body, answer)
}

// directCallIn is directCall in ctx, which cancel ends: the call's own
// context, which the caller made for it and ends once it is answered
// (the HTTP face's request). With cancel nil, the call gets a context of
// its own (callContext).
func (g *Gateway) directCallIn(ctx context.Context, cancel context.CancelFunc, body []byte, answer func(out []byte, isResult bool)) bool {
	s, _ := server.ClientSessionFromContext(ctx).(ownSession)
	if s == nil || !s.Initialized() || !s.answersDirect() || !bytes.Contains(body, []byte(`"tools/call"`)) {
		return false
	}
	req, ok := readCall(body)
	if !ok && json.Unmarshal(body, &req) != nil {
		return false
	}
	if req.JSONRPC != mcp.JSONRPC_VERSION || req.Method != string(mcp.MethodToolsCall) ||
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

	if cancel == nil {
		ctx, cancel = callContext(ctx)
	}
	key := callKey(s.SessionID(), req.ID)
	inFlight := &cancel // its own pointer: the key may be the app's next call's once answered
	g.calls.m.Store(key, inFlight)

	call := mcp.CallToolRequest{}
	call.Method = string(mcp.MethodToolsCall)
	call.Params.Name = req.Params.Name
	call.Params.Meta = req.Params.Meta
	if a := bytes.TrimSpace(req.Params.Arguments); len(a) > 0 && string(a) != "null" {
		call.Params.RawArguments = a
	}
	g.forward(ctx, r, call, func(res *mcp.CallToolResult, err error) {
		// Only a call still in flight is answered: one the app cancelled
		// (directCalls.cancel took it out) gets nothing, as MCP says.
		if g.calls.m.CompareAndDelete(key, inFlight) {
			answer(g.encodeAnswer(req.ID, res, err))
		} else {
			answer(nil, false)
		}
		cancel()
	})
	return true
}

// callContext is a call's own context: it ends with parent, when the call
// is cancelled or answered, and after conn.DefaultToolCallTimeout, the
// longest a call may take, which is what spares the connection manager a
// context and a timer of its own on each call (conn.Manager.callBound).
func callContext(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, conn.DefaultToolCallTimeout)
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

// compact says whether id is as json.Compact writes it: a string (which
// Compact leaves as it is), or a value without space.
func compact(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '"' || bytes.IndexAny(id, " \t\r\n") < 0)
}

// The members of a tools/call and of its params that readCall reads.
var (
	envelopeKeys = []string{"jsonrpc", "id", "method", "params"}
	paramsKeys   = []string{"name", "arguments", "_meta", "task", "inputResponses", "requestState"}
)

// readCall reads body as encoding/json reads a callRequest, without its
// reflection (jsonwire), when body is a plain message: no _meta, no key
// written twice or in another case. False leaves it to encoding/json.
func readCall(body []byte) (req callRequest, ok bool) {
	if !jsonwire.Valid(body) {
		return callRequest{}, false
	}
	var env [4][]byte
	if !jsonwire.Pick(body, envelopeKeys, env[:]) {
		return callRequest{}, false
	}
	version, id, method, params := env[0], env[1], env[2], env[3]
	if version != nil && !jsonwire.IsString(version, mcp.JSONRPC_VERSION) ||
		method != nil && !jsonwire.IsString(method, string(mcp.MethodToolsCall)) {
		return callRequest{}, true // not a plain call: read enough to say so
	}
	if version != nil {
		req.JSONRPC = mcp.JSONRPC_VERSION
	}
	if method != nil {
		req.Method = string(mcp.MethodToolsCall)
	}
	if id != nil && string(id) != "null" {
		req.ID = bytes.Clone(id) // body is the reader's
	}
	if params == nil || string(params) == "null" {
		return req, true
	}
	var p [6][]byte
	if !jsonwire.Pick(params, paramsKeys, p[:]) {
		return callRequest{}, false // encoding/json reads it, and says
	}
	if p[2] != nil || p[3] != nil || p[4] != nil || p[5] != nil {
		return callRequest{}, false // _meta, a task, the multi round-trip's fields: not plain
	}
	name, args := p[0], p[1]
	req.Params = &callParams{}
	if name != nil && string(name) != "null" {
		if req.Params.Name, ok = jsonwire.String(name); !ok {
			return callRequest{}, false
		}
	}
	if args != nil {
		req.Params.Arguments = bytes.Clone(args)
	}
	return req, true
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
	content, ok := textContent(res.Content)
	if !ok {
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

// textContent is content encoded as encoding/json encodes it, when it is
// all plain text (mcp.TextContent without annotations or _meta), without
// its reflection; false otherwise.
func textContent(content []mcp.Content) ([]byte, bool) {
	if len(content) == 0 {
		return []byte("[]"), true // none is an empty list, as in mcp-go
	}
	n := 2
	for _, c := range content {
		t, ok := c.(mcp.TextContent)
		if !ok || t.Annotations != nil || t.Meta != nil || t.Type != mcp.ContentTypeText {
			return nil, false
		}
		n += len(`{"type":"text","text":""},`) + len(t.Text) + len(t.Text)/8
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, c := range content {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"type":"text","text":`...)
		out = jsonwire.AppendString(out, c.(mcp.TextContent).Text)
		out = append(out, '}')
	}
	return append(out, ']'), true
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
