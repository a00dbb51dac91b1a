package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/mcptray/mcptray/core/transport/transporttest"
)

func TestAcceptNormalisedOnRawRequests(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	log := &headerLog{name: "Accept"}
	ts := newStreamableServer(t, newMCPServer(nil), log.wrap)
	hc := NewHTTPClient(HTTPOptions{})

	tests := []struct {
		method, accept, want string
		wantPresent          bool
	}{
		{http.MethodPost, "", acceptPOST, true},
		{http.MethodPost, "application/json", acceptPOST, true},
		{http.MethodPost, "*/*", acceptPOST, true},
		{http.MethodGet, "", acceptGET, true},
		{http.MethodGet, "application/json", acceptGET, true},
		{http.MethodDelete, "", "", false},
	}
	for _, tt := range tests {
		var body *strings.Reader
		if tt.method == http.MethodPost {
			body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		} else {
			body = strings.NewReader("")
		}
		req, _ := http.NewRequestWithContext(ctx, tt.method, ts.URL+"/mcp", body)
		req.Header.Set("Content-Type", "application/json")
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		before := req.Header.Get("Accept")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.method, err)
		}
		resp.Body.Close()
		if req.Header.Get("Accept") != before {
			t.Errorf("%s: the caller's request was changed", tt.method)
		}
		seen := log.all()
		got := seen[len(seen)-1]
		if got.present != tt.wantPresent || got.value != tt.want {
			t.Errorf("%s with Accept %q: server saw %q (present %v), want %q (present %v)",
				tt.method, tt.accept, got.value, got.present, tt.want, tt.wantPresent)
		}
	}
}

func TestAcceptNormalisedThroughMCPClients(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)

	// A config header that replaces mcp-go's Accept must not survive.
	headers := map[string]string{"Accept": "application/json"}
	log := &headerLog{name: "Accept"}
	ts := newStreamableServer(t, newMCPServer(nil), log.wrap)
	tr, err := NewStreamableHTTP(ts.URL+"/mcp", headers, NewHTTPClient(HTTPOptions{}), discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	connectAndUse(t, ctx, c)

	posts := 0
	for _, s := range log.all() {
		switch s.method {
		case http.MethodPost:
			posts++
			if s.value != acceptPOST {
				t.Errorf("POST %s carried Accept %q, want %q", s.rpc, s.value, acceptPOST)
			}
		case http.MethodGet:
			if s.value != acceptGET {
				t.Errorf("GET carried Accept %q, want %q", s.value, acceptGET)
			}
		}
	}
	if posts < 3 {
		t.Errorf("the server saw %d POSTs, want at least initialize, tools/list and tools/call", posts)
	}
}

func TestAcceptLeavesWebSocketHandshakeAlone(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	log := &headerLog{name: "Accept"}
	h := transporttest.NewWebSocketHandler(newMCPServer(nil))
	ts := newHTTPTestServer(t, log.wrap(h))
	t.Cleanup(h.CloseConnections)

	conn, _, err := websocket.Dial(ctx, transporttest.WebSocketURL(ts.URL), &websocket.DialOptions{
		HTTPClient:   NewHTTPClient(HTTPOptions{}),
		Subprotocols: []string{"mcp"},
	})
	if err != nil {
		t.Fatalf("dialling through the stack: %v", err)
	}
	conn.CloseNow()
	seen := log.all()
	if len(seen) != 1 || seen[0].present {
		t.Errorf("the handshake carried Accept %q (present %v), want none", seen[0].value, seen[0].present)
	}
}
