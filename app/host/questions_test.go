package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
)

// TestAskerOpensTheWindow: once the endpoint serves, a server's question
// opens the window at that server; before, it gets its defaults at once.
func TestAskerOpensTheWindow(t *testing.T) {
	req := mcp.ElicitationRequest{Params: mcp.ElicitationParams{Message: "Who?",
		RequestedSchema: map[string]any{"properties": map[string]any{"name": map[string]any{"type": "string", "default": "Ada"}}}}}
	a := &asker{}
	res, err := a.ask(context.Background(), "notes", req)
	if err != nil || res.Action != mcp.ElicitationResponseActionAccept || res.Content.(map[string]any)["name"] != "Ada" {
		t.Errorf("before the endpoint: %+v, %v; want the defaults", res, err)
	}
	opened := make(chan string, 1)
	srv := &control.Server{OpenWindow: func(s string) error { opened <- s; return nil }}
	srv.SetAskTimeout(time.Millisecond)
	a.serve(srv)
	if _, err := a.ask(context.Background(), "notes", req); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-opened:
		if s != "notes" {
			t.Errorf("the window opened at %q", s)
		}
	default:
		t.Error("the question did not open the window")
	}
}

// TestAskerPermission: before the endpoint serves there is no window to
// ask about an app's call in; once it serves, the question opens one.
func TestAskerPermission(t *testing.T) {
	a := &asker{}
	q := gateway.Question{Tool: "mcp__notes__write", Server: "notes", ServerTool: "write"}
	if _, err := a.askPermission(context.Background(), q); !errors.Is(err, gateway.ErrNoWindow) {
		t.Errorf("before the endpoint: %v, want ErrNoWindow", err)
	}
	opened := make(chan string, 1)
	a.serve(&control.Server{OpenWindow: func(s string) error { opened <- s; return nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ok, err := a.askPermission(ctx, q); ok || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("nobody answers: %v, %v; want the deadline", ok, err)
	}
	select {
	case s := <-opened:
		if s != "notes" {
			t.Errorf("the window opened at %q", s)
		}
	default:
		t.Error("the question did not open the window")
	}
}
