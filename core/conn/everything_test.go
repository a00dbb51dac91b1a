//go:build unix

package conn

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
)

// These tests run the connection manager against the official reference
// server, @modelcontextprotocol/server-everything, which make deps installs
// in test/peers. It speaks stdio (the default), "sse" (GET /sse, POST
// /message) and "streamableHttp" (/mcp), on the port in PORT.

// everything returns the node to run server-everything with and its entry
// point. Without test/peers the test is skipped, or fails under CI, where
// make deps must have run.
func everything(t *testing.T) (node, main string) {
	t.Helper()
	peers, err := filepath.Abs(filepath.Join("..", "..", "test", "peers", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	main = filepath.Join(peers, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(main); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("the reference server is not installed (make deps installs it): %v", err)
		}
		t.Fatalf("run make deps: %v", err)
	}
	// It runs on Node 20, the node people have; test/peers brings Node 22
	// for the conformance suite, good enough when there is no other.
	if node, err = exec.LookPath("node"); err != nil {
		node = filepath.Join(peers, ".bin", "node")
	}
	return node, main
}

// TestEverything connects to the reference server over every transport it
// has, lists its tools, and calls those that return text, structured
// content and an image, and those that ask mcptray for its roots and for
// information (server-to-client requests).
func TestEverything(t *testing.T) {
	t.Parallel()
	node, main := everything(t)
	for _, tc := range []struct {
		name  string
		entry func(t *testing.T, mark string) config.Entry
		// noServerRequests says why the server's requests to mcptray
		// cannot be answered over this transport.
		noServerRequests string
	}{
		{name: "stdio", entry: func(t *testing.T, mark string) config.Entry {
			s := config.Server{Name: "everything", ConfigName: "everything", Scope: config.User, Transport: config.Stdio,
				Command: node, Args: []string{main, "stdio"}, Env: map[string]string{markVar: mark}}
			return config.Entry{Server: s, Signature: config.Signature(&s), ApprovalKey: config.ApprovalKey(&s), Approval: config.NotNeeded}
		}},
		{name: "sse", entry: func(t *testing.T, mark string) config.Entry {
			return remoteEntry("everything", serveEverything(t, node, main, "sse", mark)+"/sse", config.SSE)
		}, noServerRequests: sseCannotAnswer},
		{name: "streamable http", entry: func(t *testing.T, mark string) config.Entry {
			return remoteEntry("everything", serveEverything(t, node, main, "streamableHttp", mark)+"/mcp", config.HTTP)
		}},
		// People write "type": "http" for old SSE servers too: the POST of
		// initialize to /sse gets 404 and mcptray falls back to SSE.
		{name: "sse configured as http", entry: func(t *testing.T, mark string) config.Entry {
			return remoteEntry("everything", serveEverything(t, node, main, "sse", mark)+"/sse", config.HTTP)
		}, noServerRequests: sseCannotAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mark := fmt.Sprintf("%s-%d-%d", t.Name(), os.Getpid(), time.Now().UnixNano())
			// Registered first, so that it runs last: after the manager
			// has closed and the server has been stopped.
			t.Cleanup(func() { checkNoProcessLeft(t, mark) })
			e := tc.entry(t, mark)
			e.Origin.Folder = t.TempDir()
			m := newTestManager(t, testOptions())
			if err := m.Apply(setOf(e)); err != nil {
				t.Fatal(err)
			}
			info := waitState(t, m, "everything", Connected)
			for _, name := range []string{"echo", "get-sum", "get-structured-content", "get-tiny-image"} {
				if !hasTool(info, name) {
					t.Errorf("no tool %q among %d", name, len(info.Tools))
				}
			}
			call := func(t *testing.T, tool, args string) *mcp.CallToolResult {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				defer cancel()
				res, err := m.CallTool(ctx, "everything", tool, json.RawMessage(args))
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				if res.IsError {
					t.Fatalf("%s reported an error: %s", tool, text(t, res))
				}
				return res
			}

			if got := text(t, call(t, "echo", `{"message":"hello from mcptray"}`)); got != "Echo: hello from mcptray" {
				t.Errorf("echo = %q", got)
			}
			if got := text(t, call(t, "get-sum", `{"a":2,"b":40}`)); !strings.Contains(got, "is 42") {
				t.Errorf("get-sum = %q", got)
			}

			res := call(t, "get-structured-content", `{"location":"Chicago"}`)
			var weather struct {
				Temperature *float64 `json:"temperature"`
				Conditions  string   `json:"conditions"`
			}
			if raw, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(raw, &weather) != nil ||
				weather.Temperature == nil || *weather.Temperature != 36 || weather.Conditions == "" {
				t.Errorf("get-structured-content: structured content %#v", res.StructuredContent)
			}

			images := 0
			for _, c := range call(t, "get-tiny-image", "").Content {
				img, ok := c.(mcp.ImageContent)
				if !ok {
					continue
				}
				images++
				png, err := base64.StdEncoding.DecodeString(img.Data)
				if img.MIMEType != "image/png" || err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
					t.Errorf("get-tiny-image: an image of type %q that is not a PNG (%v)", img.MIMEType, err)
				}
			}
			if images != 1 {
				t.Errorf("get-tiny-image returned %d images", images)
			}

			t.Run("server requests", func(t *testing.T) {
				if tc.noServerRequests != "" {
					t.Skip(tc.noServerRequests)
				}
				// The server adds these tools once initialized, when the
				// client has roots and elicitation: mcptray must follow
				// tools/list_changed.
				waitFor(t, m, "everything", "the tools added after initialize", func(i ServerInfo) bool {
					return hasTool(i, "get-roots-list") && hasTool(i, "trigger-elicitation-request")
				})
				if got := text(t, call(t, "get-roots-list", "")); !strings.Contains(got, "file://"+e.Origin.Folder) {
					t.Errorf("get-roots-list = %q, want the server's folder %s", got, e.Origin.Folder)
				}
				// Nobody is asked in a test: the schema's defaults are accepted.
				if got := text(t, call(t, "trigger-elicitation-request", "")); !strings.Contains(got, "Favorite Integer: 42") {
					t.Errorf("trigger-elicitation-request = %q, want the schema's defaults", got)
				}
			})
		})
	}
}

