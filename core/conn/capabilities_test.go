package conn

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
)

// TestDeclaredCapabilities: mcptray tells a server it answers questions,
// roots/list and requests to the AI model, and does not claim to tell of
// changed roots: the roots it gives depend on the call, and it sends no
// notifications/roots/list_changed.
func TestDeclaredCapabilities(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []mcp.ClientCapabilities // as each request declared them
	hooks := &server.Hooks{}
	// Over streamable HTTP mcptray speaks the sessionless revision, which
	// declares them on every request; initialize declares them on older
	// ones.
	hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		mu.Lock()
		got = append(got, req.Params.Capabilities)
		mu.Unlock()
	})
	hooks.AddBeforeAny(func(ctx context.Context, _ any, _ mcp.MCPMethod, _ any) {
		if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientCapabilities != nil {
			mu.Lock()
			got = append(got, *info.ClientCapabilities)
			mu.Unlock()
		}
	})
	ms := server.NewMCPServer("caps", "1", server.WithHooks(hooks), server.WithToolCapabilities(false))
	ms.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(ms))
	t.Cleanup(srv.Close)
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(remoteEntry("remote", srv.URL+"/mcp", config.HTTP))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "remote", Connected)
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("the server saw no capabilities declared")
	}
	for _, c := range got {
		switch {
		case c.Elicitation == nil || c.Sampling == nil || c.Roots == nil:
			t.Errorf("declared %+v, want elicitation, sampling and roots", c)
		case c.Roots.ListChanged:
			t.Error("roots.listChanged is declared, but mcptray never sends notifications/roots/list_changed")
		}
	}
}
