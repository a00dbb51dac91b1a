package window

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// fakeRemote is a running mcptray as the window sees it: a Snapshot that
// tests replace, notices they send, and a record of every action asked.
type fakeRemote struct {
	// API is nil: a part of mcptray's API a test does not stand in for
	// below panics when the window uses it.
	service.API
	mu        sync.Mutex
	snap      service.Snapshot
	fail      error // returned by every action but SignIn
	notices   chan struct{}
	focus     chan control.WindowRequest
	questions chan control.Question
	calls     chan string // "approve notes", "sign-in notion", "sign-in ended: …"
	added     []service.AddRequest
	// checked is the last sandbox check, and what CheckSandbox finds.
	checked *service.SandboxCheck
	// catalogue is a real service that searches a test registry
	// (useRegistry), or nil.
	catalogue *service.Service
}

func (f *fakeRemote) SearchCatalogue(ctx context.Context, query string) (service.CatalogueResult, error) {
	f.mu.Lock()
	svc := f.catalogue
	f.mu.Unlock()
	return svc.SearchCatalogue(ctx, query)
}

func newFakeRemote(s service.Snapshot) *fakeRemote {
	return &fakeRemote{snap: s, notices: make(chan struct{}, 1), focus: make(chan control.WindowRequest, 1), questions: make(chan control.Question, 4), calls: make(chan string, 16)}
}

func (f *fakeRemote) set(s service.Snapshot) {
	f.mu.Lock()
	f.snap = s
	f.mu.Unlock()
	f.notices <- struct{}{}
}

func (f *fakeRemote) Snapshot(context.Context) (service.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap, nil
}

func (f *fakeRemote) Subscribe(context.Context) (<-chan struct{}, error) { return f.notices, nil }
func (f *fakeRemote) FocusRequests(context.Context) (<-chan control.WindowRequest, error) {
	return f.focus, nil
}

func (f *fakeRemote) call(what string) error {
	f.calls <- what
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fail
}

