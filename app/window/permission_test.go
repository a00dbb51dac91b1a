package window

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/service"
)

// TestWindowPermissionQuestion: the gateway's question says which app
// wants which tool of which server, with the arguments; Allow once, Allow
// always and Deny answer as control.PermissionAnswer spells them.
func TestWindowPermissionQuestion(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	q := control.Question{ID: "3", Kind: control.KindPermission, Server: "files",
		Params: mcp.ElicitationParams{Message: "Notes App wants to use read_file from files"},
		Permission: &control.PermissionQuestion{App: "Notes App\u202e", Tool: "mcp__files__read_file", ServerTool: "read_file",
			Arguments: "{\n  \"path\": \"/tmp/x\"\n}", Truncated: true, ReadOnly: true}}
	h.b.questions <- q
	h.wait("question")
	var f *questionForm
	var shown string
	h.do(func() {
		f = h.v.question
		if f == nil || f.d == nil || f.always == nil {
			t.Fatal("no permission dialog for the question")
		}
		shown = strings.Join(labels(h.win.Canvas().Overlays().Top()), "\n")
	})
	for _, want := range []string{"Notes App wants to use read_file from files", "mcp__files__read_file", `"path": "/tmp/x"`,
		"this is their beginning", "says this tool only reads", "[Allow once]", "[Allow always]", "[Deny]"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the dialog does not say %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "\u202e") {
		t.Error("the app's name is not sanitised")
	}
	h.tap(f.accept)
	if c := h.call(); c != `answer 3 {"action":"accept","content":{"always":false}}` {
		t.Errorf("Allow once answered %q", c)
	}
	h.wait("action")

	q.ID = "4"
	h.b.questions <- q
	h.wait("question")
	h.tap(h.v.question.always)
	if c := h.call(); c != `answer 4 {"action":"accept","content":{"always":true}}` {
		t.Errorf("Allow always answered %q", c)
	}
	h.wait("action")

	q.ID = "5"
	h.b.questions <- q
	h.wait("question")
	h.tap(h.v.question.decline)
	if c := h.call(); c != `answer 5 {"action":"decline"}` {
		t.Errorf("Deny answered %q", c)
	}
	h.wait("action")
	h.do(func() {
		if h.v.question != nil {
			t.Error("the dialog still shows after the answer")
		}
	})
}

// TestRealPermission: an app's call, through a running mcptray's gateway,
// of a tool whose permission is Ask shows the dialog in a window on its
// control endpoint; Allow always lets the call go ahead and keeps Allow
// in the person's config.
func TestRealPermission(t *testing.T) {
	r := newReal(t, map[string]any{
		"mcpServers": map[string]any{"asker": testServer("asker")},
		"gateway":    map[string]any{"permissions": map[string]string{"mcp__asker__echo": "ask"}},
	})
	r.until("asker to connect", func() bool { return r.shows("asker", service.Connected) })
	ctx, cancel := context.WithTimeout(context.Background(), realDeadline)
	defer cancel()
	app := appOf(t, ctx, r, "mcp__asker__echo")
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "mcp__asker__echo", map[string]any{"text": "hello"}
		res, err := app.CallTool(ctx, req)
		done <- result{res, err}
	}()
	r.until("the permission dialog", func() bool { return r.v.question != nil && r.v.question.always != nil })
	r.tap(r.v.question.always)
	var got result
	select {
	case got = <-done:
	case <-time.After(realDeadline):
		t.Fatal("the call did not go ahead after Allow always")
	}
	if got.err != nil || got.res.IsError || toolText(got.res) != "hello" {
		t.Fatalf("the call: %q, %v", toolText(got.res), got.err)
	}
	snap, err := r.cl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := snap.Gateway.Permissions["mcp__asker__echo"]; p != config.Allow {
		t.Errorf("after Allow always the permission is %q, want allow", p)
	}
}

// appOf is an app connected to the running mcptray's gateway through its
// HTTP face with the gateway's token, once the gateway offers tool.
func appOf(t *testing.T, ctx context.Context, r *real, tool string) *client.Client {
	t.Helper()
	token, err := r.cl.GatewayToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	app, err := client.NewStreamableHttpClient(r.inst.Gateway.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	changed := make(chan struct{}, 1)
	app.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationToolsListChanged {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "claude-code", Version: "1"}
	if _, err := app.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	for {
		list, err := app.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range list.Tools {
			if tl.Name == tool {
				return app
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the gateway does not offer %s", tool)
		}
	}
}
