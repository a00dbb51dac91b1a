package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/mcptray/mcptray/core/sets"
)

// The HTTP face's sessions (MCP's revisions with Mcp-Session-Id) are served
// by the gateway itself, as MCP's streamable HTTP transport says
// (2025-11-25): a POST of initialize starts a session, whose id its answer
// carries; a POST of a request is answered with application/json, or with
// an event stream when messages about the request come before the answer
// (httpsession.go), or with an event stream that ends with no answer
// when the app cancelled the request (cancelled.go); a POST of a
// notification or of the app's answer to the gateway is answered 202; a
// GET opens the session's listening stream; a DELETE ends the session. Every message goes straight to the gateway's MCP
// server with the session in its context, as on the stdio face's stream,
// with one parse of the body besides the call's.
//
// The face is served by fasthttp, not net/http: on a plain call net/http
// starts a goroutine per request to watch the connection and hands off to
// it at the end, which on a small machine costs about as much as the rest
// of the face (bench/README.md). A POST of a session is answered by
// fasthttp's handler itself; the rest — listening streams, DELETE, and
// whatever is not a session's, such as MCP's sessionless revision
// (2026-07-28), which mcp-go's streamable HTTP server serves — goes
// through fasthttp's adaptor to net/http handlers. A request whose app
// closes its connection ends (watchConn), as the sessionless revision
// requires.

// listenHeartbeat is how often a listening stream with nothing to say
// sends a comment, so that nothing between the app and the gateway takes it
// for dead.
const listenHeartbeat = 30 * time.Second

// sweepEvery is how often sessions are looked at for being idle.
const sweepEvery = time.Hour

// goneAfter is how long a request runs before the face watches whether
// its app went away.
const goneAfter = 20 * time.Millisecond

// httpFace is the gateway's streamable HTTP handler.
type httpFace struct {
	g    *Gateway
	ids  *sessions
	rest http.Handler            // mcp-go's, for what is not a session's
	slow fasthttp.RequestHandler // GET, DELETE and rest, through net/http
}

func newHTTPFace(g *Gateway, ids *sessions, rest http.Handler) *httpFace {
	f := &httpFace{g: g, ids: ids, rest: withFace(rest, FaceHTTP)}
	f.slow = fasthttpadaptor.NewFastHTTPHandler(endsWithConn(http.HandlerFunc(f.serveSlow)))
	return f
}

// serve is the face's fasthttp handler. A panic answers 500 instead of
// ending mcptray, as net/http's server would.
func (f *httpFace) serve(ctx *fasthttp.RequestCtx) {
	defer func() {
		if p := recover(); p != nil {
			f.g.log.Error("gateway: serving an app's request", "panic", p)
			httpError(ctx, "Internal Server Error: mcptray failed on this request", http.StatusInternalServerError)
		}
	}()
	switch {
	case string(ctx.Path()) != Path:
		httpError(ctx, "404 page not found", http.StatusNotFound)
	case !f.sameApp(ctx):
		httpError(ctx, "Forbidden: this session was started with another app's token", http.StatusForbidden)
	case ctx.IsPost():
		f.post(ctx)
	default:
		f.slow(ctx)
	}
}

// serveSlow serves what is not a POST, and the POSTs that are not a
// session's, through net/http.
func (f *httpFace) serveSlow(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodDelete:
		f.getOrDelete(w, r)
	default:
		f.rest.ServeHTTP(w, r)
	}
}

