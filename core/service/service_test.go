package service

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/demo"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service/netpolicy"
	"github.com/mcptray/mcptray/test/authserver"
	"github.com/mcptray/mcptray/test/mcpserver"
)

var testServerBin string

// TestMain runs the tests, or, run as "TEST-BINARY demo-server" (by
// TestAddDemo's project folder), mcptray's demo server, as mcptray does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.LauncherArg { // sandbox_test.go's launcher
		os.Exit(sandbox.Launch(os.Args[2:], os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.ProbeArg { // sandboxcheck_test.go's probe
		os.Exit(sandbox.Probe(os.Args[2:], os.Stdin, os.Stdout))
	}
	if len(os.Args) == 2 && os.Args[1] == demo.Arg {
		if err := demo.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", testsAtOnce); err != nil {
			panic(err)
		}
	}
	os.Exit(mcpserver.RunTests(m, &testServerBin))
}

// testsAtOnce is how many tests run side by side unless -parallel says
// otherwise. Go's default is one a core, but the ten tests that install
// with npm wait for their turn (npmturn_test.go) in those places: on two
// cores, two of them waiting kept every other test waiting too. With
// room for all ten, and two more, the others run beside them, and the
// tests, which mostly wait on their servers, took 87 s rather than 121 s.
const testsAtOnce = "12"

// deadline bounds every wait here: starting the test server takes well
// under a second; a wait that reaches this has failed.
const deadline = 20 * time.Second

// home is a temporary home with mcptray's paths in it.
type home struct {
	t     *testing.T
	dir   string
	paths config.Paths
	store *secrettest.Store
	env   map[string]string
	// ask answers the egress proxy's questions in the services start
	// makes, as the window would; nil: there is no one to ask.
	ask egress.AskFunc
}

func newHome(t *testing.T) *home {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir}
	paths, err := config.NewPaths("linux", func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	paths.Enterprise = filepath.Join(dir, "etc", "managed.json")
	return &home{t: t, dir: dir, paths: paths, store: secrettest.New(), env: env}
}

// writeJSON writes v as JSON to path under the home.
func (h *home) writeJSON(path string, v any) {
	h.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// writeFiles writes each file, a path under the home, with its text.
func (h *home) writeFiles(files map[string]string) {
	h.t.Helper()
	for rel, text := range files {
		p := filepath.Join(h.dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			h.t.Fatal(err)
		}
	}
}

// startSandboxed is start with the servers started in their sandbox,
// through this test program as the launcher, with the home as theirs and
// env added to their environment.
func (h *home) startSandboxed(env ...string) *Service {
	h.t.Helper()
	self, err := os.Executable()
	if err != nil {
		h.t.Fatal(err)
	}
	base := append(append(os.Environ(), "HOME="+h.dir), env...)
	return h.start(true, func(o *Options) { o.Launcher = self; o.Conn.BaseEnv = base })
}

// withRecord gives the service the activity record l, as core/instance
// does.
func withRecord(l *activity.Log) func(*Options) { return func(o *Options) { o.Record = l } }

// start runs a Service for the home until the test ends.
func (h *home) start(follow bool, mutate ...func(*Options)) *Service {
	h.t.Helper()
	opts := Options{
		Paths: h.paths, Store: h.store, Follow: follow, Debounce: 20 * time.Millisecond,
		Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
	}
	for _, m := range mutate {
		m(&opts)
	}
	// The proxy of a sandboxed server's network and the policy it asks,
	// as core/instance makes them.
	var proxy *egress.Proxy
	if opts.NeedsProxy() {
		opts.Network = netpolicy.New(netpolicy.Options{UserFile: opts.Paths.UserFile(), Ask: h.ask})
		proxy = egress.New(opts.Network.ProxyOptions())
		opts.Proxy = proxy
	}
	s, err := New(opts)
	if err != nil {
		h.t.Fatal(err)
	}
	if proxy != nil {
		if err := proxy.Start(context.Background()); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := s.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		s.Close()
		if proxy != nil {
			proxy.Close()
		}
	})
	return s
}

// waitFor waits until ok holds for a snapshot of s, taking a new one at
// every change notice, and returns it.
func waitFor(t *testing.T, s *Service, what string, ok func(Snapshot) bool) Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	notices, _ := s.Subscribe(ctx)
	for {
		snap, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok(snap) {
			return snap
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waited %s for %s; last snapshot: %+v", deadline, what, brief(snap))
		case <-notices:
		}
	}
}

