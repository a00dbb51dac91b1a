package gateway

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The stdio face serves each app's session on a stream of its own: one
// JSON-RPC message a line, the app's stdin and stdout (handed over by
// mcptray stdio) or the control socket's connection. Every message goes
// straight to the gateway's MCP server with the session in its context;
// there is no HTTP, and no per-request machinery, between the app and the
// gateway. mcp-go's own StdioServer cannot do this: it has one session per
// process.

// maxMessage bounds one message from an app, as on the HTTP face.
const maxMessage = 32 << 20

// ServeStream serves one app's MCP session: messages from the app are read
// from r, one a line, and the answers, notifications and the gateway's own
// requests to the app are written to w. It returns when r ends (the app is
// gone) or ctx is done; the session ends with it, and the calls it had in
// flight are cancelled.
func (g *Gateway) ServeStream(ctx context.Context, r io.Reader, w io.Writer) error {
	s := newStreamSession(w)
	if err := g.mcp.RegisterSession(ctx, s); err != nil {
		return fmt.Errorf("starting the app's session: %w", err)
	}
	ctx, cancel := context.WithCancel(g.mcp.WithContext(ctx, s))
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		g.mcp.UnregisterSession(context.WithoutCancel(ctx), s.id)
	}()
	wg.Go(func() { s.passNotifications(ctx) })

	in := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(in)
		if len(line) > 0 {
			g.streamMessage(ctx, s, &wg, line)
		}
		switch {
		case errors.Is(err, io.EOF):
			return nil // the app closed its end: it is done with us
		case err != nil:
			return err
		case ctx.Err() != nil:
			return nil
		}
	}
}

// readLine reads one message, without its newline; a line longer than
// maxMessage is an error.
func readLine(in *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := in.ReadSlice('\n')
		if len(line)+len(part) > maxMessage {
			return nil, fmt.Errorf("a message from the app is larger than %d MiB", maxMessage>>20)
		}
		if err == nil && line == nil {
			return bytes.TrimSpace(part), nil // the usual case: no copy
		}
		line = append(line, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSpace(line), err
		}
	}
}

