package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const (
	// wsSubprotocol is the WebSocket subprotocol MCP servers expect.
	wsSubprotocol = "mcp"
	// wsReadLimit bounds one message from the server. coder/websocket's
	// default, 32 KiB, is smaller than many a tools/list or a tool's
	// answer; MaxMessageSize is the bound every transport shares.
	wsReadLimit = MaxMessageSize
	// wsWriteTimeout bounds writing one message. A write that cannot finish
	// in that time means the connection is stuck; coder/websocket then
	// closes it, which fails every request waiting on it.
	wsWriteTimeout = 30 * time.Second
)

// WebSocket is an MCP transport over one WebSocket: JSON-RPC messages as
// text frames, both ways. mcp-go has none.
//
// It implements mcp-go's transport.BidirectionalInterface: answers go to the
// request waiting for them (by id), notifications to the notification
// handler, and requests from the server (roots, elicitation) to the request
// handler, whose answer goes back over the socket.
//
// The connection's end is observable: Done closes and Err says why, whether
// Close ended it or the server went away, and every request still waiting
// fails at once, so the connection manager can reconnect.
type WebSocket struct {
	url     string
	headers map[string]string
	hc      *http.Client
	log     *slog.Logger

	handlerMu      sync.RWMutex
	onNotification func(mcp.JSONRPCNotification)
	onRequest      mcptransport.RequestHandler

	mu      sync.Mutex
	started bool
	closing bool // Close was called
	conn    *websocket.Conn
	life    context.Context // ends with the connection
	cancel  context.CancelFunc
	pending map[string]chan *mcptransport.JSONRPCResponse
	err     error // why the connection ended; set once, before done closes
	done    chan struct{}
}

var _ mcptransport.BidirectionalInterface = (*WebSocket)(nil)

// NewWebSocket returns a WebSocket transport for url (ws://, wss://, or
// http(s):// meaning the same). The handshake goes through hc, so that
// NewHTTPClient's stack signs and bounds it (nil means one with default
// options), and carries headers, the config's static headers. logger may be
// nil. Nothing is dialled before Start.
func NewWebSocket(url string, headers map[string]string, hc *http.Client, logger *slog.Logger) *WebSocket {
	if hc == nil {
		hc = NewHTTPClient(HTTPOptions{})
	}
	return &WebSocket{
		url:     url,
		headers: maps.Clone(headers),
		hc:      hc,
		log:     orDiscard(logger),
		pending: map[string]chan *mcptransport.JSONRPCResponse{},
		done:    make(chan struct{}),
	}
}

// Start dials the server. As with mcp-go's transports, ctx is the
// connection's life, not only the handshake's: when it ends, the connection
// does. Calling Start again on a started transport does nothing.
func (w *WebSocket) Start(ctx context.Context) error {
	w.mu.Lock()
	switch {
	case w.closing:
		w.mu.Unlock()
		return mcptransport.ErrTransportClosed
	case w.started:
		w.mu.Unlock()
		return nil
	}
	w.started = true
	w.mu.Unlock()

	header := http.Header{}
	for k, v := range w.headers {
		header.Set(k, v)
	}
	conn, _, err := websocket.Dial(ctx, w.url, &websocket.DialOptions{
		HTTPClient:   w.hc,
		HTTPHeader:   header,
		Subprotocols: []string{wsSubprotocol},
	})
	if err != nil {
		err = fmt.Errorf("opening the WebSocket: %w", err)
		w.end(err)
		return err
	}
	conn.SetReadLimit(wsReadLimit)

	life, cancel := context.WithCancel(ctx)
	w.mu.Lock()
	if w.closing { // Close came during the handshake
		w.mu.Unlock()
		cancel()
		conn.CloseNow()
		return mcptransport.ErrTransportClosed
	}
	w.conn, w.life, w.cancel = conn, life, cancel
	w.mu.Unlock()

	go w.readLoop(life, cancel, conn)
	return nil
}

// Done is closed when the connection has ended, for whatever reason.
func (w *WebSocket) Done() <-chan struct{} { return w.done }