// brief is a snapshot in one line for failure messages.
func brief(s Snapshot) string {
	var parts []string
	for _, sv := range s.Servers {
		parts = append(parts, sv.Name+"="+sv.State.String()+"("+sv.Reason+")")
	}
	return strings.Join(parts, " ")
}

func state(s Snapshot, name string) conn.State {
	sv, _ := s.Find(name)
	return sv.State
}

func testServer(name string) map[string]any {
	return map[string]any{"command": testServerBin, "args": []string{"-name", name}}
}

// TestActions: each action reaches the snapshot with the state, reason and
// fix a person sees.
func TestActions(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(h.paths.UserFile(), map[string]any{
		"mcpServers": map[string]any{"mine": testServer("mine")},
		"folders":    []string{proj},
	})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"theirs": testServer("theirs")},
	})
	s := h.start(false)
	ctx := context.Background()

	snap := waitFor(t, s, "mine to connect", func(s Snapshot) bool { return state(s, "mine") == conn.Connected })
	theirs, _ := snap.Find("theirs")
	if theirs.State != conn.AwaitingApproval || theirs.Fix.Action != ApproveAction || theirs.Reason == "" {
		t.Fatalf("theirs = %s %q %+v; want awaiting approval with an approve fix", theirs.State, theirs.Reason, theirs.Fix)
	}
	if mine, _ := snap.Find("mine"); len(mine.Tools) == 0 || mine.Tools[0].QualifiedName == "" {
		t.Errorf("mine has tools %+v; want them with qualified names", mine.Tools)
	}

	approved, err := s.Approve(ctx, "theirs")
	if err != nil || approved.Approval != config.Approved {
		t.Fatalf("Approve = %+v, %v", approved.Approval, err)
	}
	waitFor(t, s, "theirs to connect once approved", func(s Snapshot) bool { return state(s, "theirs") == conn.Connected })

	if _, err := s.Approve(ctx, "mine"); CodeOf(err) != NotAllowed {
		t.Errorf("approving a user server: %v (code %q), want not-allowed", err, CodeOf(err))
	}
	if _, err := s.Approve(ctx, "ghost"); CodeOf(err) != NotFound {
		t.Errorf("approving a server that does not exist: %v, want not-found", err)
	}

	if err := s.Disable(ctx, "theirs"); err != nil {
		t.Fatal(err)
	}
	snap = waitFor(t, s, "theirs to be off", func(s Snapshot) bool { return state(s, "theirs") == conn.Disabled })
	if sv, _ := snap.Find("theirs"); sv.Fix.Action != EnableAction {
		t.Errorf("a server turned off offers %+v, want to turn it on", sv.Fix)
	}
	// Turned off is kept, so a new mcptray keeps it off too.
	if again := h.start(false, func(o *Options) { o.Only = []string{} }); state(mustSnap(t, again), "theirs") != conn.Disabled {
		t.Error("a server turned off is on again in a new service")
	}
	if err := s.Enable(ctx, "theirs"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "theirs to connect once on", func(s Snapshot) bool { return state(s, "theirs") == conn.Connected })

	if err := s.PauseAll(ctx); err != nil {
		t.Fatal(err)
	}
	snap = waitFor(t, s, "everything paused", func(s Snapshot) bool {
		return s.Paused && state(s, "mine") == conn.Disabled && state(s, "theirs") == conn.Disabled
	})
	if sv, _ := snap.Find("mine"); sv.Reason != "paused" {
		t.Errorf("a paused server says %q", sv.Reason)
	}
	if _, err := s.Tools(ctx, "mine"); err == nil || !strings.Contains(err.Error(), "paused") {
		t.Errorf("Tools while paused: %v; want it to say mcptray is paused", err)
	}
	if err := s.ResumeAll(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "both back", func(s Snapshot) bool {
		return !s.Paused && state(s, "mine") == conn.Connected && state(s, "theirs") == conn.Connected
	})

	res, err := s.Call(ctx, CallRequest{Server: "mine", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	if err != nil || res.IsError || !strings.Contains(textOf(res.Content), "hi") {
		t.Errorf("Call echo = %+v, %v", res, err)
	}
	// Without the wait: the same, and the same words for a server that
	// is not there (that one waits on a goroutine, as Call would).
	for _, tc := range []struct{ server, want string }{{"mine", "hi"}, {"nobody", ""}} {
		type outcome struct {
			res *mcp.CallToolResult
			err error
		}
		ch := make(chan outcome, 1)
		req := CallRequest{Server: tc.server, Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}
		s.CallAsync(ctx, req, func(res *mcp.CallToolResult, err error) { ch <- outcome{res, err} })
		o := <-ch
		_, want := s.Call(ctx, req)
		switch {
		case tc.want != "" && (o.err != nil || !strings.Contains(textOf(o.res.Content), tc.want)):
			t.Errorf("CallAsync echo on %s = %+v, %v", tc.server, o.res, o.err)
		case tc.want == "" && (o.err == nil || want == nil || o.err.Error() != want.Error() || CodeOf(o.err) != CodeOf(want)):
			t.Errorf("CallAsync on %s: %v; Call says %v", tc.server, o.err, want)
		}
	}

	added, err := s.Add(ctx, AddRequest{Name: "more", Entry: mustJSON(t, testServer("more"))})
	if err != nil || added.File != h.paths.UserFile() {
		t.Fatalf("Add = %+v, %v", added, err)
	}
	waitFor(t, s, "the added server to connect", func(s Snapshot) bool { return state(s, "more") == conn.Connected })
	if _, err := s.Add(ctx, AddRequest{Name: "more", Entry: mustJSON(t, testServer("more"))}); CodeOf(err) != Invalid {
		t.Errorf("adding a taken name: %v, want invalid", err)
	}
	if _, err := s.Add(ctx, AddRequest{Name: "mcptray", Entry: mustJSON(t, testServer("x"))}); CodeOf(err) != Invalid {
		t.Errorf("adding a server named like the built-in one: %v, want invalid", err)
	}
	if _, err := s.Remove(ctx, "more"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "the removed server to go", func(s Snapshot) bool { _, ok := s.Find("more"); return !ok })
	if _, err := s.Remove(ctx, "theirs"); CodeOf(err) != NotAllowed || !strings.Contains(err.Error(), ".mcp.json") {
		t.Errorf("removing a project server: %v; want not-allowed naming its file", err)
	}
}

// TestConfigEditsReachSnapshot: a hand edit of config.json shows in the
// snapshot, and its server runs.
func TestConfigEditsReachSnapshot(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(true)
	waitFor(t, s, "the first snapshot", func(s Snapshot) bool { return len(s.Servers) == 1 })
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"edited": testServer("edited")}})
	waitFor(t, s, "the edited-in server to connect", func(s Snapshot) bool { return state(s, "edited") == conn.Connected })
	if err := os.WriteFile(h.paths.UserFile(), []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, s, "the broken file to show as a problem", func(s Snapshot) bool { return len(s.Problems) > 0 })
	if p := snap.Problems[0]; p.File != h.paths.UserFile() || p.Message == "" {
		t.Errorf("problem = %+v", p)
	}
}

