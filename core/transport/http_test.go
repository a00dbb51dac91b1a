package transport

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestHTTPStreamableRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	log := &headerLog{name: "X-Api-Key"}
	ts := newStreamableServer(t, newMCPServer(nil), log.wrap)

	tr, err := NewStreamableHTTP(ts.URL+"/mcp", map[string]string{"X-Api-Key": "k-123"}, NewHTTPClient(HTTPOptions{}), discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	connectAndUse(t, ctx, c)

	if tr.GetSessionId() == "" {
		t.Error("no session id after initialize: the server's Mcp-Session-Id was lost")
	}
	seen := log.all()
	if len(seen) == 0 {
		t.Fatal("the server saw no requests")
	}
	for _, s := range seen {
		if s.value != "k-123" {
			t.Errorf("%s %s carried X-Api-Key %q, want the config's header", s.method, s.rpc, s.value)
		}
	}
}

func TestHTTPStreamableDefaults(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	ts := newStreamableServer(t, newMCPServer(nil), nil)
	// No client and no logger: both have defaults.
	tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	connectAndUse(t, ctx, startClient(t, tr))

	if _, err := NewStreamableHTTP("http://[::1", nil, nil, nil); err == nil {
		t.Error("NewStreamableHTTP accepted a URL that does not parse")
	}
	if _, err := NewSSE("http://[::1", nil, nil, nil); err == nil {
		t.Error("NewSSE accepted a URL that does not parse")
	}
}

func TestHTTPStreamableGETStreamCarriesNotifications(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newMCPServer(nil)
	log := &headerLog{name: "Accept"}
	ts := newStreamableServer(t, srv, log.wrap)
	tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, NewHTTPClient(HTTPOptions{}), discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	changed := make(chan struct{}, 1)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	connectAndUse(t, ctx, c)

	// No request is in flight, so only the GET stream can carry the
	// notification. Sent before the stream opens, it waits in the session's
	// queue until it does.
	srv.AddTool(mcp.NewTool("added"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(""), nil
	})
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed arrived between requests: the GET stream is not open")
	}
	gets := 0
	for _, s := range log.all() {
		if s.method == http.MethodGet {
			gets++
		}
	}
	if gets == 0 {
		t.Error("the client never opened the GET stream")
	}
}

func TestHTTPSSERoundTrip(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	finish := make(chan struct{})
	started := make(chan struct{})
	srv := newMCPServer(map[string]server.ToolHandlerFunc{
		"long": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			select {
			case <-finish:
				return mcp.NewToolResultText("done"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	log := &headerLog{name: "X-Api-Key"}
	ts := newHTTPTestServer(t, log.wrap(server.NewSSEServer(srv)))

	hc := NewHTTPClient(HTTPOptions{RequestTimeout: shortTimeout})
	tr, err := NewSSE(ts.URL+"/sse", map[string]string{"X-Api-Key": "k-456"}, hc, discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	connectAndUse(t, ctx, c)

	// Over SSE the answer comes on the GET stream, long after the POST: a
	// tool that outlasts the request timeout must still get its answer.
	done := make(chan error, 1)
	go func() {
		text, err := callTool(ctx, c, "long", nil)
		if err == nil && text != "done" {
			err = io.ErrUnexpectedEOF
		}
		done <- err
	}()
	<-started
	time.Sleep(3 * shortTimeout) // the tool outlasts the request timeout: the point
	close(finish)
	if err := <-done; err != nil {
		t.Fatalf("a tool call longer than the request timeout over SSE: %v", err)
	}

	for _, s := range log.all() {
		if s.value != "k-456" {
			t.Errorf("%s %s carried X-Api-Key %q, want the config's header", s.method, s.rpc, s.value)
		}
	}
}

func TestHTTPClientHasNoOverallTimeout(t *testing.T) {
	t.Parallel()
	hc := NewHTTPClient(HTTPOptions{})
	if hc.Timeout != 0 {
		t.Errorf("http.Client.Timeout = %v: it would cut long streams", hc.Timeout)
	}
	tt, ok := hc.Transport.(*timeoutTripper)
	if !ok || tt.timeout != DefaultRequestTimeout {
		t.Errorf("outermost RoundTripper = %T with timeout %v, want the timeout layer with %v", hc.Transport, tt.timeout, DefaultRequestTimeout)
	}
	if tt.next.(*authTripper).next.(statusTripper).next.(sessionTripper).next.(acceptTripper).next.(limitTripper).next.(*http.Transport) == http.DefaultTransport {
		t.Error("the base transport is http.DefaultTransport itself, not a clone")
	}
	if NewHTTPClient(HTTPOptions{RequestTimeout: -1}).Transport.(*timeoutTripper).timeout > 0 {
		t.Error("a negative RequestTimeout did not turn the timeout off")
	}
}

// TestHTTPPromisedNumbers pins, as literals, the request timeout (60 s)
// and the SSE transport's wait for an answer, the tool-call bound (about
// 27.8 h).
func TestHTTPPromisedNumbers(t *testing.T) {
	t.Parallel()
	if DefaultRequestTimeout != 60*time.Second {
		t.Errorf("DefaultRequestTimeout = %v, want 60s", DefaultRequestTimeout)
	}
	if sseResponseTimeout != 27*time.Hour+46*time.Minute+40*time.Second {
		t.Errorf("sseResponseTimeout = %v, want 27h46m40s", sseResponseTimeout)
	}
}

func TestHTTPRPCMethod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, body, want string
	}{
		{http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "initialize"},
		{http.MethodPost, `{"params":{"name":"x","arguments":{"method":"no"}},"method":"tools/call","id":2}`, "tools/call"},
		{http.MethodPost, ` { "method" : "ping" } `, "ping"},
		{http.MethodPost, `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{http.MethodPost, `[{"method":"ping"}]`, ""},
		{http.MethodPost, `not json`, ""},
		{http.MethodPost, `{"method":7}`, ""},
		{http.MethodGet, ``, ""},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, "http://example.com/mcp", bytes.NewReader([]byte(tt.body)))
		if got := rpcMethod(req); got != tt.want {
			t.Errorf("rpcMethod(%s %s) = %q, want %q", tt.method, tt.body, got, tt.want)
		}
		// The body itself is left for the transport.
		if tt.body != "" {
			b, _ := io.ReadAll(req.Body)
			if string(b) != tt.body {
				t.Errorf("after rpcMethod the body is %q, want %q", b, tt.body)
			}
		}
	}
	// A body that cannot be re-read is not read at all.
	req, _ := http.NewRequest(http.MethodPost, "http://example.com/mcp", io.NopCloser(strings.NewReader(`{"method":"ping"}`)))
	if got := rpcMethod(req); got != "" {
		t.Errorf("rpcMethod without GetBody = %q, want \"\"", got)
	}
}
