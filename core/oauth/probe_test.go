package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// sessionRecorder is a real streamable HTTP MCP server that records the
// sessions it opens and the ones a client closes with DELETE.
type sessionRecorder struct {
	next http.Handler

	mu             sync.Mutex
	opened, closed []string
}

func (r *sessionRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodDelete {
		r.mu.Lock()
		r.closed = append(r.closed, req.Header.Get(sessionHeader))
		r.mu.Unlock()
	}
	r.next.ServeHTTP(w, req)
	if id := w.Header().Get(sessionHeader); id != "" && req.Method == http.MethodPost {
		r.mu.Lock()
		r.opened = append(r.opened, id)
		r.mu.Unlock()
	}
}

// TestProbeClosesItsSession: the sign-in probe's initialize, answered by a
// server that needs no sign-in, opens a session; the probe closes it.
func TestProbeClosesItsSession(t *testing.T) {
	t.Parallel()
	rec := &sessionRecorder{next: server.NewStreamableHTTPServer(mcpserver.New(mcpserver.Options{}))}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	m := New(Options{Store: newMemStore()})
	s := &config.Server{Name: "open", Transport: config.HTTP, URL: srv.URL + "/mcp"}

	if ch := m.probe(context.Background(), s); ch != nil {
		t.Fatalf("probe = %+v; want no challenge", ch)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.opened) != 1 {
		t.Fatalf("the probe opened sessions %q; want one", rec.opened)
	}
	if len(rec.closed) != 1 || rec.closed[0] != rec.opened[0] {
		t.Errorf("sessions closed: %q; want the probe's, %q", rec.closed, rec.opened[0])
	}
}
