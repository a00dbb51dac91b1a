package transport

import (
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/sandbox"
)

// stdioChildVar makes the test binary act as a stdio server's process
// instead of running tests; its value says which behaviour.
const stdioChildVar = "MCPTRAY_STDIO_CHILD"

// floodBytes is how much the "flood" child writes to stderr.
const floodBytes = 50 << 20

const floodEnd = "END-OF-FLOOD\n"

// An init function, not TestMain: the child must act before any test
// machinery, and other tests in this package are free to have a TestMain.
func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.LauncherArg { // sandbox_linux_test.go's launcher
		os.Exit(sandbox.Launch(os.Args[2:], os.Stderr))
	}
	if mode := os.Getenv(stdioChildVar); mode != "" {
		os.Exit(runStdioChild(mode))
	}
}

// runStdioChild is the test binary as a child:
//
//	mcp        an MCP server on stdio with tools echo, crash (exits 3 mid-call),
//	           spawn (starts a grandchild that sleeps, holding stdout and
//	           stderr too, and answers its pid) and roots (asks the client)
//	ignoreterm the same server, ignoring SIGTERM and, after stdin closes, living on
//	burst      a bare server whose tools/call answer comes in one write with
//	           three progress notifications before it (stdio_replies_test.go)
//	flood      floodBytes to stderr, then floodEnd, then exit 0
//	bigline    a line of MaxMessageSize+1 bytes to stdout, unended, then sleep
//	sleep      sleep for an hour
//	parent     start a "sleep" child through Stdio, print its pid, sleep for an hour
func runStdioChild(mode string) int {
	switch mode {
	case "mcp":
		serveStdioChild()
	case "ignoreterm":
		signal.Ignore(syscall.SIGTERM)
		serveStdioChild()
		time.Sleep(time.Hour)
	case "flood":
		chunk := []byte(strings.Repeat(strings.Repeat("x", 1023)+"\n", 1024))
		for n := 0; n < floodBytes; n += len(chunk) {
			os.Stderr.Write(chunk)
		}
		os.Stderr.WriteString(floodEnd)
	case "bigline":
		os.Stdout.WriteString(strings.Repeat("x", MaxMessageSize+1))
		time.Sleep(time.Hour)
	case "burst":
		serveBurst()
	case "sleep":
		time.Sleep(time.Hour)
	case "parent":
		exe, err := os.Executable()
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		cfg := StdioConfig{Command: exe, Env: map[string]string{stdioChildVar: "sleep"}, BaseEnv: os.Environ()}
		if os.Getenv(sandboxedVar) != "" {
			cfg.Sandbox = testSandbox(exe, os.Getenv(sandboxedVar) == "namespaces")
		}
		s, err := NewStdio(cfg)
		if err == nil {
			err = s.Start(context.Background())
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		os.Stdout.WriteString(strconv.Itoa(s.Pid()) + "\n")
		time.Sleep(time.Hour)
	default:
		os.Stderr.WriteString("unknown child mode " + mode + "\n")
		return 2
	}
	return 0
}

func serveStdioChild() {
	s := server.NewMCPServer("child", "1.0.0", server.WithToolCapabilities(false), server.WithRoots())
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("crash"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		os.Stderr.WriteString("about to crash\n")
		os.Exit(3)
		return nil, nil
	})
	s.AddTool(mcp.NewTool("spawn"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		exe, err := os.Executable()
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), stdioChildVar+"=sleep")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr // as a real server's helper holds them
		if err := cmd.Start(); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(strconv.Itoa(cmd.Process.Pid)), nil
	})
	s.AddTool(mcp.NewTool("roots"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := s.RequestRoots(ctx, mcp.ListRootsRequest{})
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if len(res.Roots) == 0 {
			return mcp.NewToolResultError("no roots"), nil
		}
		return mcp.NewToolResultText(res.Roots[0].URI), nil
	})
	ss := server.NewStdioServer(s)
	ss.SetErrorLogger(log.New(io.Discard, "", 0))
	_ = ss.Listen(context.Background(), os.Stdin, os.Stdout)
}

