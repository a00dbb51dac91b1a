package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// appStream is one app's session on ServeStream, as mcptray stdio gives
// it: the app writes to in and reads out.
type appStream struct {
	in     *os.File
	out    *os.File
	served chan error // ServeStream's return
}

// stream starts a session on ServeStream.
func (r *rig) stream() *appStream {
	r.t.Helper()
	// Real pipes, as mcptray stdio hands over an app's stdin and stdout.
	inR, inW, err := os.Pipe()
	if err != nil {
		r.t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		r.t.Fatal(err)
	}
	a := &appStream{in: inW, out: outR, served: make(chan error, 1)}
	go func() {
		a.served <- r.gw.ServeStream(context.Background(), inR, outW)
		outW.Close()
	}()
	r.t.Cleanup(func() { inW.Close(); outR.Close(); inR.Close() })
	return a
}

// streamClient connects an mcp-go client to a new session on ServeStream.
func (r *rig) streamClient(name string, opts ...client.ClientOption) (*client.Client, *appStream) {
	r.t.Helper()
	a := r.stream()
	c := client.NewClient(transport.NewIO(a.out, a.in, nil), opts...)
	// The transport keeps Start's context for the app's answers to the
	// server's questions.
	if err := c.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = legacy
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		r.t.Fatalf("initialize on the stream: %v", err)
	}
	return c, a
}

