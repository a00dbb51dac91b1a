package gateway

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/test/mcpserver"
)

// relayRig has the test server twice: "a" over stdio, where nothing links
// a server's request to the call that caused it, and "h" over streamable
// HTTP, where the request comes on the call's own stream. Servers'
// questions that no app takes are recorded, and answered as "Host" (with
// a reply for a request to the AI model).
func relayRig(t *testing.T) (*rig, *hostQuestions) {
	t.Helper()
	url := mcpserver.ServeTest(t, mcpserver.Options{Name: "h"}, "http")
	hq := &hostQuestions{}
	r := newRigElicit(t, map[string]any{"h": map[string]any{"type": "http", "url": url}},
		map[string]any{"permissions": map[string]string{
			"mcp__a__ask": "allow", "mcp__h__ask": "allow", "mcp__a__roots": "allow", "mcp__h__roots": "allow",
			"mcp__a__notify_tools_changed": "allow",
			"mcp__a__sample":               "allow", "mcp__h__sample": "allow",
		},
			// A remote server may be signed in to the person's account
			// and reaches outside, and the test server's tools claim
			// openWorldHint (mcp-go's default): one app calling h, then a,
			// is the guard's to hold. These tests are about the relay.
			"guard": map[string]string{"mode": "off"}},
		func(_ context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			hq.mu.Lock()
			hq.servers = append(hq.servers, server)
			hq.mu.Unlock()
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
				Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Host", "age": 1, "reply": "Host's reply"}}}, nil
		})
	r.waitTool("mcp__h__echo")
	return r, hq
}

type hostQuestions struct {
	mu      sync.Mutex
	servers []string
}

func (h *hostQuestions) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.servers
	h.servers = nil
	return out
}

type appElicit struct{ name string }

func (a appElicit) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if req.Params.Message != "Who are you?" {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": a.name, "age": 7}}}, nil
}

type appRoots struct{}

func (appRoots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///home/me/app-project", Name: "app-project"}}}, nil
}

// TestGatewayPassesProgress: an app's progress token reaches the server
// (as one of mcptray's), and the server's progress comes back to the app,
// in order, under the app's token.
//
// The server is "a", over stdio, and the app listens on its calls' own
// streams only: mcp-go's HTTP server (as "h" is served) hands a
// notification to whichever of a session's streams takes it first (a GET
// stream, or a request that has just ended and drops it), so from such a
// server progress may come out of order or not at all. The gateway's own
// HTTP face puts a call's progress on the call's stream.
func TestGatewayPassesProgress(t *testing.T) {
	t.Parallel()
	r, _ := relayRig(t)
	c, err := client.NewStreamableHttpClient(r.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + r.token}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan mcp.JSONRPCNotification, 16)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			got <- n
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = legacy
	init.Params.ClientInfo = mcp.Implementation{Name: "progress-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "mcp__a__progress"
	req.Params.Arguments = map[string]any{"pause_ms": 20}
	req.Params.Meta = &mcp.Meta{ProgressToken: "app-7"}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError || res.Content[0].(mcp.TextContent).Text != "done" {
		t.Fatalf("progress = %+v, %v", res, err)
	}
	for i := 1; i <= 3; i++ {
		select {
		case n := <-got:
			f := n.Params.AdditionalFields
			if f["progressToken"] != "app-7" || f["progress"] != float64(i) || f["total"] != float64(3) || f["message"] != fmt.Sprintf("step %d", i) {
				t.Errorf("progress notification %d = %v", i, f)
			}
		case <-time.After(deadline):
			t.Fatalf("progress notification %d did not come", i)
		}
	}
	// Without a token the server is asked for no progress.
	req.Params.Meta = nil
	if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
		t.Fatalf("without a token: %+v, %v", res, err)
	}
	select {
	case n := <-got:
		t.Errorf("progress without a token: %v", n.Params.AdditionalFields)
	default:
	}
}

// TestGatewayRoutesQuestionsToTheApp: a server's question during an app's
// call goes to that app when it can answer, and its answer reaches the
// server; an app that cannot leaves it to mcptray's own window. A server
// with no folder of its own (none here has one) sees the app's roots.
func TestGatewayRoutesQuestionsToTheApp(t *testing.T) {
	t.Parallel()
	r, hq := relayRig(t)
	asking := r.client(client.WithElicitationHandler(appElicit{name: "Grace"}), client.WithRootsHandler(appRoots{}))
	plain := r.client()
	for _, srv := range []string{"h", "a"} {
		text, isErr := callText(t, asking, "mcp__"+srv+"__ask", nil)
		if isErr || !strings.Contains(text, `"name":"Grace"`) {
			t.Errorf("%s: the app's answer: %q", srv, text)
		}
		if q := hq.take(); len(q) != 0 {
			t.Errorf("%s: the window was asked too: %v", srv, q)
		}
		text, isErr = callText(t, plain, "mcp__"+srv+"__ask", nil)
		if isErr || !strings.Contains(text, `"name":"Host"`) {
			t.Errorf("%s: an app that cannot answer got %q", srv, text)
		}
		if q := hq.take(); len(q) != 1 || q[0] != srv {
			t.Errorf("%s: the window was asked for %v", srv, q)
		}

		text, isErr = callText(t, asking, "mcp__"+srv+"__roots", nil)
		if isErr || !strings.Contains(text, "file:///home/me/app-project") {
			t.Errorf("%s: roots during an app's call: %q, want the app's", srv, text)
		}
	}
}

