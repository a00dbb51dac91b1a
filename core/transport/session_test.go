package transport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// restartable is a server that can be restarted under its clients: the
// handler behind it is replaced, so the sessions it knew are forgotten.
//
// With notFound empty, the new mcp-go instance answers an unknown session
// itself (HTTP 404, plain text). Otherwise the front answers it, as the
// TypeScript SDK does: 404 with notFound, a JSON-RPC error, as the body.
type restartable struct {
	make     func() http.Handler
	notFound string

	mu    sync.Mutex
	h     http.Handler
	known map[string]bool
}

func newRestartable(make func() http.Handler, notFound string) *restartable {
	r := &restartable{make: make, notFound: notFound}
	r.restart()
	return r
}

func (r *restartable) restart() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h = r.make()
	r.known = map[string]bool{}
}

func (r *restartable) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	h, known := r.h, r.known
	id := req.Header.Get(mcptransport.HeaderKeySessionID)
	if id == "" {
		id = req.URL.Query().Get("sessionId") // the SSE transport's session
	}
	unknown := id != "" && !known[id] && req.Method == http.MethodPost
	r.mu.Unlock()

	if r.notFound != "" && unknown {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, r.notFound)
		return
	}
	h.ServeHTTP(&sseSessionSpy{ResponseWriter: w, r: r}, req)
	r.mu.Lock()
	if id := w.Header().Get(mcptransport.HeaderKeySessionID); id != "" {
		known[id] = true
	}
	r.mu.Unlock()
}

// sseSessionSpy reads the session id out of the endpoint event an SSE
// server writes, so that the session counts as known.
type sseSessionSpy struct {
	http.ResponseWriter
	r *restartable
}

func (s *sseSessionSpy) Write(p []byte) (int, error) {
	if _, rest, ok := strings.Cut(string(p), "sessionId="); ok {
		id, _, _ := strings.Cut(rest, "\n")
		s.r.mu.Lock()
		s.r.known[strings.TrimSpace(id)] = true
		s.r.mu.Unlock()
	}
	return s.ResponseWriter.Write(p)
}

func (s *sseSessionSpy) Flush() { s.ResponseWriter.(http.Flusher).Flush() }

func (s *sseSessionSpy) Unwrap() http.ResponseWriter { return s.ResponseWriter }

const (
	notFoundTight  = `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`
	notFoundSpaced = `{"jsonrpc": "2.0", "error": {"code": -32001, "message": "Session not found"}, "id": null}`
)

func TestSessionExpiredAfterRestart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		notFound string
		// wantTyped: the stack's *SessionExpiredError, not only mcp-go's
		// ErrSessionTerminated.
		wantTyped bool
	}{
		{"mcp-go server: plain 404", "", false},
		{"404 with -32001", notFoundTight, true},
		{"404 with -32001, spaced JSON", notFoundSpaced, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			srv := newRestartable(func() http.Handler {
				return server.NewStreamableHTTPServer(newMCPServer(nil),
					server.WithStateful(true), server.WithStreamableHTTPLogger(discard()))
			}, tt.notFound)
			ts := newHTTPTestServer(t, srv)
			tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, NewHTTPClient(HTTPOptions{}), discard())
			if err != nil {
				t.Fatal(err)
			}
			c := startClient(t, tr)
			connectAndUse(t, ctx, c)

			srv.restart()

			_, err = callTool(ctx, c, "echo", map[string]any{"text": "after restart"})
			if err == nil {
				t.Fatal("CallTool succeeded on a session the restarted server cannot know")
			}
			if !IsSessionExpired(err) {
				t.Fatalf("IsSessionExpired(%v) = false, want true", err)
			}
			var se *SessionExpiredError
			if got := errors.As(err, &se); got != tt.wantTyped {
				t.Fatalf("errors.As(%v, *SessionExpiredError) = %v, want %v", err, got, tt.wantTyped)
			}
			if tt.wantTyped && (se.Status != 404 || se.Code != -32001 || se.Message != "Session not found") {
				t.Errorf("SessionExpiredError = %+v, want 404, -32001, the server's message", *se)
			}
			if !errors.Is(err, mcptransport.ErrSessionTerminated) {
				t.Errorf("errors.Is(%v, ErrSessionTerminated) = false, want true", err)
			}
			if IsAuthError(err) || ShouldFallBackToSSE(err) {
				t.Errorf("an expired session also reads as a sign-in problem or an old server: %v", err)
			}

			// What the connection manager then does: a new connection works.
			tr2, err := NewStreamableHTTP(ts.URL+"/mcp", nil, NewHTTPClient(HTTPOptions{}), discard())
			if err != nil {
				t.Fatal(err)
			}
			connectAndUse(t, ctx, startClient(t, tr2))
		})
	}
}

func TestSessionExpiredOverSSE(t *testing.T) {
	t.Parallel()
	for _, stack := range []bool{true, false} {
		name := "without the stack: from mcp-go's error text"
		if stack {
			name = "with the stack: typed"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			srv := newRestartable(func() http.Handler {
				return server.NewSSEServer(newMCPServer(nil))
			}, notFoundSpaced)
			ts := newHTTPTestServer(t, srv)
			hc := &http.Client{}
			if stack {
				hc = NewHTTPClient(HTTPOptions{})
			}
			tr, err := NewSSE(ts.URL+"/sse", nil, hc, discard())
			if err != nil {
				t.Fatal(err)
			}
			c := startClient(t, tr)
			connectAndUse(t, ctx, c)

			srv.restart()

			_, err = c.ListTools(ctx, mcp.ListToolsRequest{})
			if !IsSessionExpired(err) {
				t.Fatalf("IsSessionExpired(%v) = false, want true", err)
			}
			var se *SessionExpiredError
			if got := errors.As(err, &se); got != stack {
				t.Errorf("errors.As(%v, *SessionExpiredError) = %v, want %v", err, got, stack)
			}
		})
	}
}

func TestSessionExpiredSignals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"mcp-go's sentinel, wrapped", fmt.Errorf("transport error: failed to send request: %w", mcptransport.ErrSessionTerminated), true},
		{"typed", fmt.Errorf("x: %w", &SessionExpiredError{Status: 404, Code: -32001}), true},
		{"SSE text, tight", fmt.Errorf("request failed with status 404: %s", notFoundTight), true},
		{"SSE text, spaced", fmt.Errorf("request failed with status 404: %s", notFoundSpaced), true},
		{"SSE text, newline after the colon", fmt.Errorf("request failed with status 404: {\"error\":{\"code\":\n-32001}}"), true},
		{"404 without the code", errors.New("request failed with status 404: page not found"), false},
		{"the code without 404", fmt.Errorf("request failed with status 400: %s", notFoundTight), false},
		{"404 only inside a longer number", fmt.Errorf("POST http://127.0.0.1:40404/mcp: status 400: %s", notFoundTight), false},
		{"another code", errors.New(`request failed with status 404: {"error":{"code":-320010}}`), false},
		{"another code, 32001 positive", errors.New(`status 404: {"error":{"code":32001}}`), false},
		{"a different failure", errors.New("connection refused"), false},
	}
	for _, tt := range tests {
		if got := IsSessionExpired(tt.err); got != tt.want {
			t.Errorf("%s: IsSessionExpired(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
	if msg := (&SessionExpiredError{}).Error(); !strings.Contains(msg, "restarted") {
		t.Errorf("SessionExpiredError.Error() = %q, want plain words about a restart", msg)
	}
}