func (f *fakeRemote) Approve(_ context.Context, name string) (service.Server, error) {
	return service.Server{Name: name}, f.call("approve " + name)
}
func (f *fakeRemote) Deny(_ context.Context, name string) (service.Server, error) {
	return service.Server{Name: name}, f.call("deny " + name)
}
func (f *fakeRemote) Enable(_ context.Context, name string) error  { return f.call("enable " + name) }
func (f *fakeRemote) Disable(_ context.Context, name string) error { return f.call("disable " + name) }
func (f *fakeRemote) Retry(_ context.Context, name string) error   { return f.call("retry " + name) }
func (f *fakeRemote) SetSecret(_ context.Context, req service.SecretRequest) error {
	return f.call("set-secret " + req.Server + " " + req.Name + "=" + req.Value)
}
func (f *fakeRemote) MoveSecrets(_ context.Context, name string) (service.MoveSecretsResult, error) {
	return service.MoveSecretsResult{Server: name, Secrets: []string{"GITHUB_TOKEN"}, Left: "/home/me/.config/Claude/claude_desktop_config.json"}, f.call("move-secrets " + name)
}
func (f *fakeRemote) ChangeSandbox(_ context.Context, c service.SandboxChange) error {
	return f.call(fmt.Sprintf("sandbox %s allow=%v %s%s%s%d", c.Server, c.Allow, c.Read, c.Write, c.Host, c.Port))
}
func (f *fakeRemote) SetSandbox(_ context.Context, name string, on bool) error {
	return f.call(fmt.Sprintf("sandbox %s on=%v", name, on))
}
func (f *fakeRemote) SignOut(_ context.Context, name string) error {
	return f.call("sign-out " + name)
}
func (f *fakeRemote) Add(_ context.Context, req service.AddRequest) (service.AddResult, error) {
	f.mu.Lock()
	f.added = append(f.added, req)
	f.mu.Unlock()
	err := f.call("add " + req.Name + " " + string(req.Entry))
	return service.AddResult{Server: service.Server{Name: req.Name, ConfigName: req.Name}}, err
}
func (f *fakeRemote) Remove(_ context.Context, name string) (service.RemoveResult, error) {
	return service.RemoveResult{}, f.call("remove " + name)
}
func (f *fakeRemote) AddFolder(_ context.Context, dir string) (service.FolderResult, error) {
	return service.FolderResult{Folder: dir}, f.call("add-folder " + dir)
}
func (f *fakeRemote) AddDemo(context.Context) (service.FolderResult, error) {
	return service.FolderResult{}, f.call("add-demo")
}
func (f *fakeRemote) RemoveFolder(_ context.Context, dir string) error {
	return f.call("remove-folder " + dir)
}
func (f *fakeRemote) Questions(context.Context) (<-chan control.Question, error) {
	return f.questions, nil
}
func (f *fakeRemote) Answer(_ context.Context, id string, res mcp.ElicitationResult) error {
	b, _ := json.Marshal(res)
	return f.call("answer " + id + " " + string(b))
}
func (f *fakeRemote) AcceptTools(_ context.Context, server string, tools []string) (service.Server, error) {
	return service.Server{Name: server}, f.call("accept " + server + " " + strings.Join(tools, " "))
}
func (f *fakeRemote) KeepHeld(_ context.Context, server string, tools []string) (service.Server, error) {
	return service.Server{Name: server}, f.call("keep " + server + " " + strings.Join(tools, " "))
}
func (f *fakeRemote) SetAcceptChanges(_ context.Context, server string, on bool) error {
	return f.call("accept-changes " + server + " " + strconv.FormatBool(on))
}
func (f *fakeRemote) LookAtTools(_ context.Context, server string) (service.Look, error) {
	return service.Look{Server: server}, f.call("look " + server)
}
func (f *fakeRemote) Apps(context.Context) ([]service.App, error) { return nil, nil }
func (f *fakeRemote) GatewayStatus(context.Context) (gateway.Status, error) {
	return gateway.Status{}, nil
}
func (f *fakeRemote) SetPermission(_ context.Context, tool string, p service.Permission) error {
	return f.call("permission " + tool + " " + string(p))
}
func (f *fakeRemote) SetHidden(_ context.Context, target string, hidden bool) error {
	return f.call("hide " + target + " " + strconv.FormatBool(hidden))
}
func (f *fakeRemote) ActivitySettings(context.Context) (service.ActivitySettings, error) {
	return service.ActivitySettings{}, nil
}
func (f *fakeRemote) LastSandboxCheck(context.Context) (*service.SandboxCheck, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.checked, nil
}
func (f *fakeRemote) CheckSandbox(context.Context) (service.SandboxCheck, error) {
	err := f.call("check the sandbox")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.checked == nil {
		return service.SandboxCheck{}, err
	}
	return *f.checked, err
}
func (f *fakeRemote) PauseAll(context.Context) error  { return f.call("pause") }
func (f *fakeRemote) ResumeAll(context.Context) error { return f.call("resume") }

// SignIn waits, like a browser sign-in, until ctx is cancelled.
func (f *fakeRemote) SignIn(ctx context.Context, name string, _ service.SignInOptions) error {
	f.calls <- "sign-in " + name
	<-ctx.Done()
	f.calls <- "sign-in ended: " + ctx.Err().Error()
	return ctx.Err()
}

// sampleSnapshot has servers in three scopes and most states.
func sampleSnapshot() service.Snapshot {
	return service.Snapshot{
		Keychain: service.Keychain{Available: true},
		Servers: []service.Server{
			{Name: "files", Scope: config.User, Transport: config.Stdio, Command: "npx", Args: []string{"-y", "@mcp/files", "/home/me/My Documents"},
				Origin: config.Origin{File: "/home/me/.config/mcptray/servers.json", App: "mcptray"}, State: service.Connected,
				Tools: []tools.Tool{{Name: "read_file", Description: "Reads a file.", Hints: tools.Hints{ReadOnly: tools.HintTrue}}}},
			{Name: "notion", Scope: config.Imported, Transport: config.HTTP, URL: "https://mcp.notion.com/mcp",
				Origin: config.Origin{File: "/home/me/.config/Claude/claude_desktop_config.json", App: "Claude Desktop"},
				State:  service.NeedsAuth, Reason: "needs you to sign in", Fix: service.Fix{Action: service.SignInAction, Label: "Sign in…"}},
			{Name: "broken", Scope: config.Imported, Transport: config.Stdio, Command: "uvx", Args: []string{"broken-mcp"},
				Origin: config.Origin{File: "/home/me/.cursor/mcp.json", App: "Cursor"}, State: service.Failed, Reason: "uvx is not installed",
				Fix:    service.Fix{Action: service.RetryAction, Label: "Retry", Hint: "Install uv from docs.astral.sh/uv, then press Retry."},
				Stderr: "sh: uvx: not found\n"},
			{Name: "notes", Scope: config.Local, Transport: config.Stdio, Command: "./bin/notes server", Args: []string{"--db", "a  b", ""},
				Cwd: "/home/me/proj", EnvNames: []string{"NOTES_TOKEN"}, Approval: config.Undecided,
				Origin: config.Origin{File: "/home/me/proj/.mcp.json", App: "project", Folder: "/home/me/proj", Line: 3, Column: 5},
				State:  service.AwaitingApproval, Reason: "waits for your approval before it runs", Fix: service.Fix{Action: service.ApproveAction, Label: "Review…"}},
		},
	}
}

