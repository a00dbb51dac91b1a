package control

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
)

// serveWith runs a service behind a control endpoint whose window
// launcher reports each request on opened.
func serveWith(t *testing.T, opened chan<- string) (*Endpoint, *Client) {
	t.Helper()
	r := serveAt(t, testPaths(t), opened)
	return r.srv, r.cl
}

// served is a running service behind a control endpoint, and a client of it.
type served struct {
	svc *service.Service
	srv *Endpoint
	cl  *Client
	ctx context.Context // ends when the test does
}

// serveAt is serveWith with the paths given, so that a test can write a
// config first.
func serveAt(t *testing.T, p config.Paths, opened chan<- string) served {
	t.Helper()
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Paths: p, Store: secrettest.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := &Endpoint{API: svc, OpenWindow: func(server string) error { opened <- server; return nil }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	cl, err := Dial(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cl.Close()
		cancel()
		<-done
		ln.Close()
		svc.Close()
	})
	return served{svc: svc, srv: srv, cl: cl, ctx: ctx}
}

var askRequest = mcp.ElicitationRequest{Params: mcp.ElicitationParams{
	Message: "Who are you?\u202e",
	RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
		"name": map[string]any{"type": "string", "default": "Ada"},
	}},
}}

type askResult struct {
	res *mcp.ElicitationResult
	err error
}

func ask(srv *Endpoint, server string) <-chan askResult {
	out := make(chan askResult, 1)
	go func() {
		res, err := srv.Ask(context.Background(), server, askRequest)
		out <- askResult{res, err}
	}()
	return out
}

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the channel closed", what)
		}
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen within 10s", what)
	}
	var zero T
	return zero
}

// TestQuestionsReachTheWindow: with no window following, Ask opens one at
// the server; the question reaches it when it follows; its answer reaches
// the asker; the question then goes.
func TestQuestionsReachTheWindow(t *testing.T) {
	t.Parallel()
	opened := make(chan string, 4)
	srv, cl := serveWith(t, opened)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	asked := ask(srv, "notes")
	if got := within(t, opened, "opening the window"); got != "notes" {
		t.Errorf("the window was opened at %q, want notes", got)
	}
	qs, err := cl.Questions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	q := within(t, qs, "the pending question")
	if q.Server != "notes" || q.Gone || q.Params.Message != "Who are you?" {
		t.Errorf("question = %+v, want notes's, sanitised", q)
	}
	if err := cl.Answer(ctx, q.ID, mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: "maybe"}}); service.CodeOf(err) != service.Invalid {
		t.Errorf("an answer that is not accept, decline or cancel = %v, want invalid", err)
	}
	want := mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Grace"}}}
	if err := cl.Answer(ctx, q.ID, want); err != nil {
		t.Fatal(err)
	}
	got := within(t, asked, "the answer")
	if got.err != nil || got.res.Action != mcp.ElicitationResponseActionAccept || got.res.Content.(map[string]any)["name"] != "Grace" {
		t.Errorf("Ask = %+v, %v; want Grace accepted", got.res, got.err)
	}
	if g := within(t, qs, "the question going"); !g.Gone || g.ID != q.ID {
		t.Errorf("after the answer the window got %+v, want it gone", g)
	}
	if err := cl.Answer(ctx, q.ID, want); service.CodeOf(err) != service.NotFound {
		t.Errorf("answering twice = %v, want not-found", err)
	}

	// A window that follows already is not opened again.
	asked = ask(srv, "files")
	q = within(t, qs, "the second question")
	select {
	case s := <-opened:
		t.Errorf("the window was opened again at %q while one follows", s)
	default:
	}
	if err := cl.Answer(ctx, q.ID, mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}); err != nil {
		t.Fatal(err)
	}
	if got := within(t, asked, "the decline"); got.res.Action != mcp.ElicitationResponseActionDecline {
		t.Errorf("Ask = %+v, want declined", got.res)
	}
}

// TestQuestionsTimeOut: nobody answers, and the question's defaults go
// back to the server.
func TestQuestionsTimeOut(t *testing.T) {
	t.Parallel()
	opened := make(chan string, 4)
	srv, _ := serveWith(t, opened)
	srv.SetAskTimeout(50 * time.Millisecond)
	got := within(t, ask(srv, "notes"), "the timeout")
	if got.err != nil || got.res.Action != mcp.ElicitationResponseActionAccept || got.res.Content.(map[string]any)["name"] != "Ada" {
		t.Errorf("Ask after the timeout = %+v, %v; want the defaults", got.res, got.err)
	}
}

// TestFolderRoutes: the window adds and removes project folders, and
// makes the demo's.
func TestFolderRoutes(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	cl := serveAt(t, p, make(chan string, 1)).cl
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"demo": {"command": "true"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := cl.AddFolder(ctx, dir)
	if err != nil || res.Folder != dir || res.Waiting != 1 {
		t.Fatalf("AddFolder = %+v, %v; want %s with 1 waiting", res, err, dir)
	}
	if snap, _ := cl.Snapshot(ctx); len(snap.Folders) != 1 || snap.Folders[0] != dir {
		t.Errorf("folders = %q", snap.Folders)
	}
	if err := cl.RemoveFolder(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if err := cl.RemoveFolder(ctx, dir); service.CodeOf(err) != service.NotFound {
		t.Errorf("removing it twice = %v, want not-found", err)
	}
	res, err = cl.AddDemo(ctx)
	if err != nil || res.Folder != p.DemoDir() || res.Waiting != 1 {
		t.Fatalf("AddDemo = %+v, %v; want %s with 1 waiting", res, err, p.DemoDir())
	}
	if _, err := os.Stat(filepath.Join(p.DemoDir(), ".mcp.json")); err != nil {
		t.Errorf("the demo folder has no .mcp.json: %v", err)
	}
}