type appSampler struct{}

func (appSampler) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	text := "?"
	if len(req.Messages) == 1 {
		if tc, ok := req.Messages[0].Content.(mcp.TextContent); ok {
			text = tc.Text
		}
	}
	return &mcp.CreateMessageResult{Model: "app-model", SamplingMessage: mcp.SamplingMessage{
		Role: mcp.RoleAssistant, Content: mcp.NewTextContent("The app's model answers: " + text)}}, nil
}

// TestGatewayPassesSampling: a server's request to the AI model during an
// app's call goes to that app when it declared sampling, and its answer
// reaches the server; with an app that did not, the person is asked in
// mcptray's window, and their reply is the answer.
func TestGatewayPassesSampling(t *testing.T) {
	t.Parallel()
	r, hq := relayRig(t)
	sampling := r.client(client.WithSamplingHandler(appSampler{}))
	plain := r.client()
	for _, srv := range []string{"h", "a"} {
		text, isErr := callText(t, sampling, "mcp__"+srv+"__sample", nil)
		if isErr || text != "The app's model answers: Say hello." {
			t.Errorf("%s: the app's answer: %q (error %v)", srv, text, isErr)
		}
		if q := hq.take(); len(q) != 0 {
			t.Errorf("%s: the window was asked too: %v", srv, q)
		}
		text, isErr = callText(t, plain, "mcp__"+srv+"__sample", nil)
		if isErr || text != "Host's reply" {
			t.Errorf("%s: with an app that cannot answer: %q (error %v), want the window's reply", srv, text, isErr)
		}
		if q := hq.take(); len(q) != 1 || q[0] != srv {
			t.Errorf("%s: the window was asked for %v", srv, q)
		}
	}
}

// TestGatewayRefusesSampling: with no app that can answer a server's
// request to the AI model and no window to ask in, the request is refused
// in plain words, which reach the app.
func TestGatewayRefusesSampling(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, nil, map[string]any{"permissions": map[string]string{"mcp__a__sample": "allow"}})
	text, isErr := callText(t, r.client(), "mcp__a__sample", nil)
	if !isErr || !strings.Contains(text, "no app that can answer this server's request to the AI model is connected") {
		t.Errorf("with nobody to answer: %q (error %v), want the plain refusal", text, isErr)
	}
}

// TestGatewayRootsOfTheApp: a server from a project sees its project's
// folder, whichever app calls it; a server with no folder sees the calling
// app's roots. An app that declared roots but keeps no listening stream
// open is asked all the same: roots/list goes on its call's own stream.
func TestGatewayRootsOfTheApp(t *testing.T) {
	t.Parallel()
	folder := t.TempDir()
	r := newRigWith(t, map[string]any{"p": map[string]any{"command": testServerBin, "args": []string{"-name", "p"}, "cwd": folder}},
		map[string]any{"permissions": map[string]string{"mcp__a__roots": "allow", "mcp__p__roots": "allow"}})
	r.waitTool("mcp__p__roots")
	app := r.client(client.WithRootsHandler(appRoots{}))
	if text, isErr := callText(t, app, "mcp__p__roots", nil); isErr || !strings.Contains(text, "file://"+folder) || strings.Contains(text, "app-project") {
		t.Errorf("a project's server sees %q, want its folder %s only", text, folder)
	}
	if text, isErr := callText(t, app, "mcp__a__roots", nil); isErr || !strings.Contains(text, "file:///home/me/app-project") {
		t.Errorf("a server with no folder sees %q, want the app's roots", text)
	}

	deaf, err := client.NewStreamableHttpClient(r.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + r.token}))
	if err != nil {
		t.Fatal(err)
	}
	client.WithRootsHandler(appRoots{})(deaf)
	defer deaf.Close()
	if err := deaf.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = legacy
	init.Params.ClientInfo = mcp.Implementation{Name: "deaf-test", Version: "1"}
	if _, err := deaf.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, deaf, "mcp__a__roots", nil); isErr || !strings.Contains(text, "file:///home/me/app-project") {
		t.Errorf("an app with no listening stream sees %q, want its roots", text)
	}
}