// TestSignInElsewhere: a sign-in made by another mcptray takes the server
// out of needs-auth here within 2 seconds, not after NeedsAuthTTL.
func TestSignInElsewhere(t *testing.T) {
	t.Parallel()
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	h := newHome(t)
	browser, err := authserver.BrowserCommand(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"remote": map[string]any{"url": srv.MCPURL}}})
	running := h.start(true)
	waitFor(t, running, "remote to need a sign-in", func(s Snapshot) bool { return state(s, "remote") == conn.NeedsAuth })
	snap, _ := running.Snapshot(context.Background())
	if sv, _ := snap.Find("remote"); sv.Fix.Action != SignInAction {
		t.Errorf("a server that needs a sign-in offers %+v", sv.Fix)
	}

	// The other mcptray shares the keychain (the store) and the files,
	// and nothing else: it tells the running one only through them.
	other := h.start(false, func(o *Options) {
		o.Only = []string{}
		o.Browser = oauth.CommandBrowser(oauth.ParseBrowserCommand(browser))
	})
	if err := other.SignIn(context.Background(), "remote", SignInOptions{}); err != nil {
		t.Fatal(err)
	}
	signedIn := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	notices, _ := running.Subscribe(ctx)
	for state(mustSnap(t, running), "remote") != conn.Connected {
		select {
		case <-ctx.Done():
			t.Fatalf("remote is still %s 2 s after the sign-in elsewhere", state(mustSnap(t, running), "remote"))
		case <-notices:
		}
	}
	t.Logf("seen connected %s after the sign-in elsewhere", time.Since(signedIn).Round(time.Millisecond))
}

func mustSnap(t *testing.T, s *Service) Snapshot {
	t.Helper()
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