// envelope is what tells one message from another.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// streamMessage handles one message from the app. Requests run side by
// side, so a slow tool holds up neither the next call nor its own
// cancellation; notifications and answers are handled in order.
func (g *Gateway) streamMessage(ctx context.Context, s *streamSession, wg *sync.WaitGroup, line []byte) {
	var m envelope
	if err := json.Unmarshal(line, &m); err != nil {
		s.writeRaw([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not a JSON-RPC message"}}` + "\n"))
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method == "" && hasID:
		s.answered(m.ID, line)
	case m.Method == string(mcp.MethodToolsList) && hasID && s.legacy():
		if out, ok := g.listAnswer(s.id, line, g.listJSON.Load()); ok {
			s.writeRaw(out)
			return
		}
		fallthrough
	case hasID:
		msg := bytes.Clone(line) // line is the reader's buffer
		wg.Go(func() { g.handleStream(ctx, s, m.ID, msg) })
	default:
		g.handleStream(ctx, s, nil, line)
	}
}

// handleStream passes one message to the gateway's MCP server and its
// answer to the app. A panic answers the request with an error instead of
// ending mcptray.
func (g *Gateway) handleStream(ctx context.Context, s *streamSession, id json.RawMessage, msg []byte) {
	defer func() {
		if p := recover(); p != nil {
			g.log.Error("gateway: handling an app's message", "panic", p)
			if len(id) > 0 {
				s.writeRaw([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32603,"message":"mcptray failed on this request"}}` + "\n"))
			}
		}
	}()
	if res := g.mcp.HandleMessage(ctx, msg); res != nil {
		s.write(res)
	}
}

// streamSession is one app's session on a stream. It implements mcp-go's
// session interfaces, so that the gateway's requests to the app
// (elicitation, roots, sampling) and its notifications reach it.
type streamSession struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	clientInfo    atomic.Pointer[mcp.Implementation]
	caps          atomic.Pointer[mcp.ClientCapabilities]
	version       atomic.Pointer[string]
	logLevel      atomic.Pointer[mcp.LoggingLevel]

	outMu sync.Mutex
	out   io.Writer

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan json.RawMessage // the gateway's requests to the app, by id
}

var (
	_ server.SessionWithClientInfo  = (*streamSession)(nil)
	_ server.SessionWithLogging     = (*streamSession)(nil)
	_ server.SessionWithElicitation = (*streamSession)(nil)
	_ server.SessionWithRoots       = (*streamSession)(nil)
	_ server.SessionWithSampling    = (*streamSession)(nil)
)

func newStreamSession(w io.Writer) *streamSession {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return &streamSession{
		id:            "stdio-" + hex.EncodeToString(b),
		notifications: make(chan mcp.JSONRPCNotification, 100),
		out:           w,
		pending:       map[string]chan json.RawMessage{},
	}
}

func (s *streamSession) SessionID() string { return s.id }
func (s *streamSession) Initialize()       { s.initialized.Store(true) }
func (s *streamSession) Initialized() bool { return s.initialized.Load() }
func (s *streamSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

func (s *streamSession) GetClientInfo() mcp.Implementation {
	if v := s.clientInfo.Load(); v != nil {
		return *v
	}
	return mcp.Implementation{}
}
func (s *streamSession) SetClientInfo(v mcp.Implementation) { s.clientInfo.Store(&v) }
func (s *streamSession) GetClientCapabilities() mcp.ClientCapabilities {
	if v := s.caps.Load(); v != nil {
		return *v
	}
	return mcp.ClientCapabilities{}
}
func (s *streamSession) SetClientCapabilities(v mcp.ClientCapabilities) { s.caps.Store(&v) }

// SetProtocolVersion records the version initialize settled on (mcp-go
// calls it through an interface of its own).
func (s *streamSession) SetProtocolVersion(v string) { s.version.Store(&v) }

// legacy says whether the session speaks a revision whose tools/list the
// encoded list answers.
func (s *streamSession) legacy() bool {
	v := s.version.Load()
	return v != nil && slices.Contains(mcp.LegacyProtocolVersions(), *v)
}

func (s *streamSession) SetLogLevel(l mcp.LoggingLevel) { s.logLevel.Store(&l) }
func (s *streamSession) GetLogLevel() mcp.LoggingLevel {
	if l := s.logLevel.Load(); l != nil {
		return *l
	}
	return mcp.LoggingLevelError
}

// passNotifications writes the session's notifications until ctx ends.
func (s *streamSession) passNotifications(ctx context.Context) {
	for {
		select {
		case n := <-s.notifications:
			s.write(n)
		case <-ctx.Done():
			return
		}
	}
}

// write sends one message to the app.
func (s *streamSession) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	s.writeRaw(append(b, '\n'))
}

// writeRaw sends one encoded message, newline included, to the app.
func (s *streamSession) writeRaw(b []byte) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	_, _ = s.out.Write(b)
}

// request sends the app a request and decodes its result into out.
func (s *streamSession) request(ctx context.Context, method mcp.MCPMethod, params, out any) error {
	id := fmt.Sprintf(`"mcptray-%d"`, s.nextID.Add(1))
	ch := make(chan json.RawMessage, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	msg, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  mcp.MCPMethod   `json:"method"`
		Params  any             `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, json.RawMessage(id), method, params})
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	s.writeRaw(append(msg, '\n'))
	var answer json.RawMessage
	select {
	case answer = <-ch:
	case <-ctx.Done():
		// The call it was for ended: the app can stop asking its person.
		s.writeRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}` + "\n"))
		return ctx.Err()
	}
	var res struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &res); err != nil {
		return fmt.Errorf("the app's answer to %s: %w", method, err)
	}
	if res.Error != nil {
		return fmt.Errorf("the app refused %s: %s (%d)", method, res.Error.Message, res.Error.Code)
	}
	if err := json.Unmarshal(res.Result, out); err != nil {
		return fmt.Errorf("the app's answer to %s: %w", method, err)
	}
	return nil
}

// answered passes the app's answer to the request it answers; an answer
// to nothing is dropped.
func (s *streamSession) answered(id json.RawMessage, msg []byte) {
	s.mu.Lock()
	ch := s.pending[string(id)]
	s.mu.Unlock()
	if ch != nil {
		select {
		case ch <- bytes.Clone(msg):
		default:
		}
	}
}

func (s *streamSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := s.request(ctx, mcp.MethodElicitationCreate, req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (s *streamSession) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var res mcp.ListRootsResult
	if err := s.request(ctx, mcp.MethodListRoots, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (s *streamSession) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := s.request(ctx, mcp.MethodSamplingCreateMessage, req.CreateMessageParams, &res); err != nil {
		return nil, err
	}
	content, err := mcp.ParseSamplingContent(res.Content)
	if err != nil {
		return nil, fmt.Errorf("the app's answer to %s: %w", mcp.MethodSamplingCreateMessage, err)
	}
	res.Content = content
	return &res, nil
}