// harness is a window on the test driver, following a fake backend.
type harness struct {
	t      *testing.T
	v      *window
	b      *fakeRemote
	win    fyne.Window
	events chan string
	quits  chan struct{}
}

func newHarness(t *testing.T, s service.Snapshot, opts Options) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h := &harness{t: t, b: newFakeRemote(s), win: w, events: make(chan string, 16), quits: make(chan struct{}, 4)}
	uiMu.Lock() // an earlier test's window may still be finishing its background work
	h.v = newWindow(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), a, w, h.b, opts)
	h.v.do = serialDo()
	h.v.settled = func(what string) { h.events <- what }
	h.v.quit = func() { h.quits <- struct{}{} }
	w.Resize(fyne.NewSize(900, 640))
	uiMu.Unlock()
	go h.v.follow(ctx, h.b.notices)
	go h.v.followFocus(ctx, h.b.focus)
	go h.v.followQuestions(ctx, h.b.questions)
	h.b.notices <- struct{}{} // Subscribe's first notice
	h.wait("snapshot")
	return h
}

// uiMu is the one UI thread of every window the tests make: Fyne's test
// driver shares its caches (of fonts, of renderers) among them, and a
// test's window may still finish background work (a setting read, a
// refresh) while the next test builds its own.
var uiMu sync.Mutex

// serialDo returns a do for the window that runs one UI update at a time,
// as Fyne's real event loop does; its test driver would run updates from
// two goroutines at once.
func serialDo() func(func()) {
	return func(f func()) {
		uiMu.Lock()
		defer uiMu.Unlock()
		f()
	}
}

// do runs f as the window runs its own updates, one at a time with them.
// Every tap, typing and read of a widget in a test goes through it: Fyne's
// test driver would run it on the test goroutine while the window redraws
// on another.
func (h *harness) do(f func()) { h.v.do(f) }

// tap taps w as a person would, through do.
func (h *harness) tap(w fyne.Tappable) { h.do(func() { test.Tap(w) }) }

// typeIn types text into w as a person would, through do.
func (h *harness) typeIn(w fyne.Focusable, text string) { h.do(func() { test.Type(w, text) }) }

// wait waits for the window to settle after the background work what.
func (h *harness) wait(what string) {
	h.t.Helper()
	select {
	case got := <-h.events:
		if got != what {
			h.t.Fatalf("the window finished %q, want %q", got, what)
		}
	case <-time.After(5 * time.Second):
		h.t.Fatalf("the window did not finish %q within 5s", what)
	}
}

// waitEach waits for the window to finish each of what, in any order: what
// the window reads in the background (Settings' activity section) may
// finish before or after what the test did next.
func (h *harness) waitEach(what ...string) {
	h.t.Helper()
	left := append([]string(nil), what...)
	for len(left) > 0 {
		select {
		case got := <-h.events:
			i := slices.Index(left, got)
			if i < 0 {
				h.t.Fatalf("the window finished %q, want one of %q", got, left)
			}
			left = slices.Delete(left, i, i+1)
		case <-time.After(5 * time.Second):
			h.t.Fatalf("the window did not finish %q within 5s", left)
		}
	}
}

// call waits for the backend to be asked to do something, and returns what.
func (h *harness) call() string {
	h.t.Helper()
	select {
	case c := <-h.b.calls:
		return c
	case <-time.After(5 * time.Second):
		h.t.Fatal("the backend was asked nothing within 5s")
		return ""
	}
}