// endsWithConn gives a net/http request a context that ends when its app
// closes the connection. fasthttp's adaptor gives it the RequestCtx, which
// ends only with the server, and which fasthttp reuses for the
// connection's next request once this one is answered: nothing may
// derive from it and outlive the request.
func endsWithConn(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if rc, ok := r.Context().(*fasthttp.RequestCtx); ok {
			defer watchConn(rc.Conn(), goneAfter, cancel)()
			if app := tokenApp(rc); app != "" {
				ctx = sets.WithApp(ctx, app) // the sessionless revision's app (sets.go)
			}
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// httpError answers msg with status, as net/http's http.Error does.
func httpError(ctx *fasthttp.RequestCtx, msg string, status int) {
	ctx.Response.Header.Set("X-Content-Type-Options", "nosniff")
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetStatusCode(status)
	ctx.SetBodyString(msg + "\n")
}

// postEnvelope is what the gateway reads of a POST's message.
type postEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

// post takes one message: initialize starts a session; a message of a
// session goes to the MCP server (a plain tools/list is answered from the
// encoded list, the app's answer to the gateway goes to the request that
// waits for it); the sessionless revision's, and what is not JSON-RPC, go
// to mcp-go. The refusals are mcp-go's: 400 for another content type or an
// unknown protocol version, 404 for an unknown session.
func (f *httpFace) post(ctx *fasthttp.RequestCtx) {
	if ct := ctx.Request.Header.ContentType(); string(ct) != "application/json" {
		if mt, _, err := mime.ParseMediaType(string(ct)); err != nil || mt != "application/json" {
			httpError(ctx, "Invalid content type: must be 'application/json'", http.StatusBadRequest)
			return
		}
	}
	body := ctx.PostBody() // the server keeps it to maxMessage
	version := string(ctx.Request.Header.Peek(mcp.HeaderProtocolVersion))
	s := f.ids.get(string(ctx.Request.Header.Peek(sessionHeader)))
	// A plain call of a session, the request apps make all day, is tried
	// first: the direct call reads it once, where routing it first would
	// read it twice.
	if s != nil && (version == "" || mcp.IsValidProtocolVersion(version) && !mcp.IsModernProtocol(version)) {
		s.touch()
		if f.request(ctx, s, body, true) {
			return
		}
	}
	var m postEnvelope
	if json.Unmarshal(body, &m) != nil || mcp.IsModernProtocol(version) || mcp.IsModernProtocol(m.Params.Meta.Version) {
		// Not JSON-RPC (mcp-go says so), or the sessionless revision:
		// an app's own token names the app for this request alone
		// (endsWithConn, sets.go).
		f.slow(ctx)
		return
	}
	if m.Method == string(mcp.MethodInitialize) {
		f.initialize(ctx, bytes.Clone(body))
		return
	}
	if version != "" && !mcp.IsValidProtocolVersion(version) {
		httpError(ctx, "Unsupported protocol version: "+version, http.StatusBadRequest)
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case s == nil && m.Method == "" && hasID:
		// An answer outside a session: mcp-go's codes (202 to an
		// empty one, such as a ping's).
		f.slow(ctx)
		return
	case s == nil:
		httpError(ctx, "Invalid session ID", http.StatusNotFound)
		return
	}
	s.touch()
	if hasID && isList(m.Method) {
		// One of its first lists waits for servers still starting
		// (firstlist.go); the POST's own goroutine waits.
		f.g.waitFirstList(s.ctx, &s.first)
	}
	switch {
	case m.Method == "" && hasID:
		s.answered(m.ID, body)
		ctx.SetStatusCode(http.StatusAccepted)
	case !hasID:
		// A notification: nothing goes on its POST.
		f.g.handle(f.g.mcp.WithContext(s.ctx, s), body)
		ctx.SetStatusCode(http.StatusAccepted)
	case m.Method == string(mcp.MethodToolsList) && s.answersDirect():
		if out, ok := f.g.listAnswer(s.id, body, f.g.listFor(&s.clientState)); ok {
			ctx.SetContentType("application/json")
			ctx.SetBody(out)
			return
		}
		f.request(ctx, s, body, false)
	default:
		f.request(ctx, s, body, false)
	}
}

// request passes a request of session s to the gateway's MCP server and
// answers the POST. The request ends with its session, or when the app
// goes away. With directOnly only a direct call is made: false says that
// body is not one, and nothing was done.
func (f *httpFace) request(ctx *fasthttp.RequestCtx, s *httpSession, body []byte, directOnly bool) bool {
	cctx, cancel := callContext(s.ctx)
	p := newPostStream(cancel)
	mctx := f.g.mcp.WithContext(cctx, postSession{s, p})
	if !f.g.directCallIn(mctx, cancel, body, p.finish) { // which keeps nothing of body
		if directOnly {
			p.ready.release()
			cancel()
			return false
		}
		body = bytes.Clone(body) // fasthttp's, until the POST is answered
		go func() { p.finish(f.g.handleMCP(mctx, body)) }()
	}
	stop := watchConn(ctx.Conn(), goneAfter, cancel)
	f.answerRequest(ctx, p, func() { stop(); cancel() }, true)
	return true
}

// answer answers a POST with p once its request has something to say,
// then calls end.
func (f *httpFace) answer(ctx *fasthttp.RequestCtx, p *postStream, end func()) {
	f.answerRequest(ctx, p, end, false)
}

// answerRequest is answer; request says that the POST is a request,
// whose POST is answered with an event stream and no answer in it when
// the app cancelled the request (a request's POST is answered with JSON
// or an event stream, and a cancelled request is not answered).
func (f *httpFace) answerRequest(ctx *fasthttp.RequestCtx, p *postStream, end func(), request bool) {
	p.ready.wait()
	if res, ok := p.plain(); ok {
		end()
		if res == nil && request {
			ctx.SetContentType("text/event-stream")
			ctx.Response.Header.Set("Cache-Control", "no-cache")
			return
		}
		if res == nil {
			ctx.SetStatusCode(http.StatusAccepted)
			return
		}
		ctx.SetContentType("application/json")
		ctx.SetBody(append(res, '\n'))
		return
	}
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	ctx.Response.ImmediateHeaderFlush = true
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer end()
		p.stream(w)
	})
}

// initialize starts a session: its id goes on the answer when initialize
// succeeded.
func (f *httpFace) initialize(ctx *fasthttp.RequestCtx, body []byte) {
	id := f.ids.Generate()
	s := newHTTPSession(id)
	if app := tokenApp(ctx); app != "" {
		s.known.Store(&app)
	}
	p := newPostStream(func() {})
	res, ok := f.g.handle(f.g.mcp.WithContext(s.ctx, postSession{s, p}), body)
	if ok {
		if err := f.g.mcp.RegisterSession(context.WithoutCancel(s.ctx), s); err != nil {
			f.g.log.Error("gateway: starting an app's session", "err", err)
			f.ids.Terminate(id)
			s.end()
			httpError(ctx, "Internal Server Error: mcptray could not start the session", http.StatusInternalServerError)
			return
		}
		f.ids.set(id, s)
		ctx.Response.Header.Set(sessionHeader, id)
	} else {
		f.ids.Terminate(id)
		s.end()
	}
	p.finish(res, ok)
	f.answer(ctx, p, func() {})
}

