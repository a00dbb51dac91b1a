package window

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/demo"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/test/mcpserver"
)

var testServerBin string

// TestMain runs the tests, or, run as "TEST-BINARY demo-server" (by
// TestRealTryDemo's project folder), mcptray's demo server.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.LauncherArg { // sandbox_test.go's launcher
		os.Exit(sandbox.Launch(os.Args[2:], os.Stderr))
	}
	if len(os.Args) == 2 && os.Args[1] == demo.Arg {
		if err := demo.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(mcpserver.RunTests(m, &testServerBin))
}

// realDeadline bounds every wait on the real service. Starting the test
// server takes well under a second, but make test runs these beside
// compiles and the conformance suite on two cores, where the demo's first
// start (this test binary) once took more than 20 s. Nothing waits this
// long when things work: it only says when they do not.
const realDeadline = 60 * time.Second

// real is a window on the test driver, a client of a running mcptray
// (core/instance: the service, the gateway and the control endpoint) over
// its control socket, as `mcptray window` is.
type real struct {
	t      *testing.T
	dir    string
	paths  config.Paths
	inst   *instance.Instance
	svc    *service.Service // inst.Service
	cl     *control.Client
	v      *window
	win    fyne.Window
	events chan string
}

// testServer is a config entry that runs the in-repo test server.
func testServer(name string) map[string]any {
	return map[string]any{"command": testServerBin, "args": []string{"-name", name}}
}

// realOption prepares the temporary home, or the service's options,
// before the service starts.
type realOption func(r *real, o *service.Options)

// withBrowser gives the service a browser for sign-ins.
func withBrowser(b oauth.Browser) realOption {
	return func(_ *real, o *service.Options) { o.Browser = b }
}

// following makes the service notice config changes sooner than
// mcptray's default; it follows them always, as the running mcptray does.
func following(_ *real, o *service.Options) { o.Debounce = 50 * time.Millisecond }

// withFile writes v, as JSON, to the file where (given the home's paths)
// says.
func withFile(where func(config.Paths) string, v any) realOption {
	return func(r *real, _ *service.Options) { r.write(where(r.paths), v) }
}