// newStdioChild returns a transport that runs the test binary as a child in
// mode, closed when the test ends. edit may change the config first.
func newStdioChild(t *testing.T, mode string, edit func(*StdioConfig)) *Stdio {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := StdioConfig{
		Command: exe,
		Env: map[string]string{
			stdioChildVar: mode,
			// A race-enabled program sleeps a second on exit by default,
			// which would look like a server ignoring its closed stdin.
			"GORACE": strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0"),
		},
		BaseEnv: os.Environ(), // the login shell has its own test
		Grace:   time.Second,
		Logger:  slog.New(slog.DiscardHandler),
	}
	if edit != nil {
		edit(&cfg)
	}
	s, err := NewStdio(cfg)
	if err != nil {
		t.Fatalf("NewStdio: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// stdioTestCtx bounds a test, so that a bug fails it instead of hanging it.
func stdioTestCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connectStdio starts an mcp-go client on s with life as the child's life,
// and initializes it.
func connectStdio(t *testing.T, life context.Context, s *Stdio, opts ...client.ClientOption) *client.Client {
	t.Helper()
	opts = append([]client.ClientOption{client.WithProtocolVersion(testProtocol)}, opts...)
	c := client.NewClient(s, opts...)
	if err := c.Start(life); err != nil {
		t.Fatalf("starting the client: %v", err)
	}
	ctx, cancel := context.WithTimeout(life, 10*time.Second)
	defer cancel()
	if err := initialize(ctx, c); err != nil {
		t.Fatalf("initialize: %v (stderr: %q)", err, s.Stderr())
	}
	return c
}

// waitStdioDone waits for s to be done, failing the test after d.
func waitStdioDone(t *testing.T, s *Stdio, d time.Duration) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(d):
		t.Fatalf("Done did not close within %s", d)
	}
}

type rootsAnswer struct{ uri string }

func (r rootsAnswer) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: r.uri, Name: "test"}}}, nil
}

func TestStdioEchoAndServerRequests(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	s := newStdioChild(t, "mcp", nil)
	c := connectStdio(t, ctx, s, client.WithRootsHandler(rootsAnswer{uri: "file:///work"}))

	if got, err := callTool(ctx, c, "echo", map[string]any{"text": "héllo"}); err != nil || got != "héllo" {
		t.Fatalf("echo = %q, %v; want héllo", got, err)
	}
	// A request from the server reaches the client's handler and back.
	if got, err := callTool(ctx, c, "roots", nil); err != nil || got != "file:///work" {
		t.Fatalf("roots = %q, %v; want file:///work", got, err)
	}
	if s.Pid() <= 0 {
		t.Errorf("Pid = %d", s.Pid())
	}
	select {
	case <-s.Done():
		t.Fatal("Done closed while the server runs")
	default:
	}
	if err := s.ExitErr(); err != nil {
		t.Errorf("ExitErr while running = %v, want nil", err)
	}

	// The server exits on its own when stdin closes: a clean stop.
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var ee *ExitError
	if err := s.ExitErr(); !errors.As(err, &ee) || ee.Code != 0 || !ee.Stopped {
		t.Fatalf("ExitErr = %v, want a stop with status 0", err)
	}
	if _, err := callTool(ctx, c, "echo", map[string]any{"text": "x"}); err == nil {
		t.Fatal("a call after Close succeeded")
	}
}

func TestStdioCloseIsIdempotentAndConcurrent(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	s := newStdioChild(t, "mcp", nil)
	connectStdio(t, ctx, s)

	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Close()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Close #%d: %v", i, err)
		}
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done not closed after Close returned")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
	if err := s.Start(ctx); !errors.Is(err, mcptransport.ErrTransportClosed) {
		t.Errorf("Start after Close = %v, want ErrTransportClosed", err)
	}
}

