//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
)

// TestGatewayStdio runs the gateway as apps use it: two apps each start
// mcptray stdio, the first of them starts mcptray in the background, and
// both (and an app on the HTTP face) call one stdio server, which runs
// once. Stopping mcptray leaves no server behind.
func TestGatewayStdio(t *testing.T) {
	t.Parallel()
	h := newStdioHome(t)
	mcptray, testServer, env, paths, serveLog := h.mcptray, h.testServer, h.env, h.paths, h.serveLog
	h.do("add", "a", "--", testServer, "-name", "a")

	apps := []*stdioApp{startStdio(t, mcptray, env), startStdio(t, mcptray, env)}
	var pids []string
	for i, app := range apps {
		init := app.request(t, 1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"app`+strconv.Itoa(i)+`","version":"1"}}`)
		if !strings.Contains(string(init), `"serverInfo":{"name":"mcptray"`) {
			t.Fatalf("app %d: initialize answered %s\n%s", i, init, serveLog())
		}
		app.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		pids = append(pids, toolText(t, app.waitCall(t, "mcp__a__started", serveLog)))
	}
	servers := running(testServer)
	if len(servers) != 1 || pids[0] != pids[1] || pids[0] != servers[0].start {
		t.Fatalf("two apps through mcptray stdio were answered by processes started at %q; test servers running: %+v (want exactly one)\n%s", pids, servers, serveLog())
	}
	app := apps[0]
	schema := app.request(t, 3, "tools/list", `{}`)
	if !bytes.Contains(schema, []byte(`"name":"mcp__a__echo"`)) {
		t.Errorf("tools/list through mcptray stdio lacks mcp__a__echo: %s", schema)
	}

	cl, err := control.Dial(context.Background(), paths)
	if err != nil {
		t.Fatalf("reaching the mcptray that stdio started: %v\n%s", err, serveLog())
	}
	h.servePID = cl.PID
	cl.Close()

	// An app on the HTTP face reaches the same server process.
	gatewayJSON := func(args ...string) (info struct {
		Running bool
		URL     string
		Token   string
		Problem string
	}) {
		cmd := exec.Command(mcptray, append([]string{"gateway", "--json"}, args...)...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil {
			err = json.Unmarshal(out, &info)
		}
		if err != nil || !info.Running || info.URL == "" && info.Problem == "" {
			t.Fatalf("mcptray gateway --json %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return info
	}
	if info := gatewayJSON(); info.Token != "" {
		t.Errorf("mcptray gateway printed the token without --show-token")
	} else if info.Problem != "" {
		t.Logf("no HTTP face to try (scripts/test.sh gives the tests a keychain): %s", info.Problem)
	} else {
		info = gatewayJSON("--show-token")
		if got := httpCall(t, info.URL, info.Token, "mcp__a__started"); got != pids[0] {
			t.Errorf("the HTTP face was answered by process %s, want the one server %s", got, pids[0])
		}
	}

	// The apps go away: each mcptray stdio ends when its stdin does.
	for i, app := range apps {
		app.stdin.Close()
		if err := app.wait(); err != nil {
			t.Errorf("mcptray stdio of app %d after its stdin closed: %v\nstderr: %s", i, err, app.stderr)
		}
	}
	if got := running(testServer); len(got) != 1 {
		t.Errorf("after the apps went away %d test servers run, want the one mcptray keeps: %+v", len(got), got)
	}

	// Stopping mcptray stops the server.
	if err := syscall.Kill(h.servePID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitNone(t, testServer, servers)
	h.servePID = 0
}

// waitNone waits until none of procs, and no other process of bin, runs.
func waitNone(t *testing.T, bin string, procs []proc) {
	t.Helper()
	// There is no event for another process's end: look at /proc.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(serveDeadline)
	for {
		left := append(running(bin), procs...)
		alive := left[:0]
		for _, p := range left {
			if p.alive() {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%v after mcptray was stopped, test servers still run: %+v", serveDeadline, alive)
		}
	}
}

// stdioHome is a person's home for the gateway's end-to-end tests:
// mcptray and its own copy of the test server (the tests count that
// program's processes), the environment every mcptray they start gets,
// its paths and the log of the mcptray serve that mcptray stdio starts.
// Whatever that mcptray and its servers leave running is killed when the
// test ends.
type stdioHome struct {
	t                   *testing.T
	mcptray, testServer string
	env                 []string
	paths               config.Paths
	logFile             string
	servePID            int // the mcptray stdio started, once a test learned it
}

func newStdioHome(t *testing.T) *stdioHome {
	t.Helper()
	h := &stdioHome{t: t, mcptray: Binary(t), testServer: Own(t, TestServer(t))}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"HOME=" + home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + run,
		// The test suite's throwaway keyring (scripts/test.sh), if any,
		// keeps the HTTP face's token.
		"DBUS_SESSION_BUS_ADDRESS=" + os.Getenv("DBUS_SESSION_BUS_ADDRESS"),
		// No desktop: the mcptray that stdio starts is mcptray serve,
		// not a tray on the person's desktop that the user manager
		// (on their session bus, when go test runs without
		// scripts/test.sh) names.
		"DISPLAY=", "WAYLAND_DISPLAY="}
	h.logFile = filepath.Join(home, ".cache", "mcptray", "serve.log")
	var err error
	h.paths, err = config.NewPaths("linux", func(k string) (string, bool) {
		for _, kv := range h.env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v, true
			}
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if h.servePID != 0 {
			syscall.Kill(h.servePID, syscall.SIGKILL)
		}
		for _, pid := range h.serves() { // a second one, which a test failed to see
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, p := range running(h.testServer) {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	})
	return h
}

// do runs mcptray with args in the home and fails the test if it fails.
func (h *stdioHome) do(args ...string) {
	h.t.Helper()
	cmd := exec.Command(h.mcptray, args...)
	cmd.Env = h.env
	if out, err := cmd.CombinedOutput(); err != nil {
		h.t.Fatalf("mcptray %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// serveLog is the log of the mcptray serve that mcptray stdio started,
// for failure messages.
func (h *stdioHome) serveLog() string {
	b, _ := os.ReadFile(h.logFile)
	return "mcptray serve's log:\n" + string(b)
}

// stdioApp is one app that runs mcptray stdio.
type stdioApp struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	done   chan error
}

func startStdio(t *testing.T, mcptray string, env []string) *stdioApp {
	t.Helper()
	cmd := exec.Command(mcptray, "stdio")
	cmd.Env = env
	return startAppCmd(t, cmd)
}

// startAppCmd starts cmd, an mcptray stdio as an app starts it, with its
// stdin and stdout the app's.
func startAppCmd(t *testing.T, cmd *exec.Cmd) *stdioApp {
	t.Helper()
	a := &stdioApp{cmd: cmd, lines: make(chan []byte, 100), stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	a.cmd.Stderr = a.stderr
	var err error
	if a.stdin, err = a.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			a.lines <- bytes.Clone(sc.Bytes())
		}
		close(a.lines)
		a.done <- a.cmd.Wait()
	}()
	t.Cleanup(func() {
		a.stdin.Close()
		a.cmd.Process.Kill()
	})
	return a
}

func (a *stdioApp) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(a.stdin, line+"\n"); err != nil {
		t.Fatalf("writing to mcptray stdio: %v", err)
	}
}

// request sends a request and returns its answer's result, skipping other
// messages.
func (a *stdioApp) request(t *testing.T, id int, method, params string) json.RawMessage {
	t.Helper()
	a.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	timer := time.NewTimer(serveDeadline)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				t.Fatalf("mcptray stdio ended before answering %s\nstderr: %s", method, a.stderr)
			}
			var m struct {
				ID     json.RawMessage
				Result json.RawMessage
				Error  json.RawMessage
			}
			if json.Unmarshal(line, &m) != nil || string(m.ID) != strconv.Itoa(id) {
				continue
			}
			if m.Error != nil {
				return m.Error
			}
			return m.Result
		case <-timer.C:
			t.Fatalf("mcptray stdio did not answer %s within %s\nstderr: %s", method, serveDeadline, a.stderr)
		}
	}
}

// waitCall calls a tool until the server is connected (it starts with
// mcptray) and returns the result.
func (a *stdioApp) waitCall(t *testing.T, tool string, log func() string) json.RawMessage {
	t.Helper()
	// The gateway lists the tool once the server is connected; ask again
	// when it says the list changed.
	deadline := time.Now().Add(serveDeadline)
	for id := 100; ; id++ {
		res := a.request(t, id, "tools/call", `{"name":"`+tool+`","arguments":{}}`)
		if !bytes.Contains(res, []byte("not found")) {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became callable: %s\n%s", tool, res, log())
		}
		a.waitListChanged(t, deadline)
	}
}

// waitListChanged waits for notifications/tools/list_changed.
func (a *stdioApp) waitListChanged(t *testing.T, deadline time.Time) {
	t.Helper()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				t.Fatalf("mcptray stdio ended\nstderr: %s", a.stderr)
			}
			if bytes.Contains(line, []byte(`"notifications/tools/list_changed"`)) {
				return
			}
		case <-timer.C:
			t.Fatal("no tools/list_changed came")
		}
	}
}

func (a *stdioApp) wait() error {
	select {
	case err := <-a.done:
		return err
	case <-time.After(stopDeadline):
		return fmt.Errorf("still running %s after its stdin closed", stopDeadline)
	}
}

// toolText is the text of a tools/call result.
func toolText(t *testing.T, res json.RawMessage) string {
	t.Helper()
	var r struct {
		Content []struct{ Text string }
		IsError bool
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 || r.IsError {
		t.Fatalf("tools/call answered %s", res)
	}
	return r.Content[0].Text
}

// httpCall calls a tool on the HTTP face with the token and returns its text.
func httpCall(t *testing.T, url, token, tool string) string {
	t.Helper()
	post := func(session, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, b := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"http-app","version":"1"}}}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize on the HTTP face: %s\n%s", resp.Status, b)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp, b = post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`)
	if i := bytes.Index(b, []byte("data: ")); i >= 0 {
		b = bytes.TrimSpace(b[i+len("data: "):])
	}
	var m struct{ Result json.RawMessage }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &m) != nil {
		t.Fatalf("tools/call on the HTTP face: %s\n%s", resp.Status, b)
	}
	return toolText(t, m.Result)
}

// lookup is the value of an environment variable of the home's apps.
func (h *stdioHome) lookup(key string) (string, bool) {
	for _, kv := range h.env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// serves are the process ids of the mcptray serve processes running for
// this home: a second would be a second mcptray, left behind.
func (h *stdioHome) serves() []int {
	home, _ := h.lookup("HOME")
	var out []int
	for _, p := range running(h.mcptray) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
		environ, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.pid))
		if slices.Contains(strings.Split(string(cmdline), "\x00"), "serve") && slices.Contains(strings.Split(string(environ), "\x00"), "HOME="+home) {
			out = append(out, p.pid)
		}
	}
	return out
}