// newReal starts a service on a temporary home holding userFile (when not
// nil) and opens the window on it.
func newReal(t *testing.T, userFile map[string]any, opts ...realOption) *real {
	t.Helper()
	dir := t.TempDir()
	p, err := config.NewPaths("linux", func(k string) (string, bool) {
		switch k {
		case "HOME":
			return dir, true
		case "XDG_RUNTIME_DIR":
			return filepath.Join(dir, "run"), true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Enterprise = filepath.Join(dir, "managed.json")
	r := &real{t: t, dir: dir, paths: p, events: make(chan string, 256)}
	if userFile != nil {
		r.write(p.UserFile(), userFile)
	}
	so := service.Options{Paths: p, Store: secrettest.New(), Lookup: func(string) (string, bool) { return "", false }}
	for _, o := range opts {
		o(r, &so)
	}
	if so.Conn.BaseEnv == nil {
		// Servers start from the test's environment, with the home as
		// theirs: not from the login shell's, which runs the person's
		// profile (a slow one holds every first start up to its 5 s
		// bound).
		so.Conn.BaseEnv = append(os.Environ(), "HOME="+dir)
	}
	// Its questions come to this window; its gateway listens on a port of
	// its own, kept nowhere.
	r.inst, err = instance.Listen(instance.Options{Service: so, Window: true,
		OpenWindow: func(string) error { return nil }, HTTP: gateway.HTTPOptions{Addr: "127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.inst.Close() }) // last, once the window is gone
	r.svc = r.inst.Service
	ctx, cancel := context.WithCancel(context.Background())
	if err := r.inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r.cl, err = control.Dial(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	a := test.NewTempApp(t)
	r.win = test.NewWindow(nil)
	r.v = newWindow(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), a, r.win, r.cl, Options{})
	r.v.do = serialDo()
	r.v.settled = func(what string) {
		select {
		case r.events <- what:
		default: // nobody waits that far behind
		}
	}
	r.v.quit = func() {}
	r.win.Resize(fyne.NewSize(900, 640))
	notices, err := r.cl.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	questions, err := r.cl.Questions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The window's goroutines end before the next test builds its
	// window: Fyne's caches are shared.
	followed := make(chan struct{}, 2)
	go func() { r.v.follow(ctx, notices); followed <- struct{}{} }()
	go func() { r.v.followQuestions(ctx, questions); followed <- struct{}{} }()
	t.Cleanup(func() {
		r.win.Close()
		r.cl.Close()
		cancel()
		<-followed
		<-followed
		r.v.appsWork.Wait()
	})
	return r
}

func (r *real) write(path string, v any) {
	r.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// until waits until ok holds, checked on the UI goroutine each time the
// window settles some work.
func (r *real) until(what string, ok func() bool) {
	r.t.Helper()
	deadline := time.After(realDeadline)
	for {
		var done bool
		r.v.do(func() { done = ok() })
		if done {
			return
		}
		select {
		case <-r.events:
		case <-deadline:
			r.t.Fatalf("waited %s for %s", realDeadline, what)
		}
	}
}

// shows reports whether the window's snapshot has name in state st.
func (r *real) shows(name string, st service.State) bool {
	sv, ok := r.v.snap.Find(name)
	return ok && sv.State == st
}

// TestRealAddByPaste: a bad snippet is refused in plain words; a good one
// reaches the service's config and the list.
func TestRealAddByPaste(t *testing.T) {
	r := newReal(t, nil)
	r.until("the welcome", func() bool { return r.v.welcome.box.Visible() })
	r.tap(r.v.welcome.add)
	a := r.v.addDialog
	if a == nil {
		t.Fatal("the welcome's Add button opened no dialog")
	}
	snippet := `{"mcpServers": {"echo": {"command": "` + testServerBin + `", "args": ["-name", "echo"],},}}`
	r.v.do(func() {
		test.Type(a.paste, `{"command": "x"}`)
		if !a.problem.Visible() || !strings.Contains(a.problem.Text, "without its name") || !a.add.Disabled() {
			t.Errorf("a snippet without a name: problem %q (shown %v), Add disabled %v", a.problem.Text, a.problem.Visible(), a.add.Disabled())
		}
		a.paste.SetText("")
		test.Type(a.paste, snippet)
		if a.problem.Visible() || a.add.Disabled() || !strings.Contains(a.preview.Text, "echo\n  runs "+testServerBin+" -name echo") {
			t.Fatalf("the snippet was not understood: problem %q, preview %q", a.problem.Text, a.preview.Text)
		}
	})
	r.tap(a.add)
	r.until("echo to connect", func() bool { return r.shows("echo", service.Connected) })
	u, err := config.ReadUserFile(r.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.MCPServers["echo"]; !ok {
		t.Errorf("echo is not in mcptray's config: %v", u.MCPServers)
	}
	r.until("echo to be selected and the welcome gone", func() bool {
		return r.v.detail.server.Name == "echo" && !r.v.welcome.box.Visible()
	})
}

// TestRealQuestion: a server's question, asked during a real tool call, is
// answered by filling in the form; the answer reaches the server. A second
// is declined.
func TestRealQuestion(t *testing.T) {
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"asker": testServer("asker")}})
	r.until("asker to connect", func() bool { return r.shows("asker", service.Connected) })

	type result struct {
		res *mcp.CallToolResult
		err error
	}
	call := func() <-chan result {
		out := make(chan result, 1)
		go func() {
			res, err := r.cl.Call(context.Background(), service.CallRequest{Server: "asker", Tool: "ask"})
			out <- result{res, err}
		}()
		return out
	}
	answered := call()
	r.until("the question's form", func() bool { return r.v.question != nil })
	f := r.v.question
	r.v.do(func() {
		if f.q.Server != "asker" || len(f.fields) != 2 || f.fields[0].key != "name" || f.fields[0].entry.Text != "Ada" || f.fields[1].entry.Text != "36" {
			t.Fatalf("the form: server %q, fields %+v", f.q.Server, f.fields)
		}
		// The name is needed: an empty one is refused.
		f.fields[0].entry.SetText("")
		test.Tap(f.accept)
		if !f.problem.Visible() || !strings.Contains(f.problem.Text, "Fill in name") {
			t.Errorf("an empty needed field: problem %q", f.problem.Text)
		}
		test.Type(f.fields[0].entry, "Grace")
		f.fields[1].entry.SetText("")
		test.Type(f.fields[1].entry, "x")
		test.Tap(f.accept)
		if !strings.Contains(f.problem.Text, "whole number") {
			t.Errorf("a word for an integer: problem %q", f.problem.Text)
		}
		f.fields[1].entry.SetText("")
		test.Type(f.fields[1].entry, "85")
		test.Tap(f.accept)
	})

	var got result
	select {
	case got = <-answered:
	case <-time.After(realDeadline):
		t.Fatal("the tool call did not end after the answer")
	}
	if got.err != nil {
		t.Fatal(got.err)
	}
	text := toolText(got.res)
	if !strings.Contains(text, `"action":"accept"`) || !strings.Contains(text, `"name":"Grace"`) || !strings.Contains(text, `"age":85`) {
		t.Errorf("the server got %s, want Grace, 85, accepted", text)
	}

	declined := call()
	r.until("the second question", func() bool { return r.v.question != nil && r.v.question != f })
	r.tap(r.v.question.decline)
	select {
	case got = <-declined:
	case <-time.After(realDeadline):
		t.Fatal("the tool call did not end after Decline")
	}
	if text := toolText(got.res); got.err != nil || !strings.Contains(text, `"action":"decline"`) || strings.Contains(text, "Ada") {
		t.Errorf("after Decline the server got %s, %v", text, got.err)
	}
}

func toolText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestRealFoldersApprovalAndRemove: a folder added from the window brings
// its server in waiting for approval; approving it records the decision;
// Settings removes the folder; Remove… takes one's own server out.
func TestRealFoldersApprovalAndRemove(t *testing.T) {
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"mine": testServer("mine")}})
	proj := filepath.Join(r.dir, "proj")
	r.write(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"theirs": testServer("theirs")}})
	r.until("mine to connect", func() bool { return r.shows("mine", service.Connected) })

	r.v.do(func() { r.v.addFolder(proj) })
	r.until("theirs to wait for approval", func() bool { return r.shows("theirs", service.AwaitingApproval) })
	r.v.do(func() { r.v.focus("theirs") })
	r.tap(r.v.detail.fix)
	r.tap(r.v.approveButton)
	r.until("theirs to connect", func() bool { return r.shows("theirs", service.Connected) })
	decisions, err := config.NewLoader(r.paths).Approvals.Load()
	if err != nil {
		t.Fatal(err)
	}
	approved := false
	for _, d := range decisions {
		approved = approved || (d.Name == "theirs" && d.Approval == config.Approved)
	}
	if !approved {
		t.Errorf("the approval store holds no approval of theirs: %+v", decisions)
	}

	r.tap(r.v.settingsButton)
	s := r.v.settings
	if s == nil || s.remove[proj] == nil {
		t.Fatalf("Settings does not list %s", proj)
	}
	r.tap(s.remove[proj])
	r.until("the folder to go", func() bool { _, ok := r.v.snap.Find("theirs"); return !ok && len(s.remove) == 0 })
	s.d.Hide()

	r.v.do(func() { r.v.focus("mine") })
	r.tap(r.v.detail.remove)
	if r.v.confirm == nil {
		t.Fatal("Remove… asked nothing")
	}
	if b := findButton(r.win.Canvas().Overlays().Top(), "Remove"); b == nil {
		t.Fatal("the confirmation has no Remove button")
	} else {
		r.tap(b)
	}
	r.until("mine to go", func() bool { _, ok := r.v.snap.Find("mine"); return !ok })
}

