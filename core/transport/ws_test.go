package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/transport/transporttest"
)

// newWebSocket returns a WebSocket transport to url through the stack,
// closed when the test ends.
func newWebSocket(t *testing.T, url string, opts HTTPOptions) *WebSocket {
	t.Helper()
	ws := NewWebSocket(url, map[string]string{"X-Api-Key": "k-ws"}, NewHTTPClient(opts), discard())
	t.Cleanup(func() { ws.Close() })
	return ws
}

// blockingTool is a tool that says it has started and then waits for its
// context to end.
func blockingTool(started chan<- struct{}) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

func TestWebSocketRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	big := strings.Repeat("x", 200<<10) // far over coder/websocket's 32 KiB default
	srv := newMCPServer(map[string]server.ToolHandlerFunc{
		"big": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(big), nil
		},
	})
	var mu sync.Mutex
	var seen http.Header
	h := transporttest.NewWebSocketHandler(srv)
	ts := newHTTPTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(h.CloseConnections)

	ws := newWebSocket(t, transporttest.WebSocketURL(ts.URL), HTTPOptions{Tokens: &tokens{token: "ws-token"}})
	c := startClient(t, ws)
	connectAndUse(t, ctx, c)

	got, err := callTool(ctx, c, "big", nil)
	if err != nil || got != big {
		t.Fatalf("CallTool big = %d bytes, %v; want %d bytes", len(got), err, len(big))
	}

	mu.Lock()
	defer mu.Unlock()
	for name, want := range map[string]string{
		"Sec-WebSocket-Protocol": "mcp",
		"X-Api-Key":              "k-ws",
		"Authorization":          "Bearer ws-token",
	} {
		if got := seen.Get(name); got != want {
			t.Errorf("handshake header %s = %q, want %q", name, got, want)
		}
	}
	if ws.GetSessionId() != "" {
		t.Errorf("GetSessionId = %q, want \"\"", ws.GetSessionId())
	}
	select {
	case <-ws.Done():
		t.Errorf("Done is closed on a live connection (Err %v)", ws.Err())
	default:
	}
}

func TestWebSocketNotification(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	var srv *server.MCPServer
	srv = newMCPServer(map[string]server.ToolHandlerFunc{
		"announce": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := srv.SendNotificationToClient(ctx, "notifications/message",
				map[string]any{"level": "info", "data": "hello from the server"})
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("sent"), nil
		},
	})
	ws := newWebSocket(t, transporttest.NewWebSocketServer(t, srv), HTTPOptions{})
	c := startClient(t, ws)
	got := make(chan mcp.JSONRPCNotification, 1)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/message" {
			got <- n
		}
	})
	if err := initialize(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(ctx, c, "announce", nil); err != nil {
		t.Fatalf("CallTool announce: %v", err)
	}
	select {
	case n := <-got:
		if n.Params.AdditionalFields["data"] != "hello from the server" {
			t.Errorf("notification params = %v", n.Params.AdditionalFields)
		}
	case <-ctx.Done():
		t.Fatal("the server's notification never arrived")
	}

	// A server-wide notification, not tied to a request.
	changed := make(chan struct{}, 1)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	srv.AddTool(mcp.NewTool("added"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(""), nil
	})
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("tools/list_changed never arrived")
	}
}

// roots answers the server's roots/list.
type roots struct{}

func (roots) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///home/person/project", Name: "project"}}}, nil
}

func TestWebSocketServerToClientRequest(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	var srv *server.MCPServer
	srv = newMCPServer(map[string]server.ToolHandlerFunc{
		"where": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := srv.RequestRoots(ctx, mcp.ListRootsRequest{})
			if err != nil {
				return nil, err
			}
			if len(res.Roots) == 0 {
				return mcp.NewToolResultText("no roots"), nil
			}
			return mcp.NewToolResultText(res.Roots[0].URI), nil
		},
	})
	url := transporttest.NewWebSocketServer(t, srv)

	c := startClient(t, newWebSocket(t, url, HTTPOptions{}), client.WithRootsHandler(roots{}))
	if err := initialize(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := callTool(ctx, c, "where", nil)
	if err != nil || got != "file:///home/person/project" {
		t.Fatalf("CallTool where = %q, %v; want the client's root", got, err)
	}

	// Without a request handler the server gets a JSON-RPC error, not
	// silence.
	ws := newWebSocket(t, url, HTTPOptions{})
	if err := ws.Start(ctx); err != nil {
		t.Fatal(err)
	}
	resp, err := ws.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "initialize",
		Params: map[string]any{"protocolVersion": testProtocol, "clientInfo": map[string]any{"name": "t", "version": "0"}, "capabilities": map[string]any{"roots": map[string]any{}}}})
	if err != nil || resp.Error != nil {
		t.Fatalf("initialize over a bare transport: %v, %+v", err, resp)
	}
	resp, err = ws.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(2)), Method: "tools/call",
		Params: map[string]any{"name": "where"}})
	if err != nil {
		t.Fatalf("tools/call over a bare transport: %v", err)
	}
	var result mcp.CallToolResult
	if resp.Error == nil {
		if err := json.Unmarshal(resp.Result, &result); err != nil {
			t.Fatal(err)
		}
	}
	if resp.Error == nil && !result.IsError {
		t.Fatalf("tools/call where succeeded although nothing could answer roots/list: %s", resp.Result)
	}
}

