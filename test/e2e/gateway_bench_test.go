//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkGatewayCall measures a tools/call round trip (echo on the in-repo
// test server over stdio) several ways: straight to the server
// (via=direct); through mcptray stdio (via=stdio-face: the bridge hands its
// pipes to the running mcptray, whose gateway and service reach the
// server); through the HTTP face (via=http-face, and via=http-face-net-http
// with Go's HTTP client); through mcptray stdio --app for an app given a
// set of its own (via=stdio-face-set: the set's filter and permission on
// each call); through supergateway, the npm bridge most apps use
// today, to a copy of the server (via=supergateway); and through the least
// any Go proxy adds (bench/floor: a line copier, via=floor-stdio, a bare
// net/http server, via=floor-http, and the same on fasthttp,
// via=floor-fasthttp). It reports each one's p50 and p99 and,
// for mcptray and the floor, the CPU that process spent per call
// (serve-cpu-µs), which this shared machine's noise moves far less
// than the wall-clock figures. The HTTP face runs without its token (serve
// --gateway-no-auth), which saves one SHA-256 of the header per call, and
// server a without its sandbox (benchSandbox), as the direct call's and
// the floors' servers run. With MCPTRAY_BENCH_PROFILE, the faces' calls
// leave CPU profiles of serve (benchProfiler).
//
//	go test -run '^$' -bench GatewayCall -benchtime 3000x ./test/e2e
func BenchmarkGatewayCall(b *testing.B) {
	dir := b.TempDir()
	mcptray, testServer, floor := Binary(b), TestServer(b), Build(b, "floor", Module+"/bench/floor")
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		b.Fatal(err)
	}
	env := []string{"HOME=" + filepath.Join(dir, "home"), "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + run}
	prof := benchProfiler(b, run)
	if prof != nil {
		mcptray = prof.binary
	}
	add := exec.Command(mcptray, "add", "a", "--", testServer, "-name", "a")
	add.Env = env
	if out, err := add.CombinedOutput(); err != nil {
		b.Fatalf("mcptray add: %v\n%s", err, out)
	}
	benchSandbox(b, mcptray, env)
	serveEnv := env
	if prof != nil {
		serveEnv = append(slices.Clone(env), "MCPTRAY_PPROF="+prof.sock)
	}
	url, serve := benchServe(b, mcptray, serveEnv)

	b.Run("via=direct", func(b *testing.B) {
		c := startLines(b, exec.Command(testServer, "-name", "direct"), nil)
		c.handshake(b)
		measure(b, 0, func() { c.call(b, "echo") })
	})
	b.Run("via=stdio-face", func(b *testing.B) {
		c := startLines(b, exec.Command(mcptray, "stdio"), env)
		c.handshake(b)
		defer prof.around(b, "gateway-stdio")()
		measure(b, serve, func() { c.call(b, "mcp__a__echo") })
	})
	b.Run("via=http-face", func(b *testing.B) {
		h := bareHTTP(b, url)
		h.handshake(b)
		defer prof.around(b, "gateway-http")()
		measure(b, serve, func() { h.call(b, "mcp__a__echo") })
	})
	b.Run("via=http-face-net-http", func(b *testing.B) {
		h := &httpApp{url: url, hc: &http.Client{}}
		h.handshake(b)
		measure(b, serve, func() { h.call(b, "mcp__a__echo") })
	})
	b.Run("via=stdio-face-set", func(b *testing.B) {
		benchSets(b, mcptray, env)
		c := startLines(b, exec.Command(mcptray, "stdio", "--app", "writer"), env)
		c.handshake(b)
		defer prof.around(b, "gateway-stdio-set")()
		measure(b, serve, func() { c.call(b, "mcp__a__echo") })
	})
	b.Run("via=floor-stdio", func(b *testing.B) {
		cmd := exec.Command(floor, testServer, "-name", "direct")
		c := startLines(b, cmd, nil)
		c.handshake(b)
		measure(b, cmd.Process.Pid, func() { c.call(b, "echo") })
	})
	b.Run("via=floor-http", func(b *testing.B) {
		url, pid := benchFloorHTTP(b, floor, testServer, "-http")
		h := bareHTTP(b, url)
		h.handshake(b)
		measure(b, pid, func() { h.call(b, "echo") })
	})
	b.Run("via=floor-fasthttp", func(b *testing.B) {
		url, pid := benchFloorHTTP(b, floor, testServer, "-fasthttp")
		h := bareHTTP(b, url)
		h.handshake(b)
		measure(b, pid, func() { h.call(b, "echo") })
	})
	b.Run("via=supergateway", func(b *testing.B) {
		h := bareHTTP(b, benchSupergateway(b, testServer))
		h.handshake(b)
		measure(b, 0, func() { h.call(b, "echo") })
	})
}