// TestStreamSession: an app on the stdio face's stream calls tools, lists
// them (the same list as on the HTTP face), hears of changes, answers a
// server's question, roots/list and request to the model itself, shows in
// the sessions as a stdio app, and ends its session by closing its end.
func TestStreamSession(t *testing.T) {
	t.Parallel()
	r, hq := relayRig(t)
	changed := make(chan struct{}, 1)
	c, a := r.streamClient("cursor-vscode", client.WithElicitationHandler(appElicit{name: "Grace"}),
		client.WithRootsHandler(appRoots{}), client.WithSamplingHandler(appSampler{}))
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})

	if text, isErr := callText(t, c, "mcp__a__echo", map[string]any{"text": "over the stream"}); isErr || text != "over the stream" {
		t.Errorf("echo on the stream: %q (error %v)", text, isErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	names := func(c *client.Client) []string {
		t.Helper()
		list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range list.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	onStream, onHTTP := names(c), names(r.client())
	if !slices.Contains(onStream, "mcp__h__echo") || !slices.Equal(onStream, onHTTP) {
		t.Errorf("tools/list on the stream %v, on the HTTP face %v", onStream, onHTTP)
	}

	for _, srv := range []string{"h", "a"} {
		if text, isErr := callText(t, c, "mcp__"+srv+"__ask", nil); isErr || !strings.Contains(text, `"name":"Grace"`) {
			t.Errorf("%s: the app's answer to the server's question: %q", srv, text)
		}
		if text, isErr := callText(t, c, "mcp__"+srv+"__roots", nil); isErr || !strings.Contains(text, "file:///home/me/app-project") {
			t.Errorf("%s: roots during the app's call: %q, want the app's", srv, text)
		}
		if text, isErr := callText(t, c, "mcp__"+srv+"__sample", nil); isErr || text != "The app's model answers: Say hello." {
			t.Errorf("%s: the app's model's answer: %q (error %v)", srv, text, isErr)
		}
		if q := hq.take(); len(q) != 0 {
			t.Errorf("%s: the window was asked too: %v", srv, q)
		}
	}

	// A new tool is held until accepted (pins.go), unless the person
	// accepts this server's changes as they come.
	if err := r.svc.SetAcceptChanges(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := callText(t, c, "mcp__a__notify_tools_changed", nil); got != "added extra_1" {
		t.Fatalf("notify_tools_changed: %q", got)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed reached the stream")
	}

	var mine []string
	for _, s := range r.gw.Sessions() {
		if s.Client == "cursor-vscode" {
			mine = append(mine, s.Face)
			if s.App != "Cursor" || !s.Listed || s.Ended {
				t.Errorf("the stream's session: %+v", s)
			}
		}
	}
	if !slices.Equal(mine, []string{FaceStdio}) {
		t.Errorf("sessions of the stream's app: %v, want one on the stdio face", mine)
	}

	a.in.Close() // the app is done
	select {
	case err := <-a.served:
		if err != nil {
			t.Errorf("ServeStream after the app closed its end: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeStream did not return when the app closed its end")
	}
	for _, s := range r.gw.Sessions() {
		if s.Client == "cursor-vscode" && !s.Ended {
			t.Errorf("the session outlived its stream: %+v", s)
		}
	}
}

// TestStreamEndCancelsCalls: an app that goes away in the middle of a call
// cancels it at the server.
func TestStreamEndCancelsCalls(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, nil, map[string]any{"permissions": map[string]string{"mcp__a__sleep": "allow"}})
	a := r.stream()
	go io.Copy(io.Discard, a.out)
	io.WriteString(a.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`+"\n")
	io.WriteString(a.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	r.waitTool("mcp__a__sleep")
	io.WriteString(a.in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__a__sleep","arguments":{"ms":600000}}}`+"\n")
	r.waitStderr(t, "a", "mcp-testserver: sleeping 600000ms")
	a.in.Close()
	r.waitStderr(t, "a", "mcp-testserver: sleep cancelled")
}

// TestStreamRefusesNonsense: a line that is not JSON-RPC is answered with
// a parse error, and the session goes on.
func TestStreamRefusesNonsense(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	a := r.stream()
	if err := a.out.SetReadDeadline(time.Now().Add(deadline)); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(a.out)
	io.WriteString(a.in, "this is not json\n")
	line, err := out.ReadString('\n')
	if err != nil || !strings.Contains(line, `"code":-32700`) {
		t.Fatalf("a line that is not JSON-RPC was answered %q (%v)", line, err)
	}
	io.WriteString(a.in, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	if line, err = out.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1,"result":{}`) {
		t.Fatalf("ping after the nonsense was answered %q (%v)", line, err)
	}
	// A tools/list the encoded list does not answer (a cursor) is mcp-go's
	// to answer; it is answered all the same.
	io.WriteString(a.in, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`+"\n")
	if line, err = out.ReadString('\n'); err != nil || !strings.Contains(line, `"id":2,"result"`) {
		t.Fatalf("initialize was answered %q (%v)", line, err)
	}
	io.WriteString(a.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(a.in, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"nonsense"}}`+"\n")
	for {
		line, err = out.ReadString('\n')
		if err != nil {
			t.Fatalf("tools/list with a cursor: %v", err)
		}
		if !strings.Contains(line, `"method":"notifications/`) {
			break
		}
	}
	if !strings.Contains(line, `"id":3,`) {
		t.Fatalf("tools/list with a cursor was answered %q (%v)", line, err)
	}
}

// TestStreamCancelsItsQuestion: when an app cancels a call whose server
// asked it a question, the gateway tells the app the question is
// withdrawn.
func TestStreamCancelsItsQuestion(t *testing.T) {
	t.Parallel()
	r, _ := relayRig(t)
	a := r.stream()
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(a.out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	next := func(want string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the stream ended before %s", want)
				}
				if strings.Contains(l, want) {
					return l
				}
			case <-ctx.Done():
				t.Fatalf("nothing with %s came", want)
			}
		}
	}
	io.WriteString(a.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`+"\n")
	next(`"id":1`)
	io.WriteString(a.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(a.in, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mcp__a__ask","arguments":{}}}`+"\n")
	question := next(`"method":"elicitation/create"`)
	var q struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(question), &q); err != nil || q.ID == "" {
		t.Fatalf("the question: %s (%v)", question, err)
	}
	io.WriteString(a.in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`+"\n")
	withdrawn := next(`"method":"notifications/cancelled"`)
	if !strings.Contains(withdrawn, `"requestId":"`+q.ID+`"`) {
		t.Errorf("the withdrawal %s names another request than %s", withdrawn, q.ID)
	}
}

// TestStreamAppThatDoesNotRead: an app that sends calls and never reads
// their answers holds up no other app's calls to the same server. The
// goroutine that reads the server's answers writes them to the apps, and
// one app's full pipe must not stop it.
func TestStreamAppThatDoesNotRead(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	r.waitTool("mcp__a__echo")
	stuck := r.stream()
	if err := stuck.out.SetReadDeadline(time.Now().Add(deadline)); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stuck.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"stuck","version":"1"}}}`+"\n")
	if line, err := bufio.NewReader(stuck.out).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize: %q, %v", line, err)
	}
	io.WriteString(stuck.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	// Twice what a pipe holds, in answers nobody reads.
	text := strings.Repeat("x", 16<<10)
	for id := 2; id < 2+8; id++ {
		fmt.Fprintf(stuck.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":%q}}}`+"\n", id, text)
	}
	c, _ := r.streamClient("reads")
	for range 3 {
		if got, isErr := callText(t, c, "mcp__a__echo", map[string]any{"text": "still here"}); isErr || got != "still here" {
			t.Fatalf("a call beside an app that does not read: %q (error %v)", got, isErr)
		}
	}
}

// TestStreamAnswersInitializeFirst: an app's first line from the gateway
// is the answer to its initialize, even when the gateway tells every app
// of a change while it answers (in mcptray, a new app makes the service
// look again, and servers connect as the app starts): nothing is sent to
// an app before it knows whom it talks to. Here the change is told from
// inside initialize itself, after mcp-go has counted the session in.
func TestStreamAnswersInitializeFirst(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	r.gw.apps.mu.Lock()
	r.gw.apps.changed = tellOnArrival(r.gw)
	r.gw.apps.mu.Unlock()
	for i := range 50 {
		a := r.stream()
		if err := a.out.SetReadDeadline(time.Now().Add(deadline)); err != nil {
			t.Fatal(err)
		}
		out := bufio.NewReader(a.out)
		io.WriteString(a.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`+"\n")
		line, err := out.ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":1,"result"`) {
			t.Fatalf("session %d: the first line was %q (%v), want the answer to initialize", i, line, err)
		}
		a.in.Close()
	}
}

// tellOnArrival tells every app that the tools changed whenever an app
// arrives (Options.AppsChanged).
func tellOnArrival(g *Gateway) func() {
	return func() {
		g.mcp.SendNotificationToAllClients(string(mcp.MethodNotificationToolsListChanged), nil)
	}
}