func TestWebSocketServerGoneFailsPendingRequests(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	started := make(chan struct{})
	h := transporttest.NewWebSocketHandler(newMCPServer(map[string]server.ToolHandlerFunc{"block": blockingTool(started)}))
	ts := newHTTPTestServer(t, h)
	ws := newWebSocket(t, transporttest.WebSocketURL(ts.URL), HTTPOptions{})
	c := startClient(t, ws)
	if err := initialize(ctx, c); err != nil {
		t.Fatal(err)
	}

	errc := blockedCall(ctx, c, started)
	h.CloseConnections() // the server goes away mid-call

	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		t.Fatal("the pending call did not fail when the server went away")
	}
	if err == nil {
		t.Fatal("the pending call succeeded after the server went away")
	}
	select {
	case <-ws.Done():
	case <-ctx.Done():
		t.Fatal("Done did not close when the server went away")
	}
	if ws.Err() == nil || errors.Is(ws.Err(), mcptransport.ErrTransportClosed) {
		t.Errorf("Err() = %v, want why the connection broke, not that we closed it", ws.Err())
	}
	if ctx.Err() != nil {
		t.Error("the pending call ended only with the test's context")
	}
	if _, err := callTool(ctx, c, "echo", map[string]any{"text": "x"}); err == nil {
		t.Error("a call on the broken connection succeeded")
	}
}

func TestWebSocketCloseFailsPendingRequests(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	started := make(chan struct{})
	url := transporttest.NewWebSocketServer(t, newMCPServer(map[string]server.ToolHandlerFunc{"block": blockingTool(started)}))
	ws := newWebSocket(t, url, HTTPOptions{})
	c := startClient(t, ws)
	if err := initialize(ctx, c); err != nil {
		t.Fatal(err)
	}
	errc := blockedCall(ctx, c, started)
	if err := ws.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-errc; !errors.Is(err, mcptransport.ErrTransportClosed) {
		t.Errorf("pending call after Close = %v, want ErrTransportClosed in its chain", err)
	}
	<-ws.Done()
	if !errors.Is(ws.Err(), mcptransport.ErrTransportClosed) {
		t.Errorf("Err() after Close = %v, want ErrTransportClosed", ws.Err())
	}
	if err := ws.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := ws.Start(ctx); !errors.Is(err, mcptransport.ErrTransportClosed) {
		t.Errorf("Start after Close = %v, want ErrTransportClosed", err)
	}
}

func TestWebSocketCancelledRequestLeavesConnection(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	started := make(chan struct{})
	url := transporttest.NewWebSocketServer(t, newMCPServer(map[string]server.ToolHandlerFunc{"block": blockingTool(started)}))
	ws := newWebSocket(t, url, HTTPOptions{})
	c := startClient(t, ws)
	if err := initialize(ctx, c); err != nil {
		t.Fatal(err)
	}
	callCtx, cancel := context.WithCancel(ctx)
	errc := blockedCall(callCtx, c, started)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call = %v, want context.Canceled", err)
	}
	if got, err := callTool(ctx, c, "echo", map[string]any{"text": "still open"}); err != nil || got != "still open" {
		t.Fatalf("a call after another was cancelled = %q, %v", got, err)
	}
}