// benchSets gives the app writer a set of its own, through the running
// mcptray: server a whole, its echo allowed by the set itself, and a
// second set given to another app; the calls of via=stdio-face-set then
// go through the set's filter and its permission. The cases before it
// run with no set.
func benchSets(b *testing.B, mcptray string, env []string) {
	for _, args := range [][]string{
		{"set", "Writing", "--servers", "a"},
		{"set", "Writing", "--allow", "a/echo"},
		{"set", "Home", "--tools", "a/echo"},
		{"app", "set", "writer", "Writing"},
		{"app", "set", "reader", "Home"},
	} {
		cmd := exec.Command(mcptray, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("mcptray %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// benchFloorHTTP runs bench/floor -http in front of a copy of the test
// server and returns its URL and process id.
func benchFloorHTTP(b *testing.B, floor, testServer, mode string) (string, int) {
	cmd := exec.Command(floor, mode, testServer, "-name", "direct")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("bench/floor did not say where it listens: %v", err)
	}
	return strings.TrimSpace(url), cmd.Process.Pid
}

// benchSupergateway runs supergateway (npm, in test/peers) bridging a copy
// of the test server over stdio to streamable HTTP, one server process for
// the benchmark's session (--stateful), and returns its URL once it answers.
func benchSupergateway(b *testing.B, testServer string) string {
	bin, err := filepath.Abs("../peers/node_modules/.bin/supergateway")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		b.Skip("supergateway is not installed in test/peers: run make deps")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	node, err := filepath.Abs("../peers/node_modules/.bin")
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "--stdio", testServer+" -name direct", "--outputTransport", "streamableHttp",
		"--stateful", "--port", fmt.Sprint(port), "--logLevel", "none")
	cmd.Env = append(os.Environ(), "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its node and the server stop with it
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	deadline := time.Now().Add(serveDeadline)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return url
		}
		if time.Now().After(deadline) {
			b.Fatalf("supergateway did not listen on port %d within %s", port, serveDeadline)
		}
		// The port opens when node has loaded supergateway: there is no
		// event to wait on, so look again shortly.
		<-time.After(20 * time.Millisecond)
	}
}

// measure runs fn b.N times and reports the p50 and p99 of one run and,
// when pid is not 0, the CPU that process spent per run.
func measure(b *testing.B, pid int, fn func()) {
	for range 50 { // warm up: connections, the scheduler
		fn()
	}
	took := make([]time.Duration, 0, b.N)
	cpu := procCPU(b, pid)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		fn()
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	if pid != 0 {
		b.ReportMetric(float64((procCPU(b, pid)-cpu).Microseconds())/float64(b.N), "serve-cpu-µs")
	}
	slices.Sort(took)
	at := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

// procCPU is the CPU time process pid has spent so far, user and system,
// in clock ticks of 10 ms (0 for pid 0).
func procCPU(b *testing.B, pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's name, which is in parentheses and may
	// hold spaces: utime and stime are the 12th and 13th of them.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// benchServe runs mcptray serve until the benchmark ends and returns the
// gateway's URL once server a is connected, and the process's id.
func benchServe(b *testing.B, mcptray string, env []string) (string, int) {
	cmd := exec.Command(mcptray, "serve", "--gateway-no-auth", "--gateway-addr", "127.0.0.1:0")
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	stderr, err := os.CreateTemp(b.TempDir(), "stderr")
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	re := regexp.MustCompile(`^Gateway: (http://\S+)`)
	url, connected := "", false
	var said []string
	timer := time.NewTimer(serveDeadline)
	defer timer.Stop()
	for url == "" || !connected {
		select {
		case l, ok := <-lines:
			if !ok {
				b.Fatal("mcptray serve ended")
			}
			said = append(said, l)
			if m := re.FindStringSubmatch(l); m != nil {
				url = m[1]
			}
			connected = connected || l == "a: connected"
		case <-timer.C:
			// Its goroutines, for what it waits on.
			cmd.Process.Signal(syscall.SIGQUIT)
			cmd.Wait()
			dump, _ := os.ReadFile(stderr.Name())
			b.Fatalf("mcptray serve did not get ready; it said:\n%s\nits log:\n%s\nits goroutines:\n%s", strings.Join(said, "\n"), serveLog(env), dump)
		}
	}
	go func() {
		for range lines {
		}
	}()
	return url, cmd.Process.Pid
}

// serveLog is the end of the log of the mcptray serve run with env (its
// HOME), for a benchmark that failed on it.
func serveLog(env []string) string {
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	var log []byte
	filepath.WalkDir(home, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "mcptray.log" {
			log, _ = os.ReadFile(path)
		}
		return nil
	})
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	return strings.Join(lines[max(0, len(lines)-40):], "\n")
}

// lines is an MCP client over a child's stdin and stdout, one JSON-RPC
// message a line.
type lines struct {
	w  io.Writer
	r  *bufio.Reader
	id int
}

func startLines(b *testing.B, cmd *exec.Cmd, env []string) *lines {
	cmd.Env = env
	w, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close(); cmd.Wait() })
	return &lines{w: w, r: bufio.NewReaderSize(r, 1<<20)}
}