// TestRealFolderAddedIsFollowed: a folder added from the window while
// mcptray runs is followed like one listed before it started: its server,
// once approved, waits for approval again when its command is changed in
// .mcp.json, and a server added there waits too. Before, the change was
// never read: the watcher had not begun watching the new folder.
func TestRealFolderAddedIsFollowed(t *testing.T) {
	r := newReal(t, nil, following)
	proj := filepath.Join(r.dir, "proj")
	mcp := filepath.Join(proj, ".mcp.json")
	r.write(mcp, map[string]any{"mcpServers": map[string]any{"theirs": testServer("theirs")}})

	r.v.do(func() { r.v.addFolder(proj) })
	r.until("theirs to wait for approval", func() bool { return r.shows("theirs", service.AwaitingApproval) })
	if _, err := r.cl.Approve(context.Background(), "theirs"); err != nil {
		t.Fatal(err)
	}
	r.until("theirs to connect", func() bool { return r.shows("theirs", service.Connected) })

	changed := testServer("theirs")
	changed["args"] = []string{"-name", "theirs", "-tools", "1"}
	r.write(mcp, map[string]any{"mcpServers": map[string]any{"theirs": changed, "more": testServer("more")}})
	r.until("the changed server and the added one to wait for approval", func() bool {
		return r.shows("theirs", service.AwaitingApproval) && r.shows("more", service.AwaitingApproval)
	})
}

