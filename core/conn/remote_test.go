package conn

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport/transporttest"
	"github.com/mcptray/mcptray/test/mcpserver"
)

func TestRemoteTransports(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		url       func(t *testing.T) string
		transport config.Transport
	}{
		{"streamable http", func(t *testing.T) string { return serveTest(t, mcpserver.Options{}, "http") }, config.HTTP},
		{"sse", func(t *testing.T) string { return serveTest(t, mcpserver.Options{}, "sse") }, config.SSE},
		// An SSE-only server configured as http: initialize over POST gets
		// 4xx and mcptray falls back to SSE.
		{"http falling back to sse", func(t *testing.T) string { return serveTest(t, mcpserver.Options{}, "sse") }, config.HTTP},
		{"websocket", func(t *testing.T) string {
			return transporttest.NewWebSocketServer(t, mcpserver.New(mcpserver.Options{}))
		}, config.WebSocket},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestManager(t, testOptions())
			if err := m.Apply(setOf(remoteEntry("remote", tc.url(t), tc.transport))); err != nil {
				t.Fatal(err)
			}
			info := waitState(t, m, "remote", Connected)
			if !hasTool(info, "echo") {
				t.Errorf("tools = %v", info.Tools)
			}
			res, err := m.CallTool(context.Background(), "remote", "echo", json.RawMessage(`{"text":"far away"}`))
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != "far away" {
				t.Errorf("echo = %q", got)
			}
		})
	}
}

// restartable is a streamable HTTP server that can be restarted: the new
// instance has forgotten every session, as a redeployed server has.
type restartable struct {
	mu    sync.Mutex
	h     http.Handler
	inits int // initialize requests seen
}

func (r *restartable) restart() {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Stateful, as deployed servers are: mcp-go's default accepts any
	// well-formed session id and would never notice a restart.
	r.h = server.NewStreamableHTTPServer(mcpserver.New(mcpserver.Options{}),
		server.WithSessionIdManager(&server.InsecureStatefulSessionIdManager{}),
		// A 2025-11-25 server: sessions, which these tests are about,
		// are gone in 2026-07-28.
		server.WithStreamableHTTPProtocolVersions("2025-11-25"))
}

func (r *restartable) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	if bytes.Contains(body, []byte(`"method":"initialize"`)) {
		r.inits++
	}
	h := r.h
	r.mu.Unlock()
	h.ServeHTTP(w, req)
}

func (r *restartable) initializations() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inits
}

// TestRemoteRestartMidSession: the server forgets the session (404 with
// -32001); the call is retried once on a new session and succeeds.
func TestRemoteRestartMidSession(t *testing.T) {
	t.Parallel()
	rs := &restartable{}
	rs.restart()
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)

	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(remoteEntry("remote", srv.URL+"/mcp", config.HTTP))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "remote", Connected)
	rs.restart()
	res, err := m.CallTool(context.Background(), "remote", "echo", json.RawMessage(`{"text":"after restart"}`))
	if err != nil {
		t.Fatalf("the call across a server restart failed: %v", err)
	}
	if got := text(t, res); got != "after restart" {
		t.Errorf("echo = %q", got)
	}
	if n := rs.initializations(); n != 2 {
		t.Errorf("the server saw %d initialize requests; want 2 (the first session, and the one after the restart)", n)
	}
	waitState(t, m, "remote", Connected)
}

func TestRemoteNeedsAuth(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://example.invalid/.well-known/oauth-protected-resource"`)
		http.Error(w, "sign in first", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(remoteEntry("locked", srv.URL+"/mcp", config.HTTP))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "locked", NeedsAuth)
	_, err := m.CallTool(context.Background(), "locked", "echo", nil)
	if !IsNeedsAuth(err) {
		t.Errorf("a call to a server that needs sign-in: %v", err)
	}
}

// TestRemoteReconnectsByItself: a server that restarts while nobody calls
// it, or whose connection drops, is found out by the idle ping and
// connected to anew.
func TestRemoteReconnectsByItself(t *testing.T) {
	t.Parallel()
	opts := testOptions()
	opts.PingInterval = 50 * time.Millisecond

	t.Run("http server restarted", func(t *testing.T) {
		t.Parallel()
		rs := &restartable{}
		rs.restart()
		srv := httptest.NewServer(rs)
		t.Cleanup(srv.Close)
		m := newTestManager(t, opts)
		if err := m.Apply(setOf(remoteEntry("remote", srv.URL+"/mcp", config.HTTP))); err != nil {
			t.Fatal(err)
		}
		first := waitState(t, m, "remote", Connected)
		rs.restart()
		waitFor(t, m, "remote", "a new connection", func(i ServerInfo) bool {
			return i.Status.State == Connected && i.Status.Since.After(first.Status.Since)
		})
	})

	t.Run("websocket dropped", func(t *testing.T) {
		t.Parallel()
		h := transporttest.NewWebSocketHandler(mcpserver.New(mcpserver.Options{}))
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		m := newTestManager(t, opts)
		if err := m.Apply(setOf(remoteEntry("ws", transporttest.WebSocketURL(srv.URL), config.WebSocket))); err != nil {
			t.Fatal(err)
		}
		first := waitState(t, m, "ws", Connected)
		h.CloseConnections()
		waitFor(t, m, "ws", "a new connection", func(i ServerInfo) bool {
			return i.Status.State == Connected && i.Status.Since.After(first.Status.Since)
		})
	})
}