func (c *lines) request(b *testing.B, method, params string) []byte {
	c.id++
	fmt.Fprintf(c.w, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params)
	want := fmt.Sprintf(`%d`, c.id)
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			b.Fatalf("reading the answer to %s: %v", method, err)
		}
		var m struct{ ID json.RawMessage }
		if json.Unmarshal(line, &m) == nil && string(m.ID) == want {
			return line
		}
	}
}

func (c *lines) handshake(b *testing.B) {
	c.request(b, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	io.WriteString(c.w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
}

func (c *lines) call(b *testing.B, tool string) {
	if line := c.request(b, "tools/call", `{"name":"`+tool+`","arguments":{"text":"hi"}}`); !bytes.Contains(line, []byte(`"text":"hi"`)) {
		b.Fatalf("%s answered %s", tool, line)
	}
}

// httpApp is an MCP client over streamable HTTP. With hc it sends each
// request through net/http's client; without, it writes HTTP/1.1 on one
// kept connection and reads the answer itself, as bare as the line client
// of the direct call, so that what is measured is the server's side.
type httpApp struct {
	url, session string
	hc           *http.Client
	conn         net.Conn
	r            *bufio.Reader
	id           int
}

// bareHTTP is an httpApp on a connection of its own, without net/http's
// client.
func bareHTTP(b *testing.B, url string) *httpApp {
	u, err := neturl.Parse(url)
	if err != nil {
		b.Fatal(err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return &httpApp{url: url, conn: c, r: bufio.NewReaderSize(c, 1<<20)}
}

func (h *httpApp) post(b *testing.B, body string) []byte {
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	var resp *http.Response
	var err error
	if h.conn != nil {
		if err = req.Write(h.conn); err == nil {
			resp, err = http.ReadResponse(h.r, req)
		}
	} else {
		resp, err = h.hc.Do(req)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if h.session == "" {
		h.session = resp.Header.Get("Mcp-Session-Id")
	}
	return out
}

func (h *httpApp) handshake(b *testing.B) {
	h.post(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	h.post(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (h *httpApp) call(b *testing.B, tool string) {
	h.id++
	out := h.post(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"text":"hi"}}}`, h.id, tool))
	if !bytes.Contains(out, []byte(`"text":"hi"`)) {
		b.Fatalf("%s answered %s", tool, out)
	}
}