// sel selects the server called name in the list, as a person would,
// through do.
func (h *harness) sel(name string) {
	h.t.Helper()
	h.do(func() {
		for i, r := range h.v.rows {
			if r.header == "" && r.server.Name == name {
				h.v.list.Select(i)
				return
			}
		}
		h.t.Fatalf("no row for %s in %v", name, h.v.rows)
	})
}

// labels returns the text of every visible label in o, in order.
func labels(o fyne.CanvasObject) []string {
	var out []string
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch x := o.(type) {
		case *widget.Label:
			out = append(out, x.Text)
			return
		case *widget.Button:
			out = append(out, "["+x.Text+"]")
			return
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
			return
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return out
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func TestWindowListsServersByScope(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	var summary string
	var got []string
	var banner bool
	h.do(func() {
		summary, got = h.v.summary.Text, labels(h.v.list)
		banner = h.v.trayBanner.Visible() || h.v.keyBox.Visible()
	})
	if want := "1 connected · 1 needs sign-in · 1 waiting for approval · 1 failed"; summary != want {
		t.Errorf("summary = %q, want %q", summary, want)
	}
	// Headers in scope order, each server under its own, with its state.
	order := []string{
		"Yours — in mcptray's config", "files", "connected",
		"Imported — from your apps", "notion", "needs sign-in",
		"broken", "failed", "uvx is not installed",
		"Local — from project folders", "notes", "waiting for approval",
	}
	last := -1
	for _, s := range order {
		i := indexOf(got, s)
		if i < 0 {
			t.Fatalf("the list does not show %q; it shows %q", s, got)
		}
		if i < last {
			t.Errorf("the list shows %q out of order: %q", s, got)
		}
		last = i
	}
	if banner {
		t.Error("a banner shows with a tray and a working keychain")
	}
	// Headers cannot be selected: the detail pane keeps its server.
	h.sel("files")
	h.do(func() {
		h.v.list.Select(0)
		if h.v.detail.server.Name != "files" || h.v.sel != "files" {
			t.Errorf("selecting a header changed the selection to %q", h.v.sel)
		}
	})
}

func TestWindowShowsDetail(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{Server: "broken"})
	d := h.v.detail
	var text string
	h.do(func() {
		if d.server.Name != "broken" {
			t.Fatalf("Options.Server did not select broken; the pane shows %q", d.server.Name)
		}
		text = strings.Join(labels(d.content), "\n")
	})
	for _, want := range []string{
		"broken", "Failed", "uvx is not installed", "Install uv from docs.astral.sh/uv, then press Retry.",
		"[Retry]", "[Turn off]", "/home/me/.cursor/mcp.json (Cursor)", "uvx broken-mcp", "sh: uvx: not found",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the detail pane lacks %q:\n%s", want, text)
		}
	}
	h.tap(d.fix)
	if c := h.call(); c != "retry broken" {
		t.Errorf("Retry asked the backend to %q", c)
	}
	h.wait("action")

	h.sel("files")
	var fixShown bool
	h.do(func() { text, fixShown = strings.Join(labels(d.content), "\n"), d.fix.Visible() })
	for _, want := range []string{`npx -y @mcp/files "/home/me/My Documents"`, "Tools (1)", "read_file", "read-only", "Reads a file."} {
		if !strings.Contains(text, want) {
			t.Errorf("the detail pane lacks %q:\n%s", want, text)
		}
	}
	if fixShown {
		t.Error("a connected server shows a fix button")
	}
	h.tap(d.turn)
	if c := h.call(); c != "disable files" {
		t.Errorf("Turn off asked the backend to %q", c)
	}
	h.wait("action")
}

