package conn

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// appCaller is an app that lists one root and answers requests to its AI
// model with a fixed text, recording what it was asked (behind mu: it is
// asked on mcp-go's goroutine).
func appCaller(mu *sync.Mutex, asked *[]string) *Caller {
	return &Caller{
		Roots: func(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///home/me/app-project", Name: "app-project"}}}, nil
		},
		Sample: func(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			mu.Lock()
			defer mu.Unlock()
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
	var (
		mu    sync.Mutex
		asked []string
	)
	app := WithCaller(context.Background(), appCaller(&mu, &asked))

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
	mu.Lock()
	if len(asked) != 1 || asked[0] != "Say hello." {
		t.Errorf("the app was asked %q", asked)
	}
	mu.Unlock()
	_, err := call(context.Background(), "plain", "sample")
	if err == nil || !strings.Contains(err.Error(), "no app that can answer this server's request to the AI model is connected") {
		t.Errorf("sampling with no app: %v, want the plain refusal", err)
	}
}

// TestSamplingAnsweredByThePerson: with no app to answer a server's
// request to the AI model, the person is asked, shown what the server asks,
// and their reply is the model's answer; when they decline, the request is
// refused in plain words.
func TestSamplingAnsweredByThePerson(t *testing.T) {
	t.Parallel()
	// The handler runs on mcp-go's goroutine: what it shares with the
	// test is behind mu.
	var (
		mu    sync.Mutex
		shown []string
		reply = "Hello, from a person"
	)
	opts := testOptions()
	opts.Elicit = func(_ context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
		mu.Lock()
		defer mu.Unlock()
		shown = append(shown, server+": "+req.Params.Message)
		if reply == "" {
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
		}
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
			Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"reply": reply}}}, nil
	}
	m := newTestManager(t, opts)
	if err := m.Apply(setOf(stdioEntry("plain"))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "plain", Connected)
	res, err := m.CallTool(context.Background(), "plain", "sample", nil)
	if err != nil || text(t, res) != "Hello, from a person" {
		t.Fatalf("the person's answer: %v, %v", res, err)
	}
	mu.Lock()
	if len(shown) != 1 || !strings.HasPrefix(shown[0], "plain: plain wants an answer from the AI model") || !strings.Contains(shown[0], "The server: Say hello.") {
		t.Errorf("the person was shown %q", shown)
	}
	reply = ""
	mu.Unlock()
	_, err = m.CallTool(context.Background(), "plain", "sample", nil)
	if err == nil || !strings.Contains(err.Error(), "nobody answered it in mcptray's window") {
		t.Errorf("after the person declined: %v, want the plain refusal", err)
	}
}