// Err says why the connection ended: mcp-go's ErrTransportClosed after
// Close, otherwise what broke it. It is nil while the connection is open.
func (w *WebSocket) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close ends the connection, politely if the server still listens (a close
// frame; coder/websocket waits at most a few seconds for the answer), and
// fails every request still waiting. It returns nil: a connection that
// already broke is closed all the same.
func (w *WebSocket) Close() error {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		return nil
	}
	w.closing = true
	conn, cancel := w.conn, w.cancel
	w.mu.Unlock()

	w.end(mcptransport.ErrTransportClosed)
	if conn != nil {
		if err := conn.Close(websocket.StatusNormalClosure, ""); err != nil {
			w.log.Debug("closing the WebSocket", "err", err)
		}
	}
	if cancel != nil {
		cancel()
	}
	return nil
}

// end records why the connection ended, once, and wakes every waiting request.
func (w *WebSocket) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.done:
		return
	default:
	}
	w.err = err
	clear(w.pending)
	close(w.done)
}

// GetSessionId returns "": a WebSocket connection is its own session.
func (w *WebSocket) GetSessionId() string { return "" }

// SetNotificationHandler sets the handler for the server's notifications.
// It runs on the read loop, so notifications arrive in order.
func (w *WebSocket) SetNotificationHandler(handler func(mcp.JSONRPCNotification)) {
	w.handlerMu.Lock()
	defer w.handlerMu.Unlock()
	w.onNotification = handler
}

// SetRequestHandler sets the handler for the server's requests. Each runs
// on its own goroutine, with a context that ends with the connection.
func (w *WebSocket) SetRequestHandler(handler mcptransport.RequestHandler) {
	w.handlerMu.Lock()
	defer w.handlerMu.Unlock()
	w.onRequest = handler
}

// SendRequest sends request and waits for its answer, for ctx to end, or for
// the connection to end.
func (w *WebSocket) SendRequest(ctx context.Context, request mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	data, err := json.Marshal(request)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	key := request.ID.String()
	answer := make(chan *mcptransport.JSONRPCResponse, 1)

	w.mu.Lock()
	conn, life, err := w.liveLocked()
	if err != nil {
		w.mu.Unlock()
		return nil, err
	}
	w.pending[key] = answer
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		if w.pending[key] == answer {
			delete(w.pending, key)
		}
		w.mu.Unlock()
	}()

	if err := w.write(ctx, life, conn, data); err != nil {
		return nil, err
	}
	select {
	case resp := <-answer:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-w.done:
		select {
		case resp := <-answer: // it came just before the end
			return resp, nil
		default:
		}
		return nil, fmt.Errorf("the connection ended before the server answered: %w", w.Err())
	}
}

// SendNotification sends notification; nothing answers it.
func (w *WebSocket) SendNotification(ctx context.Context, notification mcp.JSONRPCNotification) error {
	data, err := json.Marshal(notification)
	if err != nil {
		return fmt.Errorf("encoding the notification: %w", err)
	}
	w.mu.Lock()
	conn, life, err := w.liveLocked()
	w.mu.Unlock()
	if err != nil {
		return err
	}
	return w.write(ctx, life, conn, data)
}

// liveLocked returns the connection, or why there is none. w.mu is held.
func (w *WebSocket) liveLocked() (*websocket.Conn, context.Context, error) {
	select {
	case <-w.done:
		return nil, nil, fmt.Errorf("the connection has ended: %w", w.err)
	default:
	}
	if w.conn == nil {
		return nil, nil, errors.New("the WebSocket transport has not been started")
	}
	return w.conn, w.life, nil
}

// write sends one message. It is bounded by wsWriteTimeout and the
// connection's life, not by ctx: coder/websocket closes the whole connection
// when the context of a write ends mid-frame, and one caller giving up must
// not cut every other request. ctx is checked before writing.
func (w *WebSocket) write(ctx, life context.Context, conn *websocket.Conn, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(life, wsWriteTimeout)
	defer cancel()
	if err := conn.Write(wctx, websocket.MessageText, data); err != nil {
		return fmt.Errorf("sending to the server: %w", err)
	}
	return nil
}

