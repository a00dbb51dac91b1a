package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// testProtocol is the revision the tests ask for, as mcptray does: pinning it
// skips mcp-go's server/discover probe.
const testProtocol = "2025-11-25"

// shortTimeout is the request timeout of the timeout tests: short, yet long
// enough for a local request under the race detector.
const shortTimeout = 150 * time.Millisecond

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// testCtx bounds a test, so that a bug fails it instead of hanging it.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newMCPServer returns a real MCP server with an "echo" tool and the extra
// tools given.
func newMCPServer(extra map[string]server.ToolHandlerFunc) *server.MCPServer {
	s := server.NewMCPServer("test", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	for name, h := range extra {
		s.AddTool(mcp.NewTool(name), h)
	}
	return s
}

// newStreamableServer serves s over streamable HTTP behind wrap (nil: none).
func newStreamableServer(t *testing.T, s *server.MCPServer, wrap func(http.Handler) http.Handler, opts ...server.StreamableHTTPOption) *httptest.Server {
	t.Helper()
	opts = append([]server.StreamableHTTPOption{server.WithStreamableHTTPLogger(discard())}, opts...)
	var h http.Handler = server.NewStreamableHTTPServer(s, opts...)
	if wrap != nil {
		h = wrap(h)
	}
	return newHTTPTestServer(t, h)
}

// newHTTPTestServer serves h until the test ends.
func newHTTPTestServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// startClient starts a real mcp-go client on tr, to be closed when the test
// ends (before its servers: cleanups run last first).
func startClient(t *testing.T, tr mcptransport.Interface, opts ...client.ClientOption) *client.Client {
	t.Helper()
	opts = append([]client.ClientOption{client.WithProtocolVersion(testProtocol)}, opts...)
	c := client.NewClient(tr, opts...)
	t.Cleanup(func() { c.Close() })
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("starting the client: %v", err)
	}
	return c
}

func initialize(ctx context.Context, c *client.Client) error {
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = testProtocol
	req.Params.ClientInfo = mcp.Implementation{Name: "mcptray-test", Version: "0"}
	_, err := c.Initialize(ctx, req)
	return err
}

// callTool calls name with args and returns the text of its result; a
// result that reports an error is returned as one.
func callTool(ctx context.Context, c *client.Client, name string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	for _, content := range res.Content {
		if text, ok := content.(mcp.TextContent); ok {
			out.WriteString(text.Text)
		}
	}
	if res.IsError {
		return "", errors.New(out.String())
	}
	return out.String(), nil
}

// connectAndUse initializes c and lists and calls a tool, failing the test
// if any of it fails.
func connectAndUse(t *testing.T, ctx context.Context, c *client.Client) {
	t.Helper()
	if err := initialize(ctx, c); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if !hasTool(tools, "echo") {
		t.Fatalf("ListTools = %v, want the echo tool among them", tools.Tools)
	}
	got, err := callTool(ctx, c, "echo", map[string]any{"text": "hello"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if got != "hello" {
		t.Fatalf("CallTool echo = %q, want %q", got, "hello")
	}
}

func hasTool(res *mcp.ListToolsResult, name string) bool {
	for _, tool := range res.Tools {
		if tool.Name == name {
			return true
		}
	}
	return false
}

// bodyMethod reads r's JSON-RPC method and puts the body back.
func bodyMethod(r *http.Request) string {
	if r.Body == nil {
		return ""
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	return msg.Method
}

// headerLog records a header of every request a server receives.
type headerLog struct {
	name string
	mu   sync.Mutex
	seen []seenHeader
}

type seenHeader struct {
	method, rpc, value string
	present            bool
}

func (l *headerLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		values, ok := r.Header[http.CanonicalHeaderKey(l.name)]
		v := ""
		if ok {
			v = values[0]
		}
		l.mu.Lock()
		l.seen = append(l.seen, seenHeader{method: r.Method, rpc: bodyMethod(r), value: v, present: ok})
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (l *headerLog) all() []seenHeader {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]seenHeader(nil), l.seen...)
}