func TestWindowFollowsChanges(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{Server: "files"})
	s := sampleSnapshot()
	s.Servers[0].State, s.Servers[0].Reason = service.Failed, "it exited with status 1"
	s.Servers[0].Fix = service.Fix{Action: service.RetryAction, Label: "Retry"}
	s.Servers = s.Servers[:3] // notes is gone
	h.b.set(s)
	h.wait("snapshot")

	h.do(func() {
		if got, want := h.v.summary.Text, "1 needs sign-in · 2 failed"; got != want {
			t.Errorf("summary = %q, want %q", got, want)
		}
		got := labels(h.v.list)
		if i := indexOf(got, "files"); i < 0 || got[i+1] != "failed" || got[i+2] != "it exited with status 1" {
			t.Errorf("files does not show as failed: %q", got)
		}
		if indexOf(got, "notes") >= 0 || indexOf(got, "Local — from project folders") >= 0 {
			t.Errorf("a removed server or its empty scope still shows: %q", got)
		}
		if d := h.v.detail; d.server.State != service.Failed || !d.fix.Visible() || d.fix.Text != "Retry" {
			t.Errorf("the detail pane did not follow: state %v, fix %q visible %v", d.server.State, d.fix.Text, d.fix.Visible())
		}
	})

	s.Paused = true
	h.b.set(s)
	h.wait("snapshot")
	h.do(func() {
		if h.v.summary.Text != "Paused" || h.v.pause.Text != "Resume all" {
			t.Errorf("paused: summary %q, button %q", h.v.summary.Text, h.v.pause.Text)
		}
	})
	h.b.fail = errors.New("the running mcptray is stopping")
	h.tap(h.v.pause)
	if c := h.call(); c != "resume" {
		t.Errorf("Resume all asked the backend to %q", c)
	}
	h.wait("action")
	h.do(func() {
		if h.v.pause.Disabled() || len(h.v.errs) != 1 {
			t.Errorf("after a failed Resume all: button disabled %v, errors %q", h.v.pause.Disabled(), h.v.errs)
		}
	})
}

func TestWindowApprove(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	h.sel("notes")
	var text string
	h.do(func() {
		if h.v.detail.fix.Text != "Review…" {
			t.Fatalf("notes's fix button says %q", h.v.detail.fix.Text)
		}
		test.Tap(h.v.detail.fix)
		if h.v.approveDialog == nil {
			t.Fatal("Review… opened no dialog")
		}
		top := h.win.Canvas().Overlays().Top()
		if top == nil {
			t.Fatal("the approval dialog is not showing")
		}
		text = strings.Join(labels(top), "\n")
	})
	for _, want := range []string{
		"/home/me/proj/.mcp.json:3:5",
		`"./bin/notes server" --db "a  b" ""`, // each argument exactly, quoted
		"in the folder /home/me/proj",
		"NOTES_TOKEN",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the approval dialog lacks %q:\n%s", want, text)
		}
	}
	h.tap(h.v.approveButton)
	if c := h.call(); c != "approve notes" {
		t.Errorf("Approve asked the backend to %q", c)
	}
	h.wait("action")

	h.tap(h.v.detail.fix)
	h.tap(h.v.denyButton)
	if c := h.call(); c != "deny notes" {
		t.Errorf("Deny asked the backend to %q", c)
	}
	h.wait("action")
}

func TestWindowSignIn(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	h.sel("notion")
	h.tap(h.v.detail.fix)
	if c := h.call(); c != "sign-in notion" {
		t.Fatalf("Sign in asked the backend to %q", c)
	}
	h.do(func() {
		if h.v.signInDialog == nil || h.win.Canvas().Overlays().Top() == nil {
			t.Fatal("no dialog waits for the browser")
		}
		test.Tap(h.v.signInCancel)
	})
	if c := h.call(); c != "sign-in ended: context canceled" {
		t.Errorf("Cancel did not end the sign-in: %q", c)
	}
	h.wait("sign-in")
	h.do(func() {
		if top := h.win.Canvas().Overlays().Top(); top != nil {
			t.Error("the sign-in dialog stays after Cancel")
		}
		if len(h.v.errs) != 0 {
			t.Errorf("cancelling showed an error: %q", h.v.errs)
		}
	})
}

func TestWindowShowsActionErrors(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{Server: "broken"})
	h.b.fail = errors.New("there is no server called \"broken\"")
	h.tap(h.v.detail.fix)
	h.call()
	h.wait("action")
	h.do(func() {
		if len(h.v.errs) != 1 || h.v.errs[0] != `there is no server called "broken"` {
			t.Fatalf("errors shown: %q", h.v.errs)
		}
		top := h.win.Canvas().Overlays().Top()
		if top == nil || indexOf(labels(top), `there is no server called "broken"`) < 0 {
			t.Errorf("no dialog shows the error")
		}
	})
}

