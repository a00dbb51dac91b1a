package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/service/apps"
	"github.com/mcptray/mcptray/core/service/netpolicy"
	"github.com/mcptray/mcptray/test/mcpserver"
)

var testServerBin string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.LauncherArg { // the sandbox's launcher (guard_egress_linux_test.go)
		os.Exit(sandbox.Launch(os.Args[2:], os.Stderr))
	}
	os.Exit(mcpserver.RunTests(m, &testServerBin))
}

// deadline bounds every wait: the test server starts in well under a
// second; a wait that reaches this has failed.
const deadline = 20 * time.Second

// legacy is the protocol version with sessions that today's apps speak.
const legacy = "2025-11-25"

// rig is a running service with the test server as "a" (and any other
// servers given), a gateway following it, and its HTTP face.
type rig struct {
	t     testing.TB
	paths config.Paths
	store *secrettest.Store
	svc   *service.Service
	gw    *Gateway
	face  *Face
	token string
}

func newRig(t testing.TB, servers map[string]any) *rig {
	t.Helper()
	return newRigWith(t, servers, map[string]any{"permissions": map[string]string{"mcp__a__notify_tools_changed": "allow"}})
}

// newRigWith is newRig with the gateway's settings in the config.
func newRigWith(t testing.TB, servers map[string]any, gateway map[string]any) *rig {
	t.Helper()
	return newRigElicit(t, servers, gateway, nil)
}

// newRigElicit is newRigWith with the service's answerer of servers'
// questions (mcptray's own window, in the product).
func newRigElicit(t testing.TB, servers map[string]any, gateway map[string]any, elicit conn.ElicitFunc) *rig {
	t.Helper()
	return newRigOver(t, servers, gateway, elicit, nil)
}

// newRigOver is newRigElicit with the gateway standing for a back end of
// over's making around the service (pins_test.go); nil means the service
// itself.
func newRigOver(t testing.TB, servers map[string]any, gateway map[string]any, elicit conn.ElicitFunc, over func(*service.Service) Servers) *rig {
	t.Helper()
	return newRigFull(t, servers, gateway, over, func(o *service.Options) { o.Elicit = elicit })
}

// newRigFull is newRigOver with the service's options as mutate leaves
// them; a service that sandboxes its servers (Options.Launcher) gets its
// network proxy, as core/instance gives it.
func newRigFull(t testing.TB, servers map[string]any, gateway map[string]any, over func(*service.Service) Servers, mutate func(*service.Options)) *rig {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	paths, err := config.NewPaths("linux", lookup)
	if err != nil {
		t.Fatal(err)
	}
	paths.Enterprise = filepath.Join(dir, "etc", "managed.json")
	all := map[string]any{"a": map[string]any{"command": testServerBin, "args": []string{"-name", "a"}}}
	for k, v := range servers {
		all[k] = v
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": all, "gateway": gateway})
	if err := os.MkdirAll(paths.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.UserFile(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, paths: paths, store: secrettest.New()}
	opts := service.Options{Paths: paths, Store: r.store, Lookup: lookup, Follow: true, Debounce: 20 * time.Millisecond}
	// Servers start from the test's environment, not the login shell's,
	// which runs the person's profile (a slow one holds every first start
	// up to its 5 s bound).
	opts.Conn.BaseEnv = os.Environ()
	mutate(&opts)
	// The service's roster of the apps reads the gateway's sessions, and
	// the gateway tells it of each change, as core/instance wires them.
	roster := apps.New(apps.Options{Paths: paths, Sessions: func() []service.AppSession { return r.gw.Sessions() }})
	opts.Apps = roster
	// The proxy of the sandboxed servers' network and the policy it asks,
	// as core/instance makes them; mutate may give the policy, to answer
	// its questions.
	var proxy *egress.Proxy
	if opts.NeedsProxy() {
		if opts.Network == nil {
			opts.Network = netpolicy.New(netpolicy.Options{UserFile: paths.UserFile()})
		}
		proxy = egress.New(opts.Network.ProxyOptions())
		opts.Proxy = proxy
	}
	r.svc, err = service.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if proxy != nil {
		if err := proxy.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proxy.Close() })
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := r.svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var back Servers = r.svc
	if over != nil {
		back = over(r.svc)
	}
	r.gw = New(back, Options{AppsChanged: roster.Changed})
	ran := make(chan error, 1)
	go func() { ran <- r.gw.Run(ctx) }()
	r.face, err = r.gw.OpenHTTP(ctx, HTTPOptions{Paths: paths, Token: r.svc.GatewayToken, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- r.face.Serve(ctx) }()
	r.token, err = r.svc.GatewayToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serving the HTTP face: %v", err)
		}
		<-ran
		r.svc.Close()
	})
	r.waitTool("mcp__a__echo")
	return r
}

