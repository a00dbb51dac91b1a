package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// discoverServer answers each POST with the next of its answers (status and
// body), and counts the methods it saw.
type discoverServer struct {
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	methods []string
}

func (s *discoverServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Method string `json:"method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	s.mu.Lock()
	s.methods = append(s.methods, req.Method)
	answer := s.answers[0]
	if len(s.answers) > 1 {
		s.answers = s.answers[1:]
	}
	s.mu.Unlock()
	answer(w)
}

func jsonAnswer(status int, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func discoverRequest() mcptransport.JSONRPCRequest {
	return mcptransport.JSONRPCRequest{
		JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: string(mcp.MethodServerDiscover),
		Params: map[string]any{"_meta": map[string]any{mcp.MetaKeyProtocolVersion: "2026-07-28"}},
	}
}

func newModernTestTransport(t *testing.T, h http.Handler) *streamableHTTP {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr, err := NewStreamableHTTP(srv.URL, nil, NewHTTPClient(HTTPOptions{}), discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	st, ok := tr.(*streamableHTTP)
	if !ok {
		t.Fatalf("NewStreamableHTTP gave a %T", tr)
	}
	if st.RequiresLegacyProtocol() {
		t.Fatal("the transport says it can only speak revisions before 2026-07-28")
	}
	return st
}

const discovered = `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}`

// A server that rejects the version it lists as supported is asked again.
func TestDiscoverRetriesASupportedVersion(t *testing.T) {
	t.Parallel()
	ds := &discoverServer{answers: []func(http.ResponseWriter){
		jsonAnswer(400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":""}}}`),
		jsonAnswer(200, discovered),
	}}
	tr := newModernTestTransport(t, ds)
	resp, err := tr.SendRequest(context.Background(), discoverRequest())
	if err != nil || resp.Error != nil {
		t.Fatalf("server/discover = %+v, %v; want the second answer", resp, err)
	}
	if len(ds.methods) != 2 {
		t.Errorf("the server saw %q; want server/discover twice", ds.methods)
	}
}

// A server that answers server/discover as it answers anything, naming no
// version, is not a 2026-07-28 one.
func TestDiscoverWithoutVersionsIsOld(t *testing.T) {
	t.Parallel()
	tr := newModernTestTransport(t, &discoverServer{answers: []func(http.ResponseWriter){
		jsonAnswer(200, `{"jsonrpc":"2.0","id":1,"result":{}}`),
	}})
	if _, err := tr.SendRequest(context.Background(), discoverRequest()); !errors.Is(err, errNotModern) {
		t.Fatalf("server/discover = %v, want errNotModern", err)
	}
}

// A sign-in asked for on server/discover is not hidden by the fallback to
// initialize: initialize fails with it without reaching the server.
func TestDiscoverSignInStopsInitialize(t *testing.T) {
	t.Parallel()
	ds := &discoverServer{answers: []func(http.ResponseWriter){
		func(w http.ResponseWriter) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/prm"`)
			w.WriteHeader(http.StatusUnauthorized)
		},
		jsonAnswer(200, `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`),
	}}
	tr := newModernTestTransport(t, ds)
	if _, err := tr.SendRequest(context.Background(), discoverRequest()); !IsAuthError(err) {
		t.Fatalf("server/discover = %v, want an *AuthError", err)
	}
	_, err := tr.SendRequest(context.Background(), mcptransport.JSONRPCRequest{
		JSONRPC: "2.0", ID: mcp.NewRequestId(int64(2)), Method: string(mcp.MethodInitialize), Params: map[string]any{},
	})
	var ae *AuthError
	if !errors.As(err, &ae) || ae.ResourceMetadata != "http://127.0.0.1/prm" {
		t.Fatalf("initialize after a sign-in request = %v, want the same *AuthError", err)
	}
	if len(ds.methods) != 1 {
		t.Errorf("the server saw %q; want only server/discover", ds.methods)
	}
}
