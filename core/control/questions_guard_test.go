package control_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// TestGuardQuestions: a remote server may know the person (private) and
// what it returns was written elsewhere (untrusted), so after an app's
// call of its echo, its post (egress) is held by the flow guard, and the
// question reaches the window as a guard question with the chain in
// words; the window's "always" (Allow for this session) lets it and the
// session's later posts through without asking. All through a real
// service, gateway and control endpoint.
func TestGuardQuestions(t *testing.T) {
	t.Parallel()
	p := control.TempPaths(t)
	url := mcpserver.ServeTest(t, mcpserver.Options{Name: "a", Post: true}, "http")
	hook := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(hook.Close)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"a": map[string]any{"type": "http", "url": url}},
		"gateway": map[string]any{"permissions": map[string]string{"mcp__a__post": "allow"}}})
	if err := os.MkdirAll(p.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.UserFile(), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	inst, err := instance.Listen(instance.Options{
		Service: service.Options{Paths: p, Store: secrettest.New()}, Window: true,
		OpenWindow: func(string) error { return nil },
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
	qs, err := cl.Questions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	snap, err := cl.Snapshot(waitCtx)
	for err == nil && len(snap.GuardLabels()) == 0 {
		snap, err = cl.Settle(waitCtx)
	}
	if err != nil {
		t.Fatal(err)
	}
	app := claudeCodeWith(t, waitCtx, inst.Gateway.Status().URL, "mcp__a__post")
	call := func(tool string, args map[string]any) <-chan string {
		out := make(chan string, 1)
		go func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = tool
			req.Params.Arguments = args
			res, err := app.CallTool(waitCtx, req)
			if err != nil {
				out <- err.Error()
				return
			}
			out <- res.Content[0].(mcp.TextContent).Text
		}()
		return out
	}
	if got := control.Within(t, call("mcp__a__echo", map[string]any{"text": "hello"}), "the echo"); got != "hello" {
		t.Fatalf("the echo: %q", got)
	}
	post := func() <-chan string { return call("mcp__a__post", map[string]any{"url": hook.URL, "text": "hello"}) }
	called := post()
	q := control.Within(t, qs, "the guard's question")
	host := strings.TrimPrefix(hook.URL, "http://")
	want := "Claude Code read your data through a, then read content from outside through a. It now wants to send data through a (to " + host + ")."
	if q.Kind != control.KindGuard || q.Guard == nil || q.Guard.Chain != want || q.Guard.Tool != "mcp__a__post" || !strings.Contains(q.Guard.Arguments, "hello") {
		t.Fatalf("question = %+v, guard %+v", q, q.Guard)
	}
	if err := cl.Answer(ctx, q.ID, control.PermissionAnswer(true, true)); err != nil {
		t.Fatal(err)
	}
	if got := control.Within(t, called, "the held call"); got != "200 OK" {
		t.Errorf("allowed for the session: %q", got)
	}
	control.Within(t, qs, "the question going")
	if got := control.Within(t, post(), "the post after"); got != "200 OK" {
		t.Errorf("the session's next call: %q", got)
	}
	select {
	case q := <-qs:
		t.Errorf("asked again in the same session: %+v", q)
	default:
	}
}