// waitTool waits until the gateway lists name.
func (r *rig) waitTool(name string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	notices, _ := r.svc.Subscribe(ctx)
	// Notices come only of changes after Subscribe: sync once now, for
	// those that came before.
	if err := r.gw.Sync(ctx); err != nil {
		r.t.Fatal(err)
	}
	for r.gw.MCPServer().GetTool(name) == nil {
		select {
		case <-ctx.Done():
			snap, _ := r.svc.Snapshot(context.Background())
			r.t.Fatalf("waited %s for the gateway to list %s; servers: %+v", deadline, name, snap.Servers)
		case <-notices:
			// The gateway syncs on the same notice; sync here too, so
			// the wait does not depend on which goroutine runs first.
			if err := r.gw.Sync(ctx); err != nil {
				r.t.Fatal(err)
			}

		}
	}
}

// client connects an MCP client to the HTTP face with the token.
func (r *rig) client(opts ...client.ClientOption) *client.Client {
	r.t.Helper()
	c, err := client.NewStreamableHttpClient(r.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + r.token}),
		transport.WithContinuousListening())
	if err != nil {
		r.t.Fatal(err)
	}
	for _, o := range opts {
		o(c)
	}
	// The client's listening stream (GET) lives as long as the context
	// Start is given: the client's own, not the handshake's deadline.
	if err := c.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = legacy
	req.Params.ClientInfo = mcp.Implementation{Name: "gateway-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		r.t.Fatalf("initialize through the gateway: %v", err)
	}
	return c
}

func callText(t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("calling %s through the gateway: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestGatewayCallsThrough(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	c := r.client()
	if got, isErr := callText(t, c, "mcp__a__echo", map[string]any{"text": "hello ✓"}); got != "hello ✓" || isErr {
		t.Errorf("mcp__a__echo = %q (error %v), want hello ✓", got, isErr)
	}
	// The server's own pid: the call reached the one process the service runs.
	pid, _ := callText(t, c, "mcp__a__pid", nil)
	if pid == "" || pid == fmt.Sprint(os.Getpid()) {
		t.Errorf("mcp__a__pid = %q", pid)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if tl.Name == "mcp__a__echo" && (tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint) {
			t.Errorf("mcp__a__echo lost its readOnlyHint: %+v", tl.Annotations)
		}
		if tl.Name == "mcp__a__crash" && (tl.Annotations.ReadOnlyHint == nil || *tl.Annotations.ReadOnlyHint) {
			t.Errorf("mcp__a__crash lost its readOnlyHint false: %+v", tl.Annotations)
		}
	}
	for _, want := range []string{"mcp__a__echo", "mcp__a__complex_schema", "mcp__a__raw_schema", "mcp__mcptray__status"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tools/list through the gateway lacks %s: %v", want, names)
		}
	}
}

