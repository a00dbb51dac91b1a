package conn

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// appCaller is an app that lists one root and answers requests to its AI
// model with a fixed text, recording what it was asked.
func appCaller(asked *[]string) *Caller {
	return &Caller{
		Roots: func(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///home/me/app-project", Name: "app-project"}}}, nil
		},
		Sample: func(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			for _, m := range req.Messages {
				if tc, ok := m.Content.(mcp.TextContent); ok {
					*asked = append(*asked, tc.Text)
				}
			}
			return &mcp.CreateMessageResult{Model: "app-model", SamplingMessage: mcp.SamplingMessage{
				Role: mcp.RoleAssistant, Content: mcp.NewTextContent("Hello from the app")}}, nil
		},
	}
}

// TestRootsAndSamplingOfTheCaller: a server with no folder of its own sees
// the roots of the app whose call it serves, and its request to the AI
// model goes to that app. Without such an app it sees no roots, and the
// request is refused in plain words. A server from a project sees its
// project's folder, whichever app calls it.
func TestRootsAndSamplingOfTheCaller(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, testOptions())
	project := stdioEntry("project")
	project.Origin.Folder = t.TempDir()
	if err := m.Apply(setOf(stdioEntry("plain"), project)); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "plain", Connected)
	waitState(t, m, "project", Connected)
	call := func(ctx context.Context, server, tool string) (string, error) {
		t.Helper()
		res, err := m.CallTool(ctx, server, tool, nil)
		if err != nil {
			return "", err
		}
		if res.IsError {
			return "", fmt.Errorf("tool error: %s", text(t, res))
		}
		return text(t, res), nil
	}
	var asked []string
	app := WithCaller(context.Background(), appCaller(&asked))

	if got, err := call(app, "plain", "roots"); err != nil || !strings.Contains(got, "file:///home/me/app-project") {
		t.Errorf("roots during the app's call = %q, %v; want the app's", got, err)
	}
	if got, err := call(app, "project", "roots"); err != nil || !strings.Contains(got, "file://"+project.Origin.Folder) || strings.Contains(got, "app-project") {
		t.Errorf("a project's server's roots = %q, %v; want its folder %s only", got, err, project.Origin.Folder)
	}
	if got, err := call(context.Background(), "plain", "roots"); err != nil || got != "[]" {
		t.Errorf("roots with no app = %q, %v; want none", got, err)
	}
	cannot := WithCaller(context.Background(), &Caller{
		Roots: func(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			return nil, fmt.Errorf("%w: not now", ErrCallerCannot)
		},
	})
	if got, err := call(cannot, "plain", "roots"); err != nil || got != "[]" {
		t.Errorf("roots when the app cannot tell = %q, %v; want none", got, err)
	}

	if got, err := call(app, "plain", "sample"); err != nil || got != "Hello from the app" {
		t.Errorf("sampling during the app's call = %q, %v", got, err)
	}
	if len(asked) != 1 || asked[0] != "Say hello." {
		t.Errorf("the app was asked %q", asked)
	}
	_, err := call(context.Background(), "plain", "sample")
	if err == nil || !strings.Contains(err.Error(), "no app that can answer this server's request to the AI model is connected") {
		t.Errorf("sampling with no app: %v, want the plain refusal", err)
	}
}
