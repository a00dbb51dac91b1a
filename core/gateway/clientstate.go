package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// clientState is what the gateway's own sessions (the stdio face's stream,
// stream.go, and the HTTP face's, httpsession.go) know of their app: what
// initialize said, its log level, and the gateway's requests to it that
// wait for an answer. It implements the parts of mcp-go's session
// interfaces that do not depend on how messages reach the app.
type clientState struct {
	id          string
	initialized atomic.Bool
	clientInfo  atomic.Pointer[mcp.Implementation]
	app         atomic.Pointer[string] // the app's name as people know it (appName), from clientInfo
	caps        atomic.Pointer[mcp.ClientCapabilities]
	direct      atomic.Bool // initialize settled on a revision before 2026-07-28 (answersDirect)
	logLevel    atomic.Pointer[mcp.LoggingLevel]
	first       firstLists // its first lists wait for servers still starting (firstlist.go)

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan json.RawMessage // the gateway's requests to the app, by id
}

func newClientState(id string) clientState {
	return clientState{id: id, pending: map[string]chan json.RawMessage{}}
}

func (c *clientState) SessionID() string { return c.id }
func (c *clientState) Initialize()       { c.initialized.Store(true) }
func (c *clientState) Initialized() bool { return c.initialized.Load() }

func (c *clientState) GetClientInfo() mcp.Implementation {
	if v := c.clientInfo.Load(); v != nil {
		return *v
	}
	return mcp.Implementation{}
}
func (c *clientState) SetClientInfo(v mcp.Implementation) {
	c.clientInfo.Store(&v)
	app := v.Name
	if known, ok := ClientOf(v.Name); ok {
		app = known.App
	}
	c.app.Store(&app)
}

// appName is appName's answer for the session, found once.
func (c *clientState) appName() string {
	if app := c.app.Load(); app != nil {
		return *app
	}
	return ""
}
func (c *clientState) GetClientCapabilities() mcp.ClientCapabilities {
	if v := c.caps.Load(); v != nil {
		return *v
	}
	return mcp.ClientCapabilities{}
}
func (c *clientState) SetClientCapabilities(v mcp.ClientCapabilities) { c.caps.Store(&v) }

// SetProtocolVersion records the version initialize settled on (mcp-go
// calls it through an interface of its own).
func (c *clientState) SetProtocolVersion(v string) {
	c.direct.Store(slices.Contains(mcp.LegacyProtocolVersions(), v))
}

// answersDirect says whether the gateway answers the session's plain
// tools/list with the encoded list and its plain tools/call directly
// (directCall), around mcp-go: the session speaks a revision with
// sessions, before 2026-07-28, as every app does today. mcp-go calls
// those legacy; here they are the main path.
func (c *clientState) answersDirect() bool { return c.direct.Load() }

func (c *clientState) SetLogLevel(l mcp.LoggingLevel) { c.logLevel.Store(&l) }
func (c *clientState) GetLogLevel() mcp.LoggingLevel {
	if l := c.logLevel.Load(); l != nil {
		return *l
	}
	return mcp.LoggingLevelError
}

// request sends the app a request with send, which writes one encoded
// message (no newline) where the app reads it, and decodes the app's
// result into out.
func (c *clientState) request(ctx context.Context, send func([]byte) error, method mcp.MCPMethod, params, out any) error {
	id := fmt.Sprintf(`"mcptray-%d"`, c.nextID.Add(1))
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
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
	if err := send(msg); err != nil {
		return fmt.Errorf("sending %s: %w", method, err)
	}
	var answer json.RawMessage
	select {
	case answer = <-ch:
	case <-ctx.Done():
		// The call it was for ended: the app can stop asking its person.
		_ = send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`))
		return ctx.Err()
	}
	var res struct {
		Result json.RawMessage          `json:"result"`
		Error  *mcp.JSONRPCErrorDetails `json:"error"`
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
func (c *clientState) answered(id json.RawMessage, msg []byte) {
	c.mu.Lock()
	ch := c.pending[string(id)]
	c.mu.Unlock()
	if ch != nil {
		select {
		case ch <- bytes.Clone(msg):
		default:
		}
	}
}

// elicit, listRoots and sample are the gateway's requests to the app, sent
// with send.
func (c *clientState) elicit(ctx context.Context, send func([]byte) error, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := c.request(ctx, send, mcp.MethodElicitationCreate, req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (c *clientState) listRoots(ctx context.Context, send func([]byte) error) (*mcp.ListRootsResult, error) {
	var res mcp.ListRootsResult
	if err := c.request(ctx, send, mcp.MethodListRoots, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (c *clientState) sample(ctx context.Context, send func([]byte) error, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := c.request(ctx, send, mcp.MethodSamplingCreateMessage, req.CreateMessageParams, &res); err != nil {
		return nil, err
	}
	content, err := mcp.ParseSamplingContent(res.Content)
	if err != nil {
		return nil, fmt.Errorf("the app's answer to %s: %w", mcp.MethodSamplingCreateMessage, err)
	}
	res.Content = content
	return &res, nil
}
