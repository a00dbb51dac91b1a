package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// The HTTP face's sessions (MCP's revisions with Mcp-Session-Id) are served
// by the gateway itself, as MCP's streamable HTTP transport says
// (2025-11-25): a POST of initialize starts a session, whose id its answer
// carries; a POST of a request is answered with application/json, or with
// an event stream when messages about the request come before the answer
// (httpsession.go); a POST of a notification or of the app's answer to the
// gateway is answered 202; a GET opens the session's listening stream; a
// DELETE ends the session. Every message goes straight to the gateway's MCP
// server with the session in its context, as on the stdio face's stream:
// no goroutine, and one parse of the body besides mcp-go's, for a plain
// call. Requests of MCP's sessionless revision (2026-07-28), and whatever
// else is not a session's, go to mcp-go's streamable HTTP server (rest).

// listenHeartbeat is how often a listening stream with nothing to say
// sends a comment, so that nothing between the app and the gateway takes it
// for dead.
const listenHeartbeat = 30 * time.Second

// sweepEvery is how often sessions are looked at for being idle.
const sweepEvery = time.Hour

// httpFace is the gateway's streamable HTTP handler.
type httpFace struct {
	g    *Gateway
	ids  *sessions
	rest http.Handler // mcp-go's, for what is not a session's
}

func (f *httpFace) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodPost:
		f.post(w, r)
	case http.MethodGet, http.MethodDelete:
		f.getOrDelete(w, r)
	default:
		f.rest.ServeHTTP(w, r)
	}
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
func (f *httpFace) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Invalid content type: must be 'application/json'", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMessage))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			http.Error(w, "Request Entity Too Large: a message may be 32 MiB at most", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "Bad Request: the message could not be read", http.StatusBadRequest)
		return
	}
	var m postEnvelope
	version := r.Header.Get(mcp.HeaderProtocolVersion)
	if json.Unmarshal(body, &m) != nil || mcp.IsModernProtocol(version) || mcp.IsModernProtocol(m.Params.Meta.Version) {
		// Not JSON-RPC (mcp-go says so), or the sessionless revision.
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.rest.ServeHTTP(w, r)
		return
	}
	if m.Method == string(mcp.MethodInitialize) {
		f.initialize(w, r, body)
		return
	}
	if version != "" && !mcp.IsValidProtocolVersion(version) {
		http.Error(w, "Unsupported protocol version: "+version, http.StatusBadRequest)
		return
	}
	s := f.ids.get(r.Header.Get(sessionHeader))
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case s == nil && m.Method == "" && hasID:
		// An answer outside a session: mcp-go's codes (202 to an
		// empty one, such as a ping's).
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.rest.ServeHTTP(w, r)
		return
	case s == nil:
		http.Error(w, "Invalid session ID", http.StatusNotFound)
		return
	}
	s.touch()
	switch {
	case m.Method == "" && hasID:
		s.answered(m.ID, body)
		w.WriteHeader(http.StatusAccepted)
	case m.Method == string(mcp.MethodToolsList) && hasID && s.legacy():
		if out, ok := f.g.listAnswer(s.id, body, f.g.listJSON.Load()); ok {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(out)
			return
		}
		fallthrough
	default:
		f.handle(w, r, s, body)
	}
}

// handle passes one message of session s to the gateway's MCP server and
// answers the POST. The request ends with the POST (the app went away) or
// with the session.
func (f *httpFace) handle(w http.ResponseWriter, r *http.Request, s *httpSession, body []byte) {
	p := &postStream{w: w}
	ctx, cancel := context.WithCancel(f.g.mcp.WithContext(r.Context(), postSession{s, p}))
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()
	res, _ := f.g.handle(ctx, body)
	f.answer(p, res)
}

// answer answers a POST with res, the MCP server's answer; nil is none.
func (f *httpFace) answer(p *postStream, res []byte) {
	if res == nil {
		p.accepted()
		return
	}
	p.answer(res, http.StatusOK)
}

// initialize starts a session: its id goes on the answer when initialize
// succeeded.
func (f *httpFace) initialize(w http.ResponseWriter, r *http.Request, body []byte) {
	id := f.ids.Generate()
	s := newHTTPSession(id)
	p := &postStream{w: w}
	res, ok := f.g.handle(f.g.mcp.WithContext(r.Context(), postSession{s, p}), body)
	if !ok {
		f.ids.Terminate(id)
		s.end()
		f.answer(p, res)
		return
	}
	if err := f.g.mcp.RegisterSession(context.WithoutCancel(r.Context()), s); err != nil {
		f.g.log.Error("gateway: starting an app's session", "err", err)
		f.ids.Terminate(id)
		s.end()
		http.Error(w, "Internal Server Error: mcptray could not start the session", http.StatusInternalServerError)
		return
	}
	f.ids.set(id, s)
	w.Header().Set(sessionHeader, id)
	f.answer(p, res)
}

// handle passes one message to the gateway's MCP server and returns its
// answer, encoded (nil when there is none), and whether it is a result. A
// panic answers the request with an error instead of ending mcptray. Both
// faces' sessions use it.
func (g *Gateway) handle(ctx context.Context, body []byte) (out []byte, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			g.log.Error("gateway: handling an app's message", "panic", p)
			var m envelope
			if json.Unmarshal(body, &m) == nil && len(m.ID) > 0 {
				out, ok = []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32603,"message":"mcptray failed on this request"}}`), false
			}
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
	if g.cancelDirect(ctx, body) {
		return nil, false
	}
	res := g.mcp.HandleMessage(ctx, body)
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
