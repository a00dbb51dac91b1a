package mcpserver_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/test/mcpserver"
)

// legacy is the protocol the tests pin: it keeps mcp-go's client on the
// initialize handshake instead of a server/discover probe first.
const legacy = mcp.LATEST_LEGACY_PROTOCOL_VERSION

// wait bounds every wait in these tests; none should come near it.
const wait = 10 * time.Second

func initRequest(version string) mcp.InitializeRequest {
	return mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: version,
		ClientInfo:      mcp.Implementation{Name: "mcpserver-test", Version: "0"},
	}}
}

// connect starts an in-process client on s and completes the handshake.
func connect(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	c := start(t, s, client.WithProtocolVersion(legacy))
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	if _, err := c.Initialize(ctx, initRequest(legacy)); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

func start(t *testing.T, s *server.MCPServer, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func call(ctx context.Context, c *client.Client, name string, args map[string]any) (string, error) {
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		return "", err
	}
	var text strings.Builder
	for _, content := range res.Content {
		if tc, ok := content.(mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", text.String())
	}
	return text.String(), nil
}

func mustCall(t *testing.T, c *client.Client, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	text, err := call(ctx, c, name, args)
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return text
}

func listTools(t *testing.T, c *client.Client) map[string]mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	tools := make(map[string]mcp.Tool, len(res.Tools))
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	return tools
}

func TestTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"echo", map[string]any{"text": "hello ✓"}, "hello ✓"},
		{"add", map[string]any{"a": 2, "b": 3.5}, "5.5"},
		{"sleep", map[string]any{"ms": 10}, "slept"},
		{"raw_schema", map[string]any{"path": "/tmp/x"}, `{"path":"/tmp/x"}`},
		{"env", map[string]any{"name": "PATH"}, os.Getenv("PATH")},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			c := connect(t, mcpserver.New(mcpserver.Options{}))
			if got := mustCall(t, c, tt.tool, tt.args); got != tt.want {
				t.Errorf("%s(%v) = %q, want %q", tt.tool, tt.args, got, tt.want)
			}
		})
	}
}

func TestName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "custom"} {
		c := start(t, mcpserver.New(mcpserver.Options{Name: name}), client.WithProtocolVersion(legacy))
		res, err := c.Initialize(t.Context(), initRequest(legacy))
		if err != nil {
			t.Fatal(err)
		}
		want := cmp.Or(name, mcpserver.DefaultName)
		if res.ServerInfo.Name != want || res.ServerInfo.Version != mcpserver.Version {
			t.Errorf("Name %q: server info %+v, want %s %s", name, res.ServerInfo, want, mcpserver.Version)
		}
	}
}

func TestSleepHonoursCancellation(t *testing.T) {
	t.Parallel()
	c := connect(t, mcpserver.New(mcpserver.Options{}))
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := call(ctx, c, "sleep", map[string]any{"ms": 60_000})
	if err == nil {
		t.Fatal("a cancelled sleep answered")
	}
	if d := time.Since(begin); d > wait {
		t.Errorf("cancelled sleep took %v", d)
	}
}

func TestCrash(t *testing.T) {
	t.Parallel()
	exited := make(chan int, 1)
	c := connect(t, mcpserver.New(mcpserver.Options{Exit: func(code int) { exited <- code }, Stderr: io.Discard}))
	ctx, cancel := context.WithCancel(t.Context())
	answered := make(chan error, 1)
	go func() {
		_, err := call(ctx, c, "crash", nil)
		answered <- err
	}()
	select {
	case code := <-exited:
		if code != 3 {
			t.Errorf("crash exited with %d, want 3", code)
		}
	case <-time.After(wait):
		t.Fatal("crash did not exit")
	}
	select {
	case err := <-answered:
		t.Fatalf("crash answered before being cancelled: %v", err)
	default:
	}
	cancel()
	<-answered
}

func TestNotifyToolsChanged(t *testing.T) {
	t.Parallel()
	c := connect(t, mcpserver.New(mcpserver.Options{}))
	changed := make(chan struct{}, 10)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			changed <- struct{}{}
		}
	})
	for i := 1; i <= 2; i++ {
		name := fmt.Sprintf("extra_%d", i)
		if got := mustCall(t, c, "notify_tools_changed", nil); got != "added "+name {
			t.Errorf("notify_tools_changed = %q, want %q", got, "added "+name)
		}
		select {
		case <-changed:
		case <-time.After(wait):
			t.Fatal("no notifications/tools/list_changed")
		}
		if _, ok := listTools(t, c)[name]; !ok {
			t.Errorf("tools/list lacks %s", name)
		}
		if got := mustCall(t, c, name, nil); got != name {
			t.Errorf("%s = %q", name, got)
		}
	}
}