func TestWindowBanners(t *testing.T) {
	s := sampleSnapshot()
	s.Keychain = service.Keychain{Problem: "no keychain service is running", Fix: "Install gnome-keyring or KeePassXC."}
	s.Problems = []config.Problem{{File: "/home/me/.cursor/mcp.json", Message: "is not valid JSON"}}
	h := newHarness(t, s, Options{TrayProblem: "no StatusNotifierWatcher on the session bus"})
	want := "The tray is not available (no StatusNotifierWatcher on the session bus), so this window is how you use mcptray; closing it quits mcptray."
	h.do(func() {
		got := labels(h.win.Canvas().Content())
		if indexOf(got, want) < 0 {
			t.Errorf("the tray banner does not show %q:\n%q", want, got)
		}
		for _, want := range []string{"Sign-ins cannot be kept: no keychain service is running", "Install gnome-keyring or KeePassXC."} {
			if indexOf(got, want) < 0 {
				t.Errorf("the keychain banner does not show %q:\n%q", want, got)
			}
		}
		if !h.v.problems.Visible() || !strings.Contains(h.v.problems.Text, "/home/me/.cursor/mcp.json") {
			t.Errorf("the config problem does not show: %q", h.v.problems.Text)
		}
	})
	s.Keychain = service.Keychain{Available: true}
	s.Problems = nil
	h.b.set(s)
	h.wait("snapshot")
	h.do(func() {
		if h.v.keyBox.Visible() || h.v.problems.Visible() {
			t.Error("a banner stays once its problem is gone")
		}
	})
}

func TestWindowFocusRequests(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{Server: "files"})
	h.b.focus <- control.WindowRequest{Server: "notes"}
	h.wait("focus")
	var approving bool
	h.do(func() {
		if h.v.sel != "notes" || h.v.detail.server.Name != "notes" {
			t.Errorf("a focus request for notes selected %q", h.v.sel)
		}
		top := h.win.Canvas().Overlays().Top()
		approving = top != nil && findButton(top, "Approve") != nil
	})
	// notes waits for approval: asked for from the tray, the window opens
	// its approval dialog at once, so approving takes two clicks.
	if !approving {
		t.Error("a focus request for a server waiting for approval does not open its approval dialog")
	} else {
		// Approved elsewhere (the command line): the dialog goes away.
		s := sampleSnapshot()
		for i := range s.Servers {
			if s.Servers[i].Name == "notes" {
				s.Servers[i].State, s.Servers[i].Fix = service.Connected, service.Fix{}
			}
		}
		h.b.set(s)
		h.wait("snapshot")
		h.do(func() {
			if top := h.win.Canvas().Overlays().Top(); top != nil && findButton(top, "Approve") != nil {
				t.Error("the approval dialog stays open after the server was approved elsewhere")
			}
		})
		h.b.set(sampleSnapshot())
		h.wait("snapshot")
	}
	// A server not yet in the Snapshot is selected once it is.
	h.b.focus <- control.WindowRequest{Server: "later"}
	h.wait("focus")
	s := sampleSnapshot()
	s.Servers = append(s.Servers, service.Server{Name: "later", Scope: config.User, State: service.Pending})
	h.b.set(s)
	h.wait("snapshot")
	h.do(func() {
		if h.v.detail.server.Name != "later" {
			t.Errorf("the pane shows %q, want the server asked for", h.v.detail.server.Name)
		}
	})
}

func TestWindowClosing(t *testing.T) {
	t.Run("with a tray", func(t *testing.T) {
		h := newHarness(t, sampleSnapshot(), Options{})
		var ok *widget.Button
		h.do(func() {
			h.v.closeRequested()
			top := h.win.Canvas().Overlays().Top()
			if top == nil || indexOf(labels(top), trayNotice) < 0 {
				t.Fatal("the first close does not say mcptray keeps running")
			}
			ok = findButton(top, "OK")
		})
		select {
		case <-h.quits:
			t.Fatal("the window quit before the person read the notice")
		default:
		}
		if ok == nil {
			t.Fatal("the notice has no OK button")
		}
		h.tap(ok)
		expectQuit(t, h)
		// The next close quits at once, without the notice.
		h.do(h.v.closeRequested)
		expectQuit(t, h)
		h.do(func() {
			if h.win.Canvas().Overlays().Top() != nil {
				t.Error("the notice showed a second time")
			}
		})
	})
	t.Run("without a tray", func(t *testing.T) {
		stopped := make(chan struct{}, 1)
		h := newHarness(t, sampleSnapshot(), Options{TrayProblem: "none", Quit: func() { stopped <- struct{}{} }})
		h.do(h.v.closeRequested)
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			t.Fatal("closing without a tray did not stop mcptray")
		}
		expectQuit(t, h)
	})
}