func TestWebSocketHandshakeGoesThroughTheStack(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)

	// A refused handshake is a sign-in problem the manager can tell.
	ts := refuse(t, http.StatusUnauthorized, `Bearer error="invalid_token"`)
	ws := newWebSocket(t, transporttest.WebSocketURL(ts.URL), HTTPOptions{})
	err := ws.Start(ctx)
	var ae *AuthError
	if !errors.As(err, &ae) || ae.ErrorCode != "invalid_token" {
		t.Fatalf("Start against a 401 = %v, want an *AuthError", err)
	}
	select {
	case <-ws.Done():
	default:
		t.Error("Done is still open after the handshake failed")
	}

	// A handshake the server does not answer is bounded by the request
	// timeout.
	release := make(chan struct{})
	defer close(release)
	silent := newHTTPTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	ws = newWebSocket(t, transporttest.WebSocketURL(silent.URL), HTTPOptions{RequestTimeout: shortTimeout})
	var te *RequestTimeoutError
	if err := ws.Start(ctx); !errors.As(err, &te) {
		t.Fatalf("Start against a silent server = %v, want a *RequestTimeoutError", err)
	}
}

func TestWebSocketOutlivesTheRequestTimeout(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	url := transporttest.NewWebSocketServer(t, newMCPServer(nil))
	ws := newWebSocket(t, url, HTTPOptions{RequestTimeout: shortTimeout})
	c := startClient(t, ws)
	connectAndUse(t, ctx, c)
	// The handshake's timer must not reach the connection it made: idle
	// past it, then use the connection.
	time.Sleep(3 * shortTimeout)
	if got, err := callTool(ctx, c, "echo", map[string]any{"text": "later"}); err != nil || got != "later" {
		t.Fatalf("CallTool after idling past the request timeout = %q, %v", got, err)
	}
}

func TestWebSocketStartContextIsTheConnectionsLife(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	url := transporttest.NewWebSocketServer(t, newMCPServer(nil))
	ws := newWebSocket(t, url, HTTPOptions{})
	life, end := context.WithCancel(ctx)
	if err := ws.Start(life); err != nil {
		t.Fatal(err)
	}
	end()
	select {
	case <-ws.Done():
	case <-ctx.Done():
		t.Fatal("the connection outlived Start's context")
	}
	if !errors.Is(ws.Err(), context.Canceled) {
		t.Errorf("Err() = %v, want context.Canceled in its chain", ws.Err())
	}
}

func TestWebSocketBeforeStart(t *testing.T) {
	t.Parallel()
	ws := NewWebSocket("ws://127.0.0.1:1/", nil, nil, nil)
	ctx := testCtx(t)
	if _, err := ws.SendRequest(ctx, mcptransport.JSONRPCRequest{ID: mcp.NewRequestId(int64(1)), Method: "ping"}); err == nil {
		t.Error("SendRequest before Start succeeded")
	}
	if err := ws.SendNotification(ctx, mcp.JSONRPCNotification{}); err == nil {
		t.Error("SendNotification before Start succeeded")
	}
	if ws.Err() != nil {
		t.Errorf("Err() before Start = %v, want nil", ws.Err())
	}
	if err := ws.Close(); err != nil {
		t.Errorf("Close before Start: %v", err)
	}
}

func TestWebSocketIgnoresGarbage(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	// A server that sends junk, an answer to nothing, and then a real
	// answer: the junk must not break the connection.
	ts := newHTTPTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}})
		if err != nil {
			return
		}
		defer conn.CloseNow()
		_, data, err := conn.Read(r.Context())
		if err != nil {
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(data, &req)
		for _, msg := range []string{
			`not json`,
			`[1,2]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
			`{"jsonrpc":"2.0","id":999,"result":{}}`,
			`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"ok":true}}`,
		} {
			if conn.Write(r.Context(), websocket.MessageText, []byte(msg)) != nil {
				return
			}
		}
		conn.Read(r.Context()) // until the client goes
	}))
	ws := newWebSocket(t, transporttest.WebSocketURL(ts.URL), HTTPOptions{})
	if err := ws.Start(ctx); err != nil {
		t.Fatal(err)
	}
	resp, err := ws.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("abc"), Method: "ping"})
	if err != nil || string(resp.Result) != `{"ok":true}` {
		t.Fatalf("SendRequest = %+v, %v; want the real answer", resp, err)
	}
}

// blockedCall calls the blocking tool in the background and returns once
// the server is inside it; the call's error arrives on the channel.
func blockedCall(ctx context.Context, c *client.Client, started <-chan struct{}) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := callTool(ctx, c, "block", nil)
		errc <- err
	}()
	<-started
	return errc
}