// acceptDefaults answers an elicitation the way a person who presses OK on
// a prefilled form would.
type acceptDefaults struct{ asked chan mcp.ElicitationParams }

func (a acceptDefaults) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked <- req.Params
	var schema struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	b, _ := json.Marshal(req.Params.RequestedSchema)
	if err := json.Unmarshal(b, &schema); err != nil {
		return nil, err
	}
	content := map[string]any{}
	for name, p := range schema.Properties {
		content[name] = p.Default
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action:  mcp.ElicitationResponseActionAccept,
		Content: content,
	}}, nil
}

type fixedRoots []mcp.Root

func (r fixedRoots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: r}, nil
}

// eras connects once pinned to the initialize handshake (where mcp-go sends
// elicitation/create and roots/list to the client) and once on the newest
// protocol (where the tool answers input_required and the client retries).
var eras = []struct {
	name    string
	version string
	opts    []client.ClientOption
}{
	{"legacy", legacy, []client.ClientOption{client.WithProtocolVersion(legacy)}},
	{"modern", "", nil},
}

func TestAsk(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			handler := acceptDefaults{asked: make(chan mcp.ElicitationParams, 1)}
			c := start(t, mcpserver.New(mcpserver.Options{}), append(era.opts, client.WithElicitationHandler(handler))...)
			if _, err := c.Initialize(t.Context(), initRequest(era.version)); err != nil {
				t.Fatal(err)
			}
			got := mustCall(t, c, "ask", nil)
			if want := `{"action":"accept","content":{"age":36,"name":"Ada"}}`; got != want {
				t.Errorf("ask = %s, want %s", got, want)
			}
			if params := <-handler.asked; params.Message == "" || params.RequestedSchema == nil {
				t.Errorf("elicitation without message or schema: %+v", params)
			}
		})
	}
}

func TestRoots(t *testing.T) {
	t.Parallel()
	roots := fixedRoots{{URI: "file:///home/ada/project", Name: "project"}}
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			c := start(t, mcpserver.New(mcpserver.Options{}), append(era.opts, client.WithRootsHandler(roots))...)
			if _, err := c.Initialize(t.Context(), initRequest(era.version)); err != nil {
				t.Fatal(err)
			}
			got := mustCall(t, c, "roots", nil)
			if want := `[{"uri":"file:///home/ada/project","name":"project"}]`; got != want {
				t.Errorf("roots = %s, want %s", got, want)
			}
		})
	}
}

func TestInitDelay(t *testing.T) {
	t.Parallel()
	const delay = 300 * time.Millisecond
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			c := start(t, mcpserver.New(mcpserver.Options{InitDelay: delay}), era.opts...)
			begin := time.Now()
			if _, err := c.Initialize(t.Context(), initRequest(era.version)); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(begin); d < delay {
				t.Errorf("initialize answered after %v, want at least %v", d, delay)
			}
		})
	}
}

func TestHangInit(t *testing.T) {
	t.Parallel()
	c := start(t, mcpserver.New(mcpserver.Options{HangInit: true}), client.WithProtocolVersion(legacy))
	const patience = 100 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), patience)
	defer cancel()
	_, err := c.Initialize(ctx, initRequest(legacy))
	if err == nil {
		t.Fatal("a hanging server answered initialize")
	}
	// It failed because the client gave up, not by an answer: its deadline
	// had passed. (Timing it with time.Since failed once: the VM's timer
	// fired 2.5 ms before time.Since said the deadline had come.)
	if ctx.Err() == nil {
		t.Errorf("initialize failed with %v, before the client gave up", err)
	}
}

func TestHangTool(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"echo", "stuck"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := connect(t, mcpserver.New(mcpserver.Options{HangTool: name}))
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			if _, err := call(ctx, c, name, map[string]any{"text": "x"}); err == nil {
				t.Errorf("%s answered", name)
			}
			if got := mustCall(t, c, "add", map[string]any{"a": 1, "b": 1}); got != "2" {
				t.Errorf("add beside a hanging tool = %q", got)
			}
		})
	}
}