// readLoop reads the server's messages until the connection ends, then
// records why.
func (w *WebSocket) readLoop(life context.Context, cancel context.CancelFunc, conn *websocket.Conn) {
	for {
		_, data, err := conn.Read(life)
		if err != nil {
			w.end(readEndError(life, err))
			cancel() // ends the server's requests still being served
			return
		}
		w.dispatch(life, conn, data)
	}
}

// readEndError says in plain words why reading stopped.
func readEndError(life context.Context, err error) error {
	if life.Err() != nil {
		return fmt.Errorf("the connection was closed: %w", context.Cause(life))
	}
	switch status := websocket.CloseStatus(err); status {
	case -1:
		return fmt.Errorf("the connection to the server broke: %w", err)
	case websocket.StatusNormalClosure, websocket.StatusGoingAway:
		return fmt.Errorf("the server closed the connection: %w", err)
	default:
		return fmt.Errorf("the server closed the connection (%v): %w", status, err)
	}
}

// dispatch routes one message from the server by its shape: a method and an
// id make a request, a method alone a notification, an id alone an answer.
func (w *WebSocket) dispatch(life context.Context, conn *websocket.Conn, data []byte) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		w.log.Warn("the server sent a message that is not a JSON-RPC object", "bytes", len(data))
		return
	}
	hasID := len(head.ID) > 0 && string(head.ID) != "null"
	switch {
	case head.Method != "" && hasID:
		var req mcptransport.JSONRPCRequest
		if err := json.Unmarshal(data, &req); err != nil {
			w.log.Warn("the server sent a request that could not be read", "method", head.Method, "err", err)
			return
		}
		go w.serve(life, conn, req)
	case head.Method != "":
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal(data, &n); err != nil {
			w.log.Warn("the server sent a notification that could not be read", "method", head.Method, "err", err)
			return
		}
		w.handlerMu.RLock()
		handler := w.onNotification
		w.handlerMu.RUnlock()
		if handler != nil {
			handler(n)
		}
	case hasID:
		var resp mcptransport.JSONRPCResponse
		if err := json.Unmarshal(data, &resp); err != nil {
			w.log.Warn("the server sent an answer that could not be read", "err", err)
			return
		}
		key := resp.ID.String()
		w.mu.Lock()
		answer := w.pending[key]
		delete(w.pending, key)
		w.mu.Unlock()
		if answer == nil {
			w.log.Debug("an answer came for no waiting request", "id", key)
			return
		}
		answer <- &resp // buffered: never blocks
	default:
		w.log.Warn("the server sent a message with neither a method nor an id", "bytes", len(data))
	}
}

// serve answers one request from the server with the request handler.
func (w *WebSocket) serve(life context.Context, conn *websocket.Conn, req mcptransport.JSONRPCRequest) {
	w.handlerMu.RLock()
	handler := w.onRequest
	w.handlerMu.RUnlock()

	resp := func() (resp *mcptransport.JSONRPCResponse) {
		if handler == nil {
			return mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND,
				fmt.Sprintf("mcptray does not handle %s here", req.Method), nil)
		}
		defer func() {
			if r := recover(); r != nil {
				w.log.Error("a handler for the server's request panicked", "method", req.Method, "panic", r)
				resp = mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, "internal error", nil)
			}
		}()
		out, err := handler(life, req)
		if err != nil {
			return mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
		}
		return out
	}()
	if resp == nil {
		return
	}
	if resp.JSONRPC == "" {
		resp.JSONRPC = mcp.JSONRPC_VERSION
	}
	data, err := json.Marshal(resp)
	if err != nil {
		w.log.Error("encoding the answer to the server's request", "method", req.Method, "err", err)
		return
	}
	if err := w.write(life, life, conn, data); err != nil {
		w.log.Warn("answering the server's request", "method", req.Method, "err", err)
	}
}