// handle passes one message to the gateway's MCP server and returns its
// answer, encoded (nil when there is none), and whether it is a result. A
// panic answers the request with an error instead of ending mcptray. Both
// faces' sessions use it.
func (g *Gateway) handle(ctx context.Context, body []byte) (out []byte, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			out, ok = g.failed(body, p)
		}
	}()
	type answer struct {
		out      []byte
		isResult bool
	}
	ch := make(chan answer, 1)
	if g.directCall(ctx, body, func(out []byte, isResult bool) { ch <- answer{out, isResult} }) {
		a := <-ch
		return a.out, a.isResult
	}
	return g.handleMCP(ctx, body)
}

// failed is the answer to body when handling it panicked.
func (g *Gateway) failed(body []byte, p any) (out []byte, ok bool) {
	g.log.Error("gateway: handling an app's message", "panic", p)
	var m envelope
	if json.Unmarshal(body, &m) == nil && len(m.ID) > 0 {
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32603,"message":"mcptray failed on this request"}}`), false
	}
	return nil, false
}

// handleMCP is handle for a message that is not a direct call: mcp-go's
// MCP server answers it.
func (g *Gateway) handleMCP(ctx context.Context, body []byte) (out []byte, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			out, ok = g.failed(body, p)
		}
	}()
	if g.cancelDirect(ctx, body) {
		return nil, false
	}
	ctx, answerable := g.inFlight(ctx, body)
	res := g.mcp.HandleMessage(ctx, body)
	if !answerable() {
		return nil, false // the app cancelled it: no answer, as MCP says
	}
	switch res.(type) {
	case nil:
		return nil, false
	case mcp.JSONRPCError, *mcp.JSONRPCError:
	default:
		ok = true
	}
	b, err := json.Marshal(res)
	if err != nil {
		g.log.Error("gateway: encoding an answer", "err", err)
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"mcptray could not encode its answer"}}`), false
	}
	return b, ok
}

// getOrDelete opens a session's listening stream (GET) or ends the
// session (DELETE).
func (f *httpFace) getOrDelete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		http.Error(w, "Bad Request: the Mcp-Session-Id header is missing", http.StatusBadRequest)
		return
	}
	s := f.ids.get(id)
	if s == nil {
		http.Error(w, "Not Found: no such session", http.StatusNotFound)
		return
	}
	version := r.Header.Get(mcp.HeaderProtocolVersion)
	switch {
	case mcp.IsModernProtocol(version):
		f.rest.ServeHTTP(w, r) // not in the sessionless revision: mcp-go says so
	case version != "" && !mcp.IsValidProtocolVersion(version):
		http.Error(w, "Unsupported protocol version: "+version, http.StatusBadRequest)
	case r.Method == http.MethodDelete:
		f.end(r.Context(), s)
		w.WriteHeader(http.StatusOK)
	default:
		f.listen(w, r, s)
	}
}

// listen passes the session's notifications to the app until it goes
// away or the session ends. Several streams of one session take turns:
// each message goes on one of them.
func (f *httpFace) listen(w http.ResponseWriter, r *http.Request, s *httpSession) {
	s.listening.Add(1)
	defer func() {
		s.touch()
		s.listening.Add(-1)
	}()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	beat := time.NewTicker(listenHeartbeat)
	defer beat.Stop()
	for {
		var err error
		select {
		case n := <-s.notifications:
			var b []byte
			if b, err = json.Marshal(n); err == nil {
				err = writeEvent(w, b)
			}
		case <-beat.C:
			_, err = io.WriteString(w, ": ping\n\n")
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
		if err != nil || rc.Flush() != nil {
			return
		}
	}
}

// end ends session s: its requests are cancelled and its listening
// streams end.
func (f *httpFace) end(ctx context.Context, s *httpSession) {
	if !f.ids.remove(s) {
		return
	}
	s.end()
	f.g.mcp.UnregisterSession(context.WithoutCancel(ctx), s.id)
}

// endAll ends every session, when the face stops.
func (f *httpFace) endAll() {
	for _, s := range f.ids.all() {
		f.end(context.Background(), s)
	}
}

// sweep ends the sessions that went unused for sessionIdle before now.
func (f *httpFace) sweep(now time.Time) {
	for _, s := range f.ids.idle(now.Add(-sessionIdle)) {
		f.g.log.Debug("gateway: forgetting an idle session", "client", s.GetClientInfo().Name)
		f.end(context.Background(), s)
	}
}

// sweepUntil sweeps every sweepEvery until ctx ends, for apps that went
// away without ending their session.
func (f *httpFace) sweepUntil(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			f.sweep(now)
		case <-ctx.Done():
			return
		}
	}
}