// TestRawSchema reads tools/list as bytes: mcp-go's client decodes tools into
// a struct that drops anyOf, which is the very loss the schema is there to catch.
func TestRawSchema(t *testing.T) {
	t.Parallel()
	s := mcpserver.New(mcpserver.Options{})
	connect(t, s) // registers an initialised session, as a real client would
	resp := s.HandleMessage(t.Context(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	wire, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if got := rawInputSchema(t, wire, "raw_schema"); got != mcpserver.RawSchema {
		t.Errorf("inputSchema on the wire:\n%s\nwant\n%s", got, mcpserver.RawSchema)
	}
	if got := rawInputSchema(t, wire, "complex_schema"); got != mcpserver.ComplexSchema {
		t.Errorf("complex_schema's inputSchema on the wire:\n%s\nwant\n%s", got, mcpserver.ComplexSchema)
	}
}

// rawInputSchema picks a tool's inputSchema out of a tools/list response
// without decoding it.
func rawInputSchema(t *testing.T, response []byte, tool string) string {
	t.Helper()
	var list struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(response, &list); err != nil {
		t.Fatalf("decoding tools/list: %v", err)
	}
	for _, tl := range list.Result.Tools {
		if tl.Name == tool {
			return string(tl.InputSchema)
		}
	}
	t.Fatalf("tools/list lacks %s", tool)
	return ""
}

func TestToolLists(t *testing.T) {
	t.Parallel()
	c := connect(t, mcpserver.New(mcpserver.Options{Tools: 500, BigDescription: 60_000, Bidi: true, CollidingTools: true}))
	tools := listTools(t, c)

	var numbered int
	for name := range tools {
		if _, err := fmt.Sscanf(name, "t%d", new(int)); err == nil {
			numbered++
		}
	}
	if numbered != 500 {
		t.Errorf("%d tools t<n>, want 500", numbered)
	}
	if got := mustCall(t, c, "t499", nil); got != "t499" {
		t.Errorf("t499 = %q", got)
	}

	if n := utf8.RuneCountInString(tools["big_description"].Description); n != 60_000 {
		t.Errorf("big_description has %d characters, want 60000", n)
	}

	bidi, ok := tools[mcpserver.BidiTool]
	if !ok {
		t.Fatalf("no bidi tool %q", mcpserver.BidiTool)
	}
	for _, hidden := range []string{"\u202E", "\u2066", "\u200B", "\uFEFF"} {
		if !strings.Contains(mcpserver.BidiTool+bidi.Description+mcpserver.BidiOutput, hidden) {
			t.Errorf("bidi tool lacks %U", []rune(hidden)[0])
		}
	}
	if bidi.Description != mcpserver.BidiDescription {
		t.Errorf("bidi description %q", bidi.Description)
	}
	if got := mustCall(t, c, mcpserver.BidiTool, nil); got != mcpserver.BidiOutput {
		t.Errorf("bidi output %q", got)
	}

	for _, name := range []string{"a.b", "a_b"} {
		if got := mustCall(t, c, name, nil); got != name {
			t.Errorf("%s = %q", name, got)
		}
	}
}

// quiet keeps the clients from logging that the server they were talking to
// has gone, which TestServeHTTP makes happen on purpose.
var quiet = slog.New(slog.DiscardHandler)

func TestServeHTTP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		transport string
		path      string
		connect   func(url string) (*client.Client, error)
	}{
		{"http", "/mcp", func(u string) (*client.Client, error) {
			return client.NewStreamableHttpClient(u, transport.WithHTTPLogger(quiet))
		}},
		{"sse", "/sse", func(u string) (*client.Client, error) {
			return client.NewSSEMCPClient(u, transport.WithSSELogger(quiet))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.transport, func(t *testing.T) {
			t.Parallel()
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			out, w := io.Pipe()
			served := make(chan error, 1)
			go func() {
				served <- mcpserver.Serve(ctx, mcpserver.Options{HangTool: "stuck"}, tt.transport, "127.0.0.1:0", nil, w)
			}()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("reading the url: %v", err)
			}
			u, err := url.Parse(strings.TrimSpace(line))
			if err != nil || u.Hostname() != "127.0.0.1" || u.Port() == "0" || u.Path != tt.path {
				t.Fatalf("first line %q is not a loopback url ending in %s", line, tt.path)
			}

			c, err := tt.connect(u.String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(ctx); err != nil {
				t.Fatalf("start: %v", err)
			}
			if _, err := c.Initialize(ctx, initRequest(legacy)); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if got := mustCall(t, c, "echo", map[string]any{"text": "over " + tt.transport}); got != "over "+tt.transport {
				t.Errorf("echo = %q", got)
			}
			// A call that may be hanging in the server when it stops must
			// not keep it from stopping.
			go call(ctx, c, "stuck", nil)

			stop()
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("Serve after cancel: %v", err)
				}
			case <-time.After(wait):
				t.Fatal("Serve did not stop on cancel")
			}
		})
	}
}

func TestServeRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ transport, addr string }{
		{"http", "0.0.0.0:0"},
		{"sse", ":0"},
		{"http", "192.0.2.1:0"},
		{"carrier-pigeon", "127.0.0.1:0"},
	} {
		err := mcpserver.Serve(t.Context(), mcpserver.Options{}, tc.transport, tc.addr, nil, io.Discard)
		if err == nil {
			t.Errorf("Serve(%s, %s) did not refuse", tc.transport, tc.addr)
		}
	}
}

// binary builds cmd/mcp-testserver once for all the subprocess tests.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "mcp-testserver")
	if err != nil {
		return "", err
	}
	return mcpserver.Build(dir)
})

func TestMain(m *testing.M) {
	code := m.Run()
	if bin, err := binary(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

func build(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build mcp-testserver")
	}
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestCommandStdio runs the command under mcp-go's own stdio client, plain
// and misbehaving. The client drains stderr but may drop what it mirrors, so
// the flood itself is measured over raw pipes in TestCommandStdioBytes.
func TestCommandStdio(t *testing.T) {
	t.Parallel()
	bin := build(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"plain", nil},
		{"misbehaving", []string{"-garbage-stdout", "-stderr-flood", "1048576"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := client.NewClient(transport.NewStdio(bin, nil, tc.args...), client.WithProtocolVersion(legacy))
			if err := c.Start(t.Context()); err != nil {
				t.Fatalf("start: %v", err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			res, err := c.Initialize(ctx, initRequest(legacy))
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if res.ServerInfo.Name != mcpserver.DefaultName {
				t.Errorf("server name %q", res.ServerInfo.Name)
			}
			if got := mustCall(t, c, "echo", map[string]any{"text": "over stdio"}); got != "over stdio" {
				t.Errorf("echo = %q", got)
			}
		})
	}
}

// child is the command over raw pipes, for what mcp-go's client hides: the
// bytes on stdout and the exit status.
type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startChild(t *testing.T, stderr io.Writer, args ...string) *child {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), build(t), args...)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return &child{cmd: cmd, in: in, out: bufio.NewReader(out)}
}

func (c *child) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatalf("writing to the child: %v", err)
	}
}

// response reads stdout up to the response with the given id, and returns it
// and how many lines before it were not JSON-RPC messages.
func (c *child) response(t *testing.T, id int) (json.RawMessage, int) {
	t.Helper()
	var junk int
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading response %d: %v", id, err)
		}
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.JSONRPC != "2.0" {
			junk++
			continue
		}
		if string(msg.ID) == fmt.Sprint(id) {
			return bytes.TrimSpace(line), junk
		}
	}
}

func (c *child) handshake(t *testing.T) int {
	t.Helper()
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	_, junk := c.response(t, 1)
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return junk
}

func TestCommandStdioBytes(t *testing.T) {
	t.Parallel()
	const flood = 1 << 20
	var stderr bytes.Buffer
	p := startChild(t, &stderr, "-garbage-stdout", "-stderr-flood", fmt.Sprint(flood))
	if junk := p.handshake(t); junk == 0 {
		t.Error("-garbage-stdout wrote nothing but JSON-RPC before the initialize answer")
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	line, junk := p.response(t, 2)
	if junk == 0 {
		t.Error("-garbage-stdout wrote nothing but JSON-RPC among the answers")
	}
	if got := rawInputSchema(t, line, "raw_schema"); got != mcpserver.RawSchema {
		t.Errorf("inputSchema over stdio:\n%s\nwant\n%s", got, mcpserver.RawSchema)
	}

	// Closing stdin ends the server cleanly.
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit after stdin closed: %v", err)
	}
	if stderr.Len() < flood {
		t.Errorf("stderr carried %d bytes, want at least %d", stderr.Len(), flood)
	}
}

func TestCommandCrash(t *testing.T) {
	t.Parallel()
	p := startChild(t, io.Discard)
	p.handshake(t)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{}}}`)
	rest, _ := io.ReadAll(p.out)
	var exit *exec.ExitError
	if err := p.cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("crash: %v, want exit status 3", err)
	}
	if bytes.Contains(rest, []byte(`"id":2`)) {
		t.Errorf("crash answered: %s", rest)
	}
}

func TestCommandSignal(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	for _, transportName := range []string{"stdio", "http"} {
		t.Run(transportName, func(t *testing.T) {
			t.Parallel()
			p := startChild(t, io.Discard, "-transport", transportName)
			if transportName == "http" {
				line, err := p.out.ReadString('\n')
				if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
					t.Fatalf("first line %q, %v", line, err)
				}
			} else {
				p.handshake(t)
			}
			if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if err := p.cmd.Wait(); err != nil {
				t.Errorf("exit after SIGINT: %v", err)
			}
		})
	}
}
