package control

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
)

// guardRig is a real service behind a real endpoint on its socket, with
// a local server "probe" (never started) and the activity record open.
type guardRig struct {
	paths config.Paths
	svc   *service.Service
	log   *activity.Log
}

func newGuardRig(t *testing.T, stream StreamFunc) *guardRig {
	t.Helper()
	p := testPaths(t)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"probe": map[string]any{"command": "probe-server"}}})
	if err := os.MkdirAll(p.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.UserFile(), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l, err := activity.Open(ctx, activity.Options{Path: p.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Paths: p, Store: secrettest.New(), Only: []string{}, Record: l})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := &Endpoint{API: svc, Stream: stream}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		ln.Close()
		svc.Close()
		l.Close()
	})
	return &guardRig{paths: p, svc: svc, log: l}
}

// answer is a raw answer of the endpoint.
type answer struct {
	Status  int    `json:"status"`
	Refused string `json:"refused"`
	Body    string `json:"body"`
}

// rawRequest sends one request over the socket at socket, as any program
// of the person's could, with key ("" for none) and client as its headers.
func rawRequest(socket, key, client, method, path, body string) (answer, error) {
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return dialSocket(ctx, socket)
	}}}
	defer hc.CloseIdleConnections()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://mcptray"+path, rd)
	if err != nil {
		return answer{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if client != "" {
		req.Header.Set(clientHeader, client)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{Status: resp.StatusCode, Refused: resp.Header.Get(refusedHeader), Body: string(b)}, nil
}

// trustRoutes are what a hostile server used: its sandbox off, its own
// held tool change accepted, the gateway's token, an approval; and a
// grant of folders and hosts.
var trustRoutes = []struct{ method, path, body string }{
	{"POST", "/v1/sandbox/switch", `{"name":"probe","on":false}`},
	{"POST", "/v1/sandbox/change", `{"server":"probe","allow":true,"read":"/"}`},
	{"POST", "/v1/pins/accept", `{"name":"probe"}`},
	{"GET", "/v1/gateway/token", ""},
	{"POST", "/v1/approve", `{"name":"probe"}`},
	{"POST", "/v1/answer", `{"id":"1","result":{"action":"accept"}}`},
	{"POST", "/v1/gateway/permission", `{"tool":"mcp__probe__x","permission":"allow"}`},
	{"POST", "/v1/quit", `{}`},
	// A hostile server switching the flow guard off, installing a bundle
	// it wrote, or putting its install dialog in front of the person.
	{"POST", "/v1/gateway/guard/mode", `{"mode":"off"}`},
	{"POST", "/v1/gateway/guard/labels", `{"tool":"mcp__probe__x","reset":true}`},
	{"POST", "/v1/install-bundle", `{"file":"/tmp/hostile.mcpb"}`},
	{"POST", "/v1/window", `{"bundle":"/tmp/hostile.mcpb"}`},
}

// TestGuard: without the control key, or with a wrong one, every trust
// route is refused in plain words and nothing changes; with the key the
// same requests are served. The liveness probe and an app's stream need
// no key, and the stream, once open, reaches no route.
func TestGuard(t *testing.T) {
	t.Parallel()
	echoed := make(chan string, 1)
	r := newGuardRig(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		line, err := bufio.NewReader(in).ReadString('\n')
		echoed <- line
		if err != nil {
			return err
		}
		_, err = io.WriteString(out, line)
		return err
	})
	socket := SocketPath(r.paths)
	key, err := readKey(r.paths)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(KeyPath(r.paths)); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the key file: %v, %v; want mode 0600", fi, err)
	}
	wrong := strings.Repeat("0", len(key))
	for _, k := range []string{"", wrong, key[:len(key)-1], "Basic " + key} {
		for _, rt := range trustRoutes {
			a, err := rawRequest(socket, k, CommandLine, rt.method, rt.path, rt.body)
			if err != nil {
				t.Fatal(err)
			}
			if a.Status != http.StatusForbidden || a.Refused != refusedKey || !strings.Contains(a.Body, notOurs) {
				t.Errorf("%s %s with key %q = %+v, want refused in plain words", rt.method, rt.path, k, a)
			}
		}
	}
	// Nothing of that changed anything.
	sb, err := r.svc.SandboxOf(t.Context(), "probe")
	if err != nil {
		t.Fatal(err)
	}
	if sb.Off {
		t.Error("a request without the key turned probe's sandbox off")
	}

	// The open routes, without a key.
	if a, err := rawRequest(socket, "", "", "GET", "/v1/hello", ""); err != nil || a.Status != http.StatusOK || !strings.Contains(a.Body, `"pid"`) {
		t.Errorf("hello without a key = %+v, %v", a, err)
	}
	st, err := OpenStream(t.Context(), r.paths, nil, nil)
	if err != nil {
		t.Fatalf("an app's stream without a key: %v", err)
	}
	// What is written on the stream is the session's, never a request
	// the endpoint routes.
	req := "GET /v1/gateway/token HTTP/1.1\r\n"
	if _, err := io.WriteString(st, req); err != nil {
		t.Fatal(err)
	}
	if got := Within(t, echoed, "the stream's first line"); got != req {
		t.Errorf("the stream read %q", got)
	}
	back, err := bufio.NewReader(st).ReadString('\n')
	if err != nil || back != req {
		t.Errorf("the stream answered %q (%v), want its own echo", back, err)
	}
	st.Close()

	// With the key, the person's own tools are served.
	for _, rt := range trustRoutes[:5] {
		a, err := rawRequest(socket, key, CommandLine, rt.method, rt.path, rt.body)
		if err != nil {
			t.Fatal(err)
		}
		if a.Refused != "" || a.Status == http.StatusForbidden && strings.Contains(a.Body, notOurs) {
			t.Errorf("%s %s with the key = %+v, want it served", rt.method, rt.path, a)
		}
	}
	if a, _ := rawRequest(socket, key, "", "GET", "/v1/gateway/token", ""); a.Status != http.StatusOK || !strings.Contains(a.Body, `"token":"`) {
		t.Errorf("the token with the key = %+v", a)
	}
	if sb, err := r.svc.SandboxOf(t.Context(), "probe"); err != nil || !sb.Off {
		t.Errorf("probe's sandbox after the command line turned it off: off=%v, %v", sb.Off, err)
	}

	// The Client reads the key itself; one that cannot read it is
	// refused with a RefusedError that says where the key is.
	cl, err := DialAs(t.Context(), r.paths, CommandLine)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.GatewayToken(t.Context()); err != nil {
		t.Errorf("GatewayToken with the key: %v", err)
	}
	cl.key, cl.noKey = "", "open "+KeyPath(r.paths)+": permission denied"
	_, err = cl.GatewayToken(t.Context())
	var refused *RefusedError
	if !errors.Is(err, ErrNotTrusted) || !errors.As(err, &refused) || refused.Sandboxed || refused.KeyPath != KeyPath(r.paths) || refused.NoKey == "" {
		t.Errorf("GatewayToken without the key = %#v, want a RefusedError", err)
	}
	if _, err := cl.Questions(t.Context()); !errors.Is(err, ErrNotTrusted) {
		t.Errorf("following the questions without the key = %v, want ErrNotTrusted", err)
	}
}