// sseCannotAnswer: mcp-go's SSE client transport takes no requests from the
// server, so mcptray does not announce roots or elicitation over SSE, and
// the server does not offer the tools that would need them.
const sseCannotAnswer = "over SSE mcptray cannot answer a server's requests (mcp-go's SSE client is one-way), so it does not offer to"

// markVar carries a mark unique to one test into the environment of every
// server process it starts, so that processes left behind can be found.
const markVar = "MCPTRAY_TEST_MARK"

// serveEverything runs server-everything over transport ("sse" or
// "streamableHttp") on a free port until the test ends, and returns its
// base URL on the loopback address.
//
// The server has no setting for the address it listens on: it listens on
// every interface. Its get-env tool hands its whole environment to anyone
// who connects, so it gets nothing but PATH and PORT (and the mark).
func serveEverything(t *testing.T, node, main, transport, mark string) string {
	t.Helper()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, main, transport)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PORT=" + port, markVar + "=" + mark}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, killed whole: nothing it starts outlives it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting server-everything: %v", err)
	}
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cancel()
		<-exited
		if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server-everything's process group %d is still there after it was killed (%v)", pgid, err)
		}
		if t.Failed() {
			t.Logf("server-everything %s printed:\n%s", transport, out)
		}
	})

	// It says it is listening even when it is not (Express 5 passes the
	// listen error to that callback), so knock until the port answers.
	addr := net.JoinHostPort("127.0.0.1", port)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timeout := time.NewTimer(deadline)
	defer timeout.Stop()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		select {
		case <-exited:
			t.Fatalf("server-everything %s exited before it listened on %s (%v):\n%s", transport, addr, waitErr, out)
		case <-timeout.C:
			t.Fatalf("server-everything %s did not listen on %s within %v: %v\n%s", transport, addr, deadline, err, out)
		case <-tick.C:
		}
	}
}

// freePort returns a port that was free on the loopback address a moment
// ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// checkNoProcessLeft fails the test if a process whose environment holds
// mark is still running. It reads /proc, and checks nothing where there is
// none.
func checkNoProcessLeft(t *testing.T, mark string) {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	want := []byte(markVar + "=" + mark)
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		// Unreadable for other people's processes, and empty for
		// zombies: neither is ours.
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !slices.ContainsFunc(bytes.Split(env, []byte{0}), func(v []byte) bool { return bytes.Equal(v, want) }) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		t.Errorf("process %d (%s) is still running after the test", pid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '}))
	}
}

// syncBuffer collects a child's output, written from exec's copying
// goroutines and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
