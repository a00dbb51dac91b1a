package service

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
)

// TestAddDemo: the demo folder is made in mcptray's folder and added; its
// server, this test binary in demo-server mode as mcptray would be, waits
// for approval, then serves its tools and asks its question. Asking again
// is no error and adds the folder once.
func TestAddDemo(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	asked := make(chan string, 1)
	s := h.start(true, func(o *Options) {
		o.GatewayCommand = self
		o.Elicit = func(_ context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			asked <- server + ": " + req.Params.Message
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
				Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"colour": "blue"},
			}}, nil
		}
	})
	ctx := context.Background()

	res, err := s.AddDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Folder != h.paths.DemoDir() || res.Waiting != 1 {
		t.Errorf("AddDemo = %+v, want %s with 1 server waiting", res, h.paths.DemoDir())
	}
	waitFor(t, s, "demo to wait for approval", func(s Snapshot) bool { return state(s, "demo") == conn.AwaitingApproval })
	if _, err := s.Approve(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, s, "demo to connect", func(s Snapshot) bool { return state(s, "demo") == conn.Connected })
	sv, _ := snap.Find("demo")
	if sv.Scope != config.Local || len(sv.Tools) != 3 {
		t.Errorf("demo is %s with %d tools, want local with 3", sv.Scope, len(sv.Tools))
	}
	out, err := s.Call(ctx, CallRequest{Server: "demo", Tool: "pick_colour"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	if !strings.Contains(string(b), "blue") {
		t.Errorf("pick_colour answered %s", b)
	}
	if q := <-asked; q != "demo: Which colour do you like best?" {
		t.Errorf("the question was %q", q)
	}

	if _, err := s.AddDemo(ctx); err != nil {
		t.Errorf("trying the demo again: %v", err)
	}
	u, err := config.ReadUserFile(h.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(slices.DeleteFunc(slices.Clone(u.Folders), func(f string) bool { return f != h.paths.DemoDir() })); n != 1 {
		t.Errorf("the demo folder is listed %d times: %q", n, u.Folders)
	}
}