// TestKeyFile: each start writes a new key, which the next start replaces
// and Close removes.
func TestKeyFile(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	first, err := readKey(p)
	if err != nil || first != string(ln.key) {
		t.Fatalf("the key file holds %q (%v), the listener %q", first, err, ln.key)
	}
	ln.Close()
	if _, err := os.Stat(KeyPath(p)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the key file after Close: %v, want it gone", err)
	}
	// A key a killed mcptray left is replaced.
	if err := os.WriteFile(KeyPath(p), []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err = Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	second, err := readKey(p)
	if err != nil || second == first || second != string(ln.key) {
		t.Errorf("the second start's key %q (%v), the first's %q", second, err, first)
	}
	if left, _ := filepath.Glob(filepath.Join(p.ControlDir(), ".control.key-*")); len(left) > 0 {
		t.Errorf("temporary key files left: %v", left)
	}
}

// TestRecordNamesWho: the activity record says which tool made each
// decision: the window, the command line, or a program that says
// neither, with its program and pid where the system tells them.
func TestRecordNamesWho(t *testing.T) {
	t.Parallel()
	r := newGuardRig(t, nil)
	ctx := t.Context()
	for _, c := range []struct{ client, perm string }{{Window, "allow"}, {CommandLine, "block"}, {"", "ask"}} {
		cl, err := DialAs(ctx, r.paths, c.client)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.SetPermission(ctx, "mcp__probe__"+c.perm, config.Permission(c.perm)); err != nil {
			t.Fatal(err)
		}
		cl.Close()
	}
	if err := r.log.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := r.log.Query(ctx, activity.Filter{Kind: activity.KindTrust, Oldest: true})
	if err != nil || len(rows) != 3 {
		t.Fatalf("trust rows: %+v, %v", rows, err)
	}
	exe, _ := os.Executable()
	me := ""
	switch runtime.GOOS {
	case "linux":
		me = fmt.Sprintf(" (%s, pid %d)", filepath.Base(exe), os.Getpid())
	case "darwin":
		me = fmt.Sprintf(" (%s, pid %d)", unixName(filepath.Base(exe)), os.Getpid())
	}
	want := []string{
		"the window" + me + " set mcp__probe__allow to allow",
		"the command line" + me + " set mcp__probe__block to block",
		"a program" + me + " set mcp__probe__ask to ask",
	}
	for i, e := range rows {
		if got := e.TrustWords(); got != want[i] {
			t.Errorf("row %d says\n %q\nwant\n %q", i, got, want[i])
		}
	}
	if runtime.GOOS == "linux" && Self(CommandLine) != "the command line"+me {
		t.Errorf("Self(CommandLine) = %q, want %q", Self(CommandLine), "the command line"+me)
	}
}

// unixName is a program's name as macOS's kernel keeps it: 16 bytes.
func unixName(s string) string {
	b := []byte(s)
	return string(bytes.TrimRight(b[:min(len(b), 16)], "\x00"))
}

// TestEveryRouteNeedsTheKey: every route of the table but the open ones,
// those added later too, refuses a program without the control key, and
// says nothing of the data behind it: a hostile server that reached the
// socket cannot read the activity record (the apps' calls and the
// person's decisions, arguments masked or not) through the road the
// window reads it by. With the key, the record's rows come back.
func TestEveryRouteNeedsTheKey(t *testing.T) {
	t.Parallel()
	r := newGuardRig(t, nil)
	r.log.RecordCall(activity.Call{Time: time.Now(), App: "Claude Code", Face: "stdio", Server: "probe", Tool: "secret-notes",
		Outcome: activity.Answered, Arguments: json.RawMessage(`{"path":"/home/me/diary.md"}`)})
	if err := r.log.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	socket := SocketPath(r.paths)
	guarded := 0
	// Open on purpose, and nothing else (guard.go says why): a route
	// added to openRoutes fails here until this test says so too.
	open := map[string]bool{"GET /v1/hello": true, "POST " + streamPath: true}
	for _, rt := range (&Endpoint{API: &recorder{}}).routes() { // the table, not its answers
		if open[rt.pattern] {
			continue
		}
		guarded++
		method, path, _ := strings.Cut(rt.pattern, " ")
		a, err := rawRequest(socket, "", CommandLine, method, path, `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != http.StatusForbidden || a.Refused != refusedKey || strings.Contains(a.Body, "secret-notes") {
			t.Errorf("%s without the key = %+v, want refused", rt.pattern, a)
		}
	}
	if guarded < 40 {
		t.Fatalf("only %d guarded routes in the table; the test no longer looks where they are", guarded)
	}

	key, err := readKey(r.paths)
	if err != nil {
		t.Fatal(err)
	}
	a, err := rawRequest(socket, key, CommandLine, "POST", "/v1/activity/rows", `{}`)
	if err != nil || a.Status != http.StatusOK || !strings.Contains(a.Body, `"tool":"secret-notes"`) {
		t.Errorf("the record's rows with the key = %+v, %v", a, err)
	}
}
