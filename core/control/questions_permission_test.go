package control_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// TestPermissionQuestions: an app's call of a tool whose permission is Ask
// waits; the question reaches the window as a permission question, naming
// the app, the tool and its arguments; Allow lets the call go ahead, Deny
// fails it, and Allow always keeps Allow in the config, so that the next
// call asks nothing. All through a real service, gateway and control
// endpoint.
func TestPermissionQuestions(t *testing.T) {
	t.Parallel()
	p := control.TempPaths(t)
	url := mcpserver.ServeTest(t, mcpserver.Options{Name: "a"}, "http")
	cfg, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"a": map[string]any{"type": "http", "url": url}},
		"gateway":    map[string]any{"permissions": map[string]string{"mcp__a__echo": "ask"}},
	})
	if err := os.MkdirAll(p.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.UserFile(), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	opened := make(chan string, 4)
	inst, err := instance.Listen(instance.Options{
		Service: service.Options{Paths: p, Store: secrettest.New()}, Window: true,
		OpenWindow: func(server string) error { opened <- server; return nil },
		HTTP:       gateway.HTTPOptions{Addr: "127.0.0.1:0", NoAuth: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	ctx := t.Context()
	if err := inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cl, err := control.DialAs(ctx, p, control.Window)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })

	waitCtx, waitCancel := context.WithTimeout(ctx, 20*time.Second)
	defer waitCancel()
	app := claudeCodeWith(t, waitCtx, inst.Gateway.Status().URL, "mcp__a__echo")
	type result struct {
		text  string
		isErr bool
		err   error
	}
	call := func() <-chan result {
		out := make(chan result, 1)
		go func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "mcp__a__echo"
			req.Params.Arguments = map[string]any{"text": "hello"}
			res, err := app.CallTool(waitCtx, req)
			if err != nil {
				out <- result{err: err}
				return
			}
			out <- result{text: res.Content[0].(mcp.TextContent).Text, isErr: res.IsError}
		}()
		return out
	}

	// No window follows: the call opens one at the tool's server.
	called := call()
	if s := control.Within(t, opened, "opening the window"); s != "a" {
		t.Errorf("the window opened at %q, want a", s)
	}
	qs, err := cl.Questions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	q := control.Within(t, qs, "the permission question")
	pq := q.Permission
	if q.Kind != control.KindPermission || pq == nil || q.Server != "a" || pq.Tool != "mcp__a__echo" || pq.ServerTool != "echo" ||
		pq.App != "Claude Code" || !strings.Contains(pq.Arguments, `"text": "hello"`) || !pq.ReadOnly {
		t.Fatalf("question = %+v, permission %+v", q, pq)
	}
	if q.Params.Message != "Claude Code wants to use echo from a" {
		t.Errorf("message = %q", q.Params.Message)
	}
	select {
	case r := <-called:
		t.Fatalf("the call went ahead before the answer: %+v", r)
	default:
	}
	if err := cl.Answer(ctx, q.ID, control.PermissionAnswer(true, false)); err != nil {
		t.Fatal(err)
	}
	if r := control.Within(t, called, "the allowed call"); r.err != nil || r.isErr || r.text != "hello" {
		t.Errorf("allowed once: %+v", r)
	}
	if g := control.Within(t, qs, "the question going"); !g.Gone || g.ID != q.ID {
		t.Errorf("after the answer: %+v", g)
	}

	// Deny: the call fails, and the next one asks again.
	called = call()
	q = control.Within(t, qs, "the second question")
	if err := cl.Answer(ctx, q.ID, control.PermissionAnswer(false, false)); err != nil {
		t.Fatal(err)
	}
	if r := control.Within(t, called, "the denied call"); r.err != nil || !r.isErr || !strings.Contains(r.text, "you declined mcp__a__echo") {
		t.Errorf("denied: %+v", r)
	}
	control.Within(t, qs, "the second question going")

	// Allow always: kept in the config; the next call asks nothing.
	called = call()
	q = control.Within(t, qs, "the third question")
	if err := cl.Answer(ctx, q.ID, control.PermissionAnswer(true, true)); err != nil {
		t.Fatal(err)
	}
	if r := control.Within(t, called, "the call allowed always"); r.err != nil || r.isErr || r.text != "hello" {
		t.Errorf("allowed always: %+v", r)
	}
	control.Within(t, qs, "the third question going")
	u, err := config.ReadUserFile(p.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if rules, _ := u.GatewayRules(); rules.Permissions["mcp__a__echo"] != config.Allow {
		t.Errorf("the config's permissions after allow always: %v", rules.Permissions)
	}
	if r := control.Within(t, call(), "the call after allow always"); r.err != nil || r.isErr || r.text != "hello" {
		t.Errorf("after allow always: %+v", r)
	}
	select {
	case q := <-qs:
		t.Errorf("a question after allow always: %+v", q)
	default:
	}
	// The record says the window kept Allow, not "you".
	if err := inst.Activity.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := inst.Activity.Query(ctx, activity.Filter{Kind: activity.KindTrust})
	if err != nil || len(rows) == 0 {
		t.Fatalf("trust rows: %+v, %v", rows, err)
	}
	if got := rows[0].TrustWords(); !strings.HasPrefix(got, "the window") || !strings.HasSuffix(got, " set mcp__a__echo to allow") {
		t.Errorf("the record of allow always says %q, want the window's decision", got)
	}
}

// TestPermissionWithoutWindow: with no window to open, the gateway's
// question fails at once with ErrNoWindow.
func TestPermissionWithoutWindow(t *testing.T) {
	t.Parallel()
	srv := &control.Endpoint{}
	_, err := srv.AskPermission(context.Background(), gateway.Question{Tool: "mcp__a__echo", Server: "a"})
	if err != gateway.ErrNoWindow {
		t.Errorf("AskPermission with no window = %v, want ErrNoWindow", err)
	}
}

// claudeCodeWith is an app (Claude Code, by its name) connected to the
// gateway at url, once the gateway lists tool: a server connected is not
// yet a tool the gateway offers, which it learns from the service's next
// notice, and tells its apps with notifications/tools/list_changed.
func claudeCodeWith(t *testing.T, ctx context.Context, url, tool string) *client.Client {
	t.Helper()
	app, err := client.NewStreamableHttpClient(url)
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
	init.Params.ClientInfo = mcp.Implementation{Name: "claude-code", Version: "1"} // known to mcptray as Claude Code
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
			t.Fatalf("the gateway does not list %s", tool)
		}
	}
}