// TestGatewaySchemasUnchanged reads tools/list off the wire: each schema is
// the server's own, top-level anyOf, $defs and oneOf included.
func TestGatewaySchemasUnchanged(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	sess := r.initialize(t, http.StatusOK)
	body := r.post(t, sess, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.StatusOK)
	var list struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(sseData(body), &list); err != nil {
		t.Fatalf("decoding tools/list: %v\n%s", err, body)
	}
	want := map[string]string{"mcp__a__complex_schema": mcpserver.ComplexSchema, "mcp__a__raw_schema": mcpserver.RawSchema}
	for _, tl := range list.Result.Tools {
		if w, ok := want[tl.Name]; ok {
			if string(tl.InputSchema) != w {
				t.Errorf("%s's inputSchema through the gateway:\n%s\nwant\n%s", tl.Name, tl.InputSchema, w)
			}
			delete(want, tl.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("tools/list lacks %v:\n%s", want, body)
	}
}

// TestGatewayListChanged: a server adding a tool reaches an app's listening
// stream as notifications/tools/list_changed, and the new tool is listed
// and callable.
func TestGatewayListChanged(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	sess := r.initialize(t, http.StatusOK)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	req := r.request(t, sess, "")
	req = req.WithContext(ctx)
	req.Method, req.Body = http.MethodGet, nil
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET (listen): %s", resp.Status)
	}
	events := make(chan string, 10)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- d
			}
		}
	}()

	c := r.client()
	// A new tool is held until accepted (pins.go), unless the person
	// accepts this server's changes as they come.
	if err := r.svc.SetAcceptChanges(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := callText(t, c, "mcp__a__notify_tools_changed", nil); got != "added extra_1" {
		t.Fatalf("notify_tools_changed = %q", got)
	}
	for done := false; !done; {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the listening stream ended without tools/list_changed: %v", ctx.Err())
			}
			done = strings.Contains(ev, `"notifications/tools/list_changed"`)
		case <-ctx.Done():
			t.Fatalf("no tools/list_changed within %s", deadline)
		}
	}
	r.waitTool("mcp__a__extra_1")
	if got, isErr := callText(t, c, "mcp__a__extra_1", nil); got != "extra_1" || isErr {
		t.Errorf("mcp__a__extra_1 = %q (error %v)", got, isErr)
	}
}

// TestGatewayErrors: a call says whether the server is unavailable (and
// why, in the snapshot's words) or the tool itself failed.
func TestGatewayErrors(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]any{"b": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-program")}})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := r.svc.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	snap, _ := r.svc.Snapshot(ctx)
	b, _ := snap.Find("b")
	if b.State == conn.Connected || b.Reason == "" {
		t.Fatalf("b = %s (%q), want a failure with a reason", b.State, b.Reason)
	}
	for _, tl := range r.gw.MCPServer().ListTools() {
		if strings.HasPrefix(tl.Tool.Name, "mcp__b__") {
			t.Errorf("the gateway lists %s of a server that is not connected", tl.Tool.Name)
		}
	}

	tests := []struct {
		name   string
		route  route
		want   string
		reason string
	}{
		{"unavailable", route{server: "b", tool: "anything", qualified: "mcp__b__anything", readOnly: true}, "the server b is unavailable: ", b.Reason},
		{"tool failed", route{server: "a", tool: "no_such_tool", qualified: "mcp__a__no_such_tool", readOnly: true}, "the tool no_such_tool of a failed: ", ""},
	}
	for _, tt := range tests {
		res, err := r.gw.call(tt.route)(ctx, mcp.CallToolRequest{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		text := res.Content[0].(mcp.TextContent).Text
		if !res.IsError || !strings.HasPrefix(text, tt.want) || !strings.Contains(text, tt.reason) {
			t.Errorf("%s: %q (error %v), want it to start %q and hold %q", tt.name, text, res.IsError, tt.want, tt.reason)
		}
	}
}

// initialize posts initialize without the client library and returns the
// session id, checking the status.
func (r *rig) initialize(t testing.TB, status int, mutate ...func(*http.Request)) string {
	t.Helper()
	req := r.request(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	for _, m := range mutate {
		m(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status {
		t.Fatalf("initialize: %s, want %d\n%s", resp.Status, status, body)
	}
	if status != http.StatusOK {
		return ""
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("initialize gave no session id")
	}
	r.post(t, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusAccepted)
	return id
}

func (r *rig) request(t testing.TB, session, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.face.Status().URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+r.token)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", legacy)
	}
	return req
}

// post sends one message in session and returns the answer's body.
func (r *rig) post(t testing.TB, session, body string, status int) []byte {
	t.Helper()
	resp, err := http.DefaultClient.Do(r.request(t, session, body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("POST %s: %s, want %d\n%s", body, resp.Status, status, b)
	}
	return b
}

// sseData is the message in an answer: the body itself, or the data of
// its one event.
func sseData(body []byte) []byte {
	for _, line := range bytes.Split(body, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			return d
		}
	}
	return body
}

// TestHTTPFaceRefuses: only a request from this computer's apps, with the
// token, in a session the gateway issued, gets in.
func TestHTTPFaceRefuses(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	port := strings.TrimPrefix(strings.TrimSuffix(r.face.Status().URL, Path), "http://127.0.0.1:")
	tests := []struct {
		name   string
		mutate func(*http.Request)
		status int
	}{
		{"no token", func(q *http.Request) { q.Header.Del("Authorization") }, http.StatusUnauthorized},
		{"a wrong token", func(q *http.Request) { q.Header.Set("Authorization", "Bearer "+r.token+"x") }, http.StatusUnauthorized},
		{"a token of another scheme", func(q *http.Request) { q.Header.Set("Authorization", "Basic "+r.token) }, http.StatusUnauthorized},
		{"a foreign Origin", func(q *http.Request) { q.Header.Set("Origin", "https://evil.example") }, http.StatusForbidden},
		{"a foreign Host", func(q *http.Request) { q.Host = "evil.example:" + port }, http.StatusForbidden},
		{"a loopback Host with another port", func(q *http.Request) { q.Host = "127.0.0.1:1" }, http.StatusForbidden},
		{"the scheme in lower case", func(q *http.Request) { q.Header.Set("Authorization", "bearer "+r.token) }, http.StatusOK},
		{"a loopback Origin", func(q *http.Request) { q.Header.Set("Origin", "http://localhost:3000") }, http.StatusOK},
		{"localhost as Host", func(q *http.Request) { q.Host = "localhost:" + port }, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { r.initialize(t, tt.status, tt.mutate) })
	}

	t.Run("an unknown session", func(t *testing.T) {
		r.post(t, "mcptray-00000000000000000000000000000000", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.StatusNotFound)
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			req := r.request(t, "mcp-session-5b1f2c3e-0000-4000-8000-000000000000", "")
			req.Method = method
			req.Body = nil
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s with an unknown session: %s, want 404", method, resp.Status)
			}
		}
	})
	t.Run("an ended session", func(t *testing.T) {
		sess := r.initialize(t, http.StatusOK)
		r.post(t, sess, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.StatusOK)
		req := r.request(t, sess, "")
		req.Method, req.Body = http.MethodDelete, nil
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("DELETE: %s", resp.Status)
		}
		r.post(t, sess, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, http.StatusNotFound)
	})
}

func TestListenLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "[::1]:0", "192.0.2.1:0", "example.com:0"} {
		if ln, err := ListenLoopback(addr); err == nil {
			ln.Close()
			t.Errorf("ListenLoopback(%q) listened on %s", addr, ln.Addr())
		}
	}
	ln, err := ListenLoopback("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !strings.HasPrefix(ln.Addr().String(), "127.0.0.1:") {
		t.Errorf("localhost:0 listened on %s", ln.Addr())
	}
}

// TestTokenAndAddrKept: the face checks the token it is given (the
// service's), which never reaches the config file; the port is chosen
// once and kept in the config.
func TestTokenAndAddrKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := secrettest.New()
	token := func(ctx context.Context) (string, error) {
		v, err := store.Get(ctx, secret.Key{Server: secret.GatewayServer, Kind: secret.GatewayToken})
		return string(v), err
	}
	a := "a-token-from-the-keychain-long-enough-to-find-in-a-file"
	if err := store.Set(ctx, secret.Key{Server: secret.GatewayServer, Kind: secret.GatewayToken}, []byte(a)); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	paths, _ := config.NewPaths("linux", func(k string) (string, bool) { return map[string]string{"HOME": dir}[k], k == "HOME" })
	g := New(stubService{}, Options{})
	f, err := g.OpenHTTP(ctx, HTTPOptions{Paths: paths, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	first := f.Status().URL
	f.Close()
	kept, err := KeptAddr(paths)
	if err != nil || URL(kept) != first {
		t.Fatalf("kept %q, %v; the face listened at %s", kept, err, first)
	}
	f, err = g.OpenHTTP(ctx, HTTPOptions{Paths: paths, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Status().URL != first {
		t.Errorf("the second start listened at %s, want the kept %s", f.Status().URL, first)
	}
	cfg, _ := os.ReadFile(paths.UserFile())
	if bytes.Contains(cfg, []byte(a)) {
		t.Error("the token is in the config file")
	}
}

type stubService struct{}

func (stubService) Snapshot(context.Context) (service.Snapshot, error) {
	return service.Snapshot{}, nil
}
func (stubService) Subscribe(ctx context.Context) (<-chan struct{}, error) {
	return make(chan struct{}), nil
}
func (stubService) CallAsync(_ context.Context, _ service.CallRequest, done func(*mcp.CallToolResult, error)) {
	done(nil, fmt.Errorf("no servers"))
}
func (stubService) OfferablePrompts(string, []mcp.Prompt) ([]mcp.Prompt, error) {
	return nil, fmt.Errorf("no servers")
}

// TestGatewayResourcesAndPrompts: servers' resources keep their URIs and
// say their server; of a URI two servers share, the first server in the
// config keeps it and the other's is told apart, and both read; prompts
// are named like tools; both reach their server.
func TestGatewayResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]any{"b": map[string]any{"command": testServerBin, "args": []string{"-name", "b"}}})
	r.waitTool("mcp__b__echo")
	c := r.client()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()

	res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, r := range res.Resources {
		titles[r.URI] = r.Title
	}
	if len(res.Resources) != 2 || titles["test://greeting"] != "a: greeting" || titles["mcptray://b/test://greeting"] != "b: greeting" {
		t.Fatalf("resources/list through the gateway = %+v, want a's test://greeting as it is and b's told apart", res.Resources)
	}
	for _, want := range []struct{ uri, text string }{{"test://greeting", "hello from a"}, {"mcptray://b/test://greeting", "hello from b"}} {
		read := mcp.ReadResourceRequest{}
		read.Params.URI = want.uri
		got, err := c.ReadResource(ctx, read)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Contents) != 1 || got.Contents[0].(mcp.TextResourceContents).Text != want.text ||
			got.Contents[0].(mcp.TextResourceContents).URI != want.uri {
			t.Errorf("resources/read %s = %+v, want %q under the URI read", want.uri, got.Contents, want.text)
		}
	}

	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "mcp__a__greet mcp__b__greet" && strings.Join(names, " ") != "mcp__b__greet mcp__a__greet" {
		t.Fatalf("prompts/list through the gateway = %q", names)
	}
	get := mcp.GetPromptRequest{}
	get.Params.Name = "mcp__b__greet"
	get.Params.Arguments = map[string]string{"who": "Ada"}
	p, err := c.GetPrompt(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 1 || p.Messages[0].Content.(mcp.TextContent).Text != "Hello, Ada!" {
		t.Errorf("prompts/get = %+v", p.Messages)
	}
}

