// Package transporttest holds real MCP servers for tests of code that reaches
// servers through core/transport. It is for tests only.
package transporttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// NewWebSocketServer serves s over WebSocket from an httptest server that
// stops when the test ends, and returns its ws:// URL.
func NewWebSocketServer(t testing.TB, s *server.MCPServer) (url string) {
	t.Helper()
	h := NewWebSocketHandler(s)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.CloseConnections()
		ts.Close()
	})
	return WebSocketURL(ts.URL)
}

// WebSocketURL turns an httptest server's http:// URL into its ws:// one.
func WebSocketURL(httpURL string) string {
	return "ws" + strings.TrimPrefix(httpURL, "http")
}

// WebSocketHandler is an http.Handler that serves an MCP server over
// WebSocket (subprotocol "mcp"), one mcp-go session per connection: each
// message goes through MCPServer.HandleMessage, the server's notifications
// and its requests to the client (roots/list, elicitation/create) go back
// over the same socket.
type WebSocketHandler struct {
	srv *server.MCPServer

	mu    sync.Mutex
	conns map[*websocket.Conn]struct{}
}

// NewWebSocketHandler returns a handler serving s.
func NewWebSocketHandler(s *server.MCPServer) *WebSocketHandler {
	return &WebSocketHandler{srv: s, conns: map[*websocket.Conn]struct{}{}}
}

// CloseConnections drops every open connection without a close handshake,
// as a server that crashed or lost the network would.
func (h *WebSocketHandler) CloseConnections() {
	h.mu.Lock()
	conns := make([]*websocket.Conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.CloseNow()
	}
}

var sessionCount atomic.Int64

// ServeHTTP accepts one WebSocket and serves it until it closes.
func (h *WebSocketHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}})
	if err != nil {
		return // Accept has answered
	}
	conn.SetReadLimit(16 << 20)
	h.mu.Lock()
	h.conns[conn] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.conns, conn)
		h.mu.Unlock()
		conn.CloseNow()
	}()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sess := &wsSession{
		id:            fmt.Sprintf("ws-%d", sessionCount.Add(1)),
		conn:          conn,
		ctx:           ctx,
		notifications: make(chan mcp.JSONRPCNotification, 100),
		pending:       map[int64]chan json.RawMessage{},
	}
	if err := h.srv.RegisterSession(ctx, sess); err != nil {
		conn.Close(websocket.StatusInternalError, "registering the session failed")
		return
	}
	defer h.srv.UnregisterSession(ctx, sess.id)
	ctx = h.srv.WithContext(ctx, sess)

	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // before Wait: ends the goroutines below
	wg.Go(func() { sess.forwardNotifications(ctx) })

	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if sess.deliverAnswer(data) {
			continue
		}
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(data, &head)
		if len(head.ID) == 0 || string(head.ID) == "null" {
			// Notifications are handled in order, so that
			// notifications/initialized comes before what follows it.
			h.srv.HandleMessage(ctx, data)
			continue
		}
		// Requests run on their own goroutines: a tool may wait on a
		// request to the client, whose answer this loop must read.
		wg.Go(func() {
			if resp := h.srv.HandleMessage(ctx, data); resp != nil {
				_ = sess.send(ctx, resp)
			}
		})
	}
}

// wsSession is the mcp-go session of one WebSocket connection.
type wsSession struct {
	id            string
	conn          *websocket.Conn
	ctx           context.Context
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan json.RawMessage // requests to the client, by id
}

var (
	_ server.ClientSession          = (*wsSession)(nil)
	_ server.SessionWithRoots       = (*wsSession)(nil)
	_ server.SessionWithElicitation = (*wsSession)(nil)
)

func (s *wsSession) SessionID() string { return s.id }

func (s *wsSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

func (s *wsSession) Initialize() { s.initialized.Store(true) }

func (s *wsSession) Initialized() bool { return s.initialized.Load() }

// ListRoots asks the client for its roots over the socket.
func (s *wsSession) ListRoots(ctx context.Context, request mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var result mcp.ListRootsResult
	if err := s.call(ctx, string(mcp.MethodListRoots), nil, &result); err != nil {
		return nil, err
	}
	return &result, nil
}

// RequestElicitation asks the client to ask the person something.
func (s *wsSession) RequestElicitation(ctx context.Context, request mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var result mcp.ElicitationResult
	if err := s.call(ctx, string(mcp.MethodElicitationCreate), request.Params, &result); err != nil {
		return nil, err
	}
	return &result, nil
}

// call sends a request to the client and decodes its answer into result.
func (s *wsSession) call(ctx context.Context, method string, params, result any) error {
	id := s.nextID.Add(1)
	answer := make(chan json.RawMessage, 1)
	s.mu.Lock()
	s.pending[id] = answer
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()

	req := map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if err := s.send(ctx, req); err != nil {
		return err
	}
	var raw json.RawMessage
	select {
	case raw = <-answer:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.ctx.Done():
		return fmt.Errorf("%s: the connection ended", method)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return fmt.Errorf("%s: reading the answer: %w", method, err)
	}
	if resp.Error != nil {
		return fmt.Errorf("%s: the client answered %d %s", method, resp.Error.Code, resp.Error.Message)
	}
	return json.Unmarshal(resp.Result, result)
}

// deliverAnswer hands data to the request to the client it answers, and
// reports whether it was such an answer.
func (s *wsSession) deliverAnswer(data []byte) bool {
	var head struct {
		ID     *int64          `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &head) != nil || head.Method != "" || head.ID == nil ||
		(head.Result == nil && head.Error == nil) {
		return false
	}
	s.mu.Lock()
	answer := s.pending[*head.ID]
	s.mu.Unlock()
	if answer == nil {
		return false
	}
	select {
	case answer <- data:
	default: // a second answer to the same request: drop it
	}
	return true
}

// forwardNotifications writes the server's notifications to the socket.
func (s *wsSession) forwardNotifications(ctx context.Context) {
	for {
		select {
		case n := <-s.notifications:
			if err := s.send(ctx, n); err != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// send writes one JSON message as a text frame.
func (s *wsSession) send(ctx context.Context, msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return s.conn.Write(ctx, websocket.MessageText, data)
}
