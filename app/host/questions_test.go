package host

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/control"
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