// TestGatewayCancellation: an app cancelling a call through the gateway
// (notifications/cancelled) cancels it at the server.
func TestGatewayCancellation(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	sess := r.initialize(t, http.StatusOK)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := r.request(t, sess, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcp__a__sleep","arguments":{"ms":600000}}}`)
	go func() {
		if resp, err := http.DefaultClient.Do(req.WithContext(ctx)); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	r.waitStderr(t, "a", "mcp-testserver: sleeping 600000ms")
	r.post(t, sess, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the person stopped it"}}`, http.StatusAccepted)
	r.waitStderr(t, "a", "mcp-testserver: sleep cancelled")
}

// waitStderr waits until a server's error output holds line.
func (r *rig) waitStderr(t *testing.T, server, line string) {
	t.Helper()
	// There is no notice for new error output: look again briefly.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(deadline)
	for {
		snap, err := r.svc.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sv, _ := snap.Find(server)
		if strings.Contains(sv.Stderr, line) {
			return
		}
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("waited %s for %q in %s's error output:\n%s", deadline, line, server, sv.Stderr)
		}
	}
}

// TestGatewayPermissions: Block refuses, Ask waits for the person and goes
// ahead on yes, fails on no and on no answer, and without anyone to ask
// says how to allow the tool; hidden tools are not offered; a tool its
// server says only reads is allowed unless the person chose otherwise.
func TestGatewayPermissions(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, nil, map[string]any{
		"permissions": map[string]string{"mcp__a__echo": "block", "mcp__a__add": "ask"},
		"hidden":      []string{"mcp__a__crash"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	answers := make(chan bool, 1)
	var asked []Question
	g := New(r.svc, Options{AskTimeout: 300 * time.Millisecond, Ask: func(ctx context.Context, q Question) (bool, error) {
		asked = append(asked, q)
		select {
		case ok := <-answers:
			return ok, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}})
	if err := g.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	call := func(g *Gateway, tool string, args map[string]any) (string, bool) {
		t.Helper()
		st := g.MCPServer().GetTool(tool)
		if st == nil {
			t.Fatalf("the gateway does not offer %s", tool)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := st.Handler(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res.Content[0].(mcp.TextContent).Text, res.IsError
	}
	expect := func(what, got string, isErr bool, want string, wantErr bool) {
		t.Helper()
		if !strings.Contains(got, want) || isErr != wantErr {
			t.Errorf("%s: %q (error %v), want %q (error %v)", what, got, isErr, want, wantErr)
		}
	}

	got, isErr := call(g, "mcp__a__echo", map[string]any{"text": "x"})
	expect("a blocked tool", got, isErr, "mcptray blocks mcp__a__echo; to let it run: mcptray permissions allow mcp__a__echo", true)

	answers <- true
	got, isErr = call(g, "mcp__a__add", map[string]any{"a": 2, "b": 3})
	expect("an Ask tool the person allows", got, isErr, "5", false)
	if len(asked) != 1 || asked[0].Tool != "mcp__a__add" || asked[0].ServerTool != "add" || string(asked[0].Arguments) != `{"a":2,"b":3}` || !asked[0].ReadOnly {
		t.Errorf("the question: %+v", asked)
	}
	answers <- false
	got, isErr = call(g, "mcp__a__add", map[string]any{"a": 2, "b": 3})
	expect("an Ask tool the person declines", got, isErr, "you declined mcp__a__add", true)
	got, isErr = call(g, "mcp__a__add", map[string]any{"a": 2, "b": 3})
	expect("an Ask tool nobody answers", got, isErr, "nobody answered mcptray's question about mcp__a__add within 300ms", true)

	// The rig's own gateway has no window to ask in.
	got, isErr = call(r.gw, "mcp__a__roots", nil)
	expect("a tool that may write, with no window", got, isErr, "there is no mcptray window to ask in; to let it run every time: mcptray permissions allow mcp__a__roots", true)
	// Nor has one whose asker finds no window to open.
	headless := New(r.svc, Options{Ask: func(context.Context, Question) (bool, error) { return false, ErrNoWindow }})
	if err := headless.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, isErr = call(headless, "mcp__a__roots", nil)
	expect("a tool that may write, with no window to open", got, isErr, "there is no mcptray window to ask in; to let it run every time: mcptray permissions allow mcp__a__roots", true)
	got, isErr = call(r.gw, "mcp__a__echo", map[string]any{"text": "x"})
	expect("a read-only tool the person blocked", got, isErr, "blocks", true)
	if got, isErr = call(r.gw, "mcp__a__pid", nil); isErr {
		t.Errorf("a read-only tool with no choice made: %q", got)
	}
	for _, gw := range []*Gateway{g, r.gw} {
		if gw.MCPServer().GetTool("mcp__a__crash") != nil {
			t.Error("a hidden tool is offered")
		}
	}
}

// TestGatewayFollowsRules: hiding a tool in mcptray's config takes it from
// the running gateway.
func TestGatewayFollowsRules(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	notices, _ := r.svc.Subscribe(ctx)
	err := config.ModifyUserFile(r.paths.UserFile(), func(u *config.UserFile) error {
		rules, err := u.GatewayRules()
		rules.Hidden = append(rules.Hidden, "mcp__a__echo")
		if err == nil {
			err = u.SetGatewayRules(rules)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for r.gw.MCPServer().GetTool("mcp__a__echo") != nil {
		select {
		case <-ctx.Done():
			t.Fatalf("the gateway still offers a tool hidden %s ago", deadline)
		case <-notices:
			if err := r.gw.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}