// TestRealTryDemo: "Try the demo" on the welcome makes the demo folder
// in mcptray's folder; its server (this test binary as mcptray's demo
// server) comes up waiting for approval with the approval dialog open,
// and once approved serves its tools and asks its question in the window.
func TestRealTryDemo(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := newReal(t, nil, following, func(_ *real, o *service.Options) { o.GatewayCommand = self })
	r.until("the welcome", func() bool { return r.v.welcome.box.Visible() })
	r.tap(r.v.welcome.demo)
	r.until("the demo's approval dialog", func() bool { return r.v.approveFor == "demo" })
	var what string
	r.v.do(func() { what = strings.Join(labels(r.win.Canvas().Overlays().Top()), "\n") })
	if !strings.Contains(what, self+" "+demo.Arg) || !strings.Contains(what, r.paths.DemoDir()) {
		t.Errorf("the approval does not show the demo's command and folder:\n%s", what)
	}
	r.tap(r.v.approveButton)
	r.until("demo to connect", func() bool { return r.shows("demo", service.Connected) })
	if sv, _ := r.v.snap.Find("demo"); len(sv.Tools) != 3 {
		t.Errorf("demo has %d tools, want 3", len(sv.Tools))
	}
	called := make(chan string, 1)
	go func() {
		res, err := r.cl.Call(context.Background(), service.CallRequest{Server: "demo", Tool: "pick_colour"})
		b, _ := json.Marshal(res)
		called <- fmt.Sprint(string(b), err)
	}()
	r.until("the demo's question", func() bool { return r.v.question != nil })
	r.v.do(func() {
		if r.v.question.q.Server != "demo" {
			t.Errorf("the question comes from %q", r.v.question.q.Server)
		}
		test.Tap(r.v.question.accept) // its defaults: green, light
	})
	select {
	case got := <-called:
		if !strings.Contains(got, `You answered`) || !strings.Contains(got, `green`) {
			t.Errorf("pick_colour answered %s", got)
		}
	case <-time.After(realDeadline):
		t.Fatal("pick_colour did not come back")
	}
}

// TestRealSpoofedName: a server whose name in its config file holds a bidi
// override and a zero-width space is listed, and shown in the detail pane,
// with each hidden character as ?, and a note says why.
func TestRealSpoofedName(t *testing.T) {
	const written = "notes\u202Eexe.txt\u200B"
	r := newReal(t, map[string]any{"mcpServers": map[string]any{written: testServer("spoof")}})
	const shown = "notes?exe.txt?"
	r.until("the spoofed server to connect", func() bool { return r.shows(shown, service.Connected) })
	r.v.do(func() { r.v.focus(shown) })
	var list, pane []string
	r.v.do(func() {
		list, pane = labels(r.v.list), labels(r.v.detail.content)
	})
	for _, l := range append(append([]string{}, list...), pane...) {
		if strings.ContainsAny(l, "\u202E\u200B") {
			t.Errorf("the window shows a hidden character in %q", l)
		}
	}
	if indexOf(list, shown) < 0 {
		t.Errorf("the list does not show %q: %q", shown, list)
	}
	text := strings.Join(pane, "\n")
	for _, want := range []string{shown, "Its name as written holds hidden characters, each shown as ?", `Named "notes\u202eexe.txt\u200b" in that file`} {
		if !strings.Contains(text, want) {
			t.Errorf("the detail pane lacks %q:\n%s", want, text)
		}
	}
}