func TestWindowQuitsWhenServiceStops(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	close(h.b.notices)
	expectQuit(t, h)
}

func expectQuit(t *testing.T, h *harness) {
	t.Helper()
	select {
	case <-h.quits:
	case <-time.After(5 * time.Second):
		t.Fatal("the window did not quit")
	}
}

func findButton(o fyne.CanvasObject, text string) *widget.Button {
	var found *widget.Button
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Button:
			if x.Text == text {
				found = x
			}
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return found
}

// TestWindowOpensConfigFile: a server whose fix is in its config file
// offers "Open the file", which opens that file in the system's default
// app, beside the hint that says what to change; when it cannot, it says
// so.
func TestWindowOpensConfigFile(t *testing.T) {
	s := sampleSnapshot()
	s.Servers = append(s.Servers, service.Server{Name: "github", Scope: config.Imported, Transport: config.Stdio, Command: "npx",
		Origin: config.Origin{File: "/home/me/My Files/mcp.json", App: "Cursor", Line: 4, Column: 5}, State: service.Failed,
		Reason: "it needs GITHUB_TOKEN, which is not set",
		Fix: service.Fix{Action: service.EditConfigAction, Label: "Edit its config",
			Hint: "Set GITHUB_TOKEN in the env of github in /home/me/My Files/mcp.json"}})
	h := newHarness(t, s, Options{Server: "github"})
	opened := make(chan string, 2)
	var fail error
	d := h.v.detail
	h.do(func() {
		h.v.openURL = func(u *url.URL) error {
			opened <- u.String()
			return fail
		}
		if !d.fix.Visible() || d.fix.Disabled() || d.fix.Text != "Open the file" {
			t.Fatalf("the fix button: %q, shown %v, disabled %v", d.fix.Text, d.fix.Visible(), d.fix.Disabled())
		}
		if !d.hint.Visible() || d.hint.Text != s.Servers[len(s.Servers)-1].Fix.Hint {
			t.Errorf("the hint shows %q (visible %v)", d.hint.Text, d.hint.Visible())
		}
	})
	h.tap(d.fix)
	select {
	case u := <-opened:
		if u != "file:///home/me/My%20Files/mcp.json" {
			t.Errorf("opened %q", u)
		}
	default:
		t.Fatal("Open the file opened nothing")
	}
	h.do(func() {
		if len(h.v.errs) != 0 {
			t.Errorf("errors shown: %q", h.v.errs)
		}
	})

	fail = errors.New("no application knows how to open it")
	h.tap(d.fix)
	<-opened
	h.do(func() {
		if len(h.v.errs) != 1 || !strings.Contains(h.v.errs[0], "/home/me/My Files/mcp.json") {
			t.Errorf("a file that did not open: errors %q", h.v.errs)
		}
	})
}

// TestWindowAsksForSecret: a server waiting for a secret gets a hidden
// entry, and what is typed goes to the service for the keychain.
func TestWindowAsksForSecret(t *testing.T) {
	s := sampleSnapshot()
	s.Servers = append(s.Servers, service.Server{Name: "gh", Scope: config.User, State: service.Failed,
		Reason: "needs GITHUB_TOKEN", Fix: service.Fix{Action: service.SetSecretAction, Label: "Enter GITHUB_TOKEN…", Secret: "GITHUB_TOKEN"}})
	h := newHarness(t, s, Options{Server: "gh"})
	h.do(func() {
		h.v.fix(h.v.detail.server)
		if h.v.secretEntry == nil || !h.v.secretEntry.Password {
			t.Fatal("no hidden entry asks for the secret")
		}
		test.Type(h.v.secretEntry, "ghp_example")
		keep := findButton(h.win.Canvas().Overlays().Top(), "Keep it")
		if keep == nil {
			t.Fatal("the secret dialog has no Keep it button")
		}
		test.Tap(keep)
	})
	if c := h.call(); c != "set-secret gh GITHUB_TOKEN=ghp_example" {
		t.Errorf("the backend was asked to %q", c)
	}
	h.wait("action")
}