func TestStdioCrashMidCall(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	s := newStdioChild(t, "mcp", nil)
	c := connectStdio(t, ctx, s)
	lost := make(chan error, 1)
	c.OnConnectionLost(func(err error) { lost <- err })

	// A grandchild holding stdout keeps it open after the crash: the call
	// must still fail, not wait for an EOF that never comes.
	if _, err := callTool(ctx, c, "spawn", nil); err != nil {
		t.Fatalf("spawn: %v", err)
	}
	start := time.Now()
	_, err := callTool(ctx, c, "crash", nil)
	if err == nil {
		t.Fatal("the call to a crashing server succeeded")
	}
	if ctx.Err() != nil {
		t.Fatalf("the call hung until the test's deadline: %v", err)
	}
	waitStdioDone(t, s, 10*time.Second)
	t.Logf("call failed with %q; done after %s", err, time.Since(start))

	var ee *ExitError
	if err := s.ExitErr(); !errors.As(err, &ee) || ee.Code != 3 || ee.Stopped {
		t.Fatalf("ExitErr = %v, want an *ExitError with status 3, not stopped", err)
	}
	if got := s.ExitErr().Error(); got != "exited with status 3" {
		t.Errorf("ExitErr says %q", got)
	}
	if !strings.Contains(s.Stderr(), "about to crash") {
		t.Errorf("Stderr = %q, want the last words", s.Stderr())
	}
	select {
	case err := <-lost:
		if !errors.As(err, &ee) {
			t.Errorf("connection lost with %v, want the ExitError", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("OnConnectionLost's handler was not called")
	}
}

func TestStdioStderrFloodStaysBounded(t *testing.T) {
	t.Parallel()
	const keep = 16 << 10
	s := newStdioChild(t, "flood", func(c *StdioConfig) { c.StderrBytes = keep })
	if err := s.Start(stdioTestCtx(t)); err != nil {
		t.Fatal(err)
	}
	waitStdioDone(t, s, 20*time.Second)

	if got, want := s.stderr.written(), int64(floodBytes+len(floodEnd)); got != want {
		t.Errorf("%d bytes went through the ring, want %d", got, want)
	}
	if n := s.stderr.allocated(); n != keep {
		t.Errorf("the ring holds a %d-byte buffer, want %d", n, keep)
	}
	tail := s.Stderr()
	if len(tail) > keep {
		t.Errorf("Stderr is %d bytes, more than StderrBytes (%d)", len(tail), keep)
	}
	if !strings.HasSuffix(tail, floodEnd) {
		t.Errorf("Stderr ends %q, want the newest bytes", tail[max(0, len(tail)-40):])
	}
	var ee *ExitError
	if err := s.ExitErr(); !errors.As(err, &ee) || ee.Code != 0 || ee.Stopped {
		t.Errorf("ExitErr = %v, want exit status 0 by itself", err)
	}
}

func TestStdioStartFailsForAMissingProgram(t *testing.T) {
	t.Parallel()
	s := newStdioChild(t, "mcp", func(c *StdioConfig) {
		c.Command = "mcptray-no-such-program"
		c.BaseEnv = []string{"PATH=" + t.TempDir()}
	})
	err := s.Start(stdioTestCtx(t))
	if !errors.Is(err, ErrCommandNotFound) {
		t.Fatalf("Start = %v, want ErrCommandNotFound", err)
	}
	waitStdioDone(t, s, time.Second)
	if s.ExitErr() == nil {
		t.Error("ExitErr is nil after a failed Start")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close after a failed Start: %v", err)
	}
}

func TestStdioCloseBeforeStart(t *testing.T) {
	t.Parallel()
	s := newStdioChild(t, "mcp", nil)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	waitStdioDone(t, s, time.Second)
	if s.ExitErr() == nil {
		t.Error("ExitErr is nil")
	}
	if err := s.Start(stdioTestCtx(t)); err == nil {
		t.Error("Start after Close succeeded")
	}
	if s.Pid() != 0 {
		t.Errorf("Pid = %d, want 0", s.Pid())
	}
}

func TestStdioConfigChecks(t *testing.T) {
	t.Parallel()
	if _, err := NewStdio(StdioConfig{Command: "  "}); err == nil {
		t.Error("NewStdio accepted an empty command")
	}
	s, err := NewStdio(StdioConfig{Command: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.StderrBytes != defaultStderrBytes || s.cfg.Grace != defaultGrace || s.cfg.Logger == nil || s.cfg.BaseEnv != nil {
		t.Errorf("defaults not applied: %+v", s.cfg)
	}
	s.Close()
}

func TestStdioExitErrorWords(t *testing.T) {
	t.Parallel()
	sigkillName := " (SIGKILL)"
	if runtime.GOOS == "windows" {
		sigkillName = ""
	}
	ntStatus := uint32(0xC0000005) // negative as an int on 32-bit Windows
	for _, tc := range []struct {
		err  ExitError
		want string
	}{
		{ExitError{Code: 3}, "exited with status 3"},
		{ExitError{Code: -1, Signal: 9}, "was killed by signal 9" + sigkillName},
		{ExitError{Code: 0, Stopped: true}, "stopped by mcptray (exited with status 0)"},
		{ExitError{Code: -1}, "exited (how is unknown)"},
		{ExitError{Code: int(ntStatus)}, "exited with status 0xc0000005"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestStdioLineOverTheLimit: a server that writes a line longer than
// MaxMessageSize is stopped rather than read into memory, and both ExitErr
// and the lost-connection handler say why.
func TestStdioLineOverTheLimit(t *testing.T) {
	t.Parallel()
	s := newStdioChild(t, "bigline", nil)
	lost := make(chan error, 1)
	s.SetConnectionLostHandler(func(err error) { lost <- err })
	if err := s.Start(stdioTestCtx(t)); err != nil {
		t.Fatal(err)
	}
	waitStdioDone(t, s, 10*time.Second)
	var tooLarge *MessageTooLargeError
	if err := s.ExitErr(); !errors.As(err, &tooLarge) || tooLarge.Limit != 32<<20 {
		t.Fatalf("ExitErr = %v, want a *MessageTooLargeError at 32 MiB", err)
	}
	select {
	case err := <-lost:
		if !errors.As(err, &tooLarge) {
			t.Errorf("connection lost with %v, want the *MessageTooLargeError", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the lost-connection handler was not called")
	}
}
