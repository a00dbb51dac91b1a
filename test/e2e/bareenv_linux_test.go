//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An app built on the MCP SDK starts mcptray stdio with only HOME, LOGNAME,
// PATH, SHELL, TERM and USER from its own environment: no XDG_RUNTIME_DIR,
// no session bus, no desktop. These tests start it so, and check that it
// finds the person's running mcptray, or starts one that has the person's
// session, and that every such app then shares that one.
//
// The runtime folder such an mcptray stdio finds is /run/user/UID. So that
// the tests never touch the machine's own, each app runs in a mount
// namespace of its own in which /run/user is a folder of the test's
// (asApp): the same folder that the test's desktop session names in
// XDG_RUNTIME_DIR.

// asAppArg makes the test binary asAppMain (TestMain).
const asAppArg = "as-app"

// asAppMain is the test binary run by asApp, in a new mount namespace:
// args are FOLDER -- PROGRAM ARGS…. It puts FOLDER/run/user over /run/user
// (or FOLDER/run over /run where there is no /run/user), seen by this
// process and what it starts only, and becomes PROGRAM with its own
// environment.
func asAppMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "as-app: want FOLDER -- PROGRAM ARGS…")
		return 2
	}
	dir, argv := args[0], args[2:]
	// Nothing mounted here reaches the machine's own namespace.
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		fmt.Fprintln(os.Stderr, "as-app: making the mounts private:", err)
		return 1
	}
	from, onto := filepath.Join(dir, "run", "user"), "/run/user"
	if _, err := os.Stat(onto); err != nil {
		from, onto = filepath.Join(dir, "run"), "/run"
	}
	if err := syscall.Mount(from, onto, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		fmt.Fprintf(os.Stderr, "as-app: mounting the test's folder on %s: %v\n", onto, err)
		return 1
	}
	err := syscall.Exec(argv[0], argv, os.Environ())
	fmt.Fprintln(os.Stderr, "as-app:", err)
	return 1
}

// bareSession is a person's home and desktop session for these tests: a
// home, a runtime folder (the test's /run/user/UID), mcptray and the test
// server (each a copy of the test's own, so that their processes can be
// counted), the environment a desktop session gives its programs, and the
// one the MCP SDK gives an app's.
type bareSession struct {
	t                   *testing.T
	dir, home, run      string
	mcptray, testServer string
	desktop, sdk        []string
}

func newBareSession(t *testing.T) *bareSession {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving the test a /run/user of its own takes root (CI runs as root)")
	}
	s := &bareSession{t: t, dir: t.TempDir(), mcptray: Own(t, Binary(t)), testServer: Own(t, TestServer(t))}
	s.home = filepath.Join(s.dir, "home")
	s.run = filepath.Join(s.dir, "run", "user", strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(s.run, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.run, 0o700); err != nil {
		t.Fatal(err)
	}
	name := "root"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	s.desktop = []string{"HOME=" + s.home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + s.run}
	s.sdk = []string{"HOME=" + s.home, "LOGNAME=" + name, "PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh", "TERM=dumb", "USER=" + name}
	t.Cleanup(func() {
		for _, p := range append(s.mcptrays(), running(s.testServer)...) {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	})
	return s
}

// asApp is the command PROGRAM ARGS run as an app runs it: with env, and
// the test's /run/user as /run/user.
func (s *bareSession) asApp(env []string, program string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{asAppArg, s.dir, "--", program}, args...)...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	return cmd
}

// do runs mcptray with args as the desktop session does, and fails the
// test if it fails.
func (s *bareSession) do(args ...string) {
	s.t.Helper()
	cmd := exec.Command(s.mcptray, args...)
	cmd.Env = s.desktop
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("mcptray %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// mcptrays are the running mcptrays of this test (mcptray serve, or the
// tray), not their mcptray stdio, commands or sandbox launchers.
func (s *bareSession) mcptrays() []proc {
	var out []proc
	for _, p := range running(s.mcptray) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "cmdline"))
		argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		if len(argv) == 2 && (argv[1] == "serve" || argv[1] == "--autostart") {
			out = append(out, p)
		}
	}
	return out
}

// serveLog is the log of the mcptray serve that mcptray stdio started.
func (s *bareSession) serveLog() string {
	b, _ := os.ReadFile(filepath.Join(s.home, ".cache", "mcptray", "serve.log"))
	return "mcptray serve's log:\n" + string(b)
}

// startDesktopServe starts mcptray serve as a desktop session does, and
// waits until the server called name is connected.
func (s *bareSession) startDesktopServe(name string) {
	s.t.Helper()
	cmd := exec.Command(s.mcptray, "serve")
	cmd.Env = s.desktop
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	exited := make(chan struct{})
	connected := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == name+": connected" {
				close(connected)
			}
		}
		cmd.Wait()
		close(exited)
	}()
	s.t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	select {
	case <-connected:
	case <-exited:
		s.t.Fatalf("mcptray serve stopped:\n%s", stderr.String())
	case <-time.After(serveDeadline):
		s.t.Fatalf("%s did not connect within %s", name, serveDeadline)
	}
}

// oneOfEach checks that one mcptray and one test server run.
func (s *bareSession) oneOfEach(when string) {
	s.t.Helper()
	if m, srv := s.mcptrays(), running(s.testServer); len(m) != 1 || len(srv) != 1 {
		s.t.Fatalf("%s: %d mcptrays and %d test servers run, want one of each: %+v %+v\n%s", when, len(m), len(srv), m, srv, s.serveLog())
	}
}

// initialize opens the app's MCP session.
func initialize(t *testing.T, app *stdioApp, name string) {
	t.Helper()
	init := app.request(t, 1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+name+`","version":"1"}}`)
	if !strings.Contains(string(init), `"serverInfo":{"name":"mcptray"`) {
		t.Fatalf("%s: initialize answered %s\nstderr: %s", name, init, app.stderr)
	}
	app.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestBareAppFindsTheDesktopsMcptray: with the person's mcptray started by
// the desktop session, an app that starts mcptray stdio with the SDK's
// environment reaches it: one mcptray, one server process, its tools
// listed and a call answered.
func TestBareAppFindsTheDesktopsMcptray(t *testing.T) {
	t.Parallel()
	s := newBareSession(t)
	s.do("add", "a", "--", s.testServer, "-name", "a")
	s.startDesktopServe("a")
	s.oneOfEach("the desktop's mcptray started")

	app := startAppCmd(t, s.asApp(s.sdk, s.mcptray, "stdio"))
	initialize(t, app, "bare-app")
	pid := toolText(t, app.waitCall(t, "mcp__a__started", s.serveLog))
	if srv := running(s.testServer); len(srv) != 1 || srv[0].start != pid {
		t.Fatalf("the app was answered by a process started at %s; test servers running: %+v", pid, srv)
	}
	if tools := app.request(t, 3, "tools/list", `{}`); !bytes.Contains(tools, []byte(`"name":"mcp__a__echo"`)) {
		t.Errorf("tools/list lacks mcp__a__echo: %s", tools)
	}
	if got := toolText(t, app.request(t, 4, "tools/call", `{"name":"mcp__a__echo","arguments":{"text":"from a bare app"}}`)); got != "from a bare app" {
		t.Errorf("echo answered %q", got)
	}
	s.oneOfEach("a bare app connected")

	t.Run("MCP Inspector CLI", func(t *testing.T) {
		inspector := inspectorCLI(t)
		// The Inspector is the app: it starts mcptray stdio with the
		// SDK's environment, whatever its own.
		env := append([]string{}, s.sdk...)
		env[2] = "PATH=" + filepath.Dir(inspector) + string(os.PathListSeparator) + os.Getenv("PATH")
		inspect := func(args ...string) string {
			t.Helper()
			cmd := s.asApp(env, inspector, append([]string{"--cli", s.mcptray, "stdio"}, args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("mcp-inspector --cli mcptray stdio %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
			}
			return string(out)
		}
		if out := inspect("--method", "tools/list"); !strings.Contains(out, `"mcp__a__echo"`) {
			t.Errorf("the Inspector's tools/list lacks mcp__a__echo:\n%s", out)
		}
		if out := inspect("--method", "tools/call", "--tool-name", "mcp__a__echo", "--tool-arg", "text=from the Inspector"); !strings.Contains(out, "from the Inspector") {
			t.Errorf("the Inspector's tools/call was not answered:\n%s", out)
		}
		if out := inspect("--method", "tools/call", "--tool-name", "mcp__a__started"); !strings.Contains(out, `"`+pid+`"`) {
			t.Errorf("the Inspector was answered by another server process than %s:\n%s", pid, out)
		}
		s.oneOfEach("the Inspector called")
	})
}

// inspectorCLI is test/peers' mcp-inspector (make deps installs it); the
// test is skipped without it, or fails under CI.
func inspectorCLI(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "peers", "node_modules", ".bin", "mcp-inspector"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("the MCP Inspector is not installed (make deps installs it): %v", err)
		}
		t.Fatalf("run make deps: %v", err)
	}
	return bin
}

// TestBareAppStartsMcptrayWithTheSession: with no mcptray running, the one
// that an app's mcptray stdio starts, with the SDK's environment, has the
// person's session: the session bus at its usual place, so its keychain (a
// throwaway Secret Service here) keeps the gateway's token. A second app
// started the same way uses it.
func TestBareAppStartsMcptrayWithTheSession(t *testing.T) {
	t.Parallel()
	s := newBareSession(t)
	s.startKeyring()
	s.do("add", "a", "--", s.testServer, "-name", "a")

	first := startAppCmd(t, s.asApp(s.sdk, s.mcptray, "stdio"))
	initialize(t, first, "first-app")
	pid := toolText(t, first.waitCall(t, "mcp__a__started", s.serveLog))
	s.oneOfEach("the first app started mcptray")

	// It runs with the runtime folder and the session bus, the log says
	// so, and names no value.
	environ, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.mcptrays()[0].pid), "environ"))
	run := "/run/user/" + strconv.Itoa(os.Getuid())
	for _, kv := range []string{"XDG_RUNTIME_DIR=" + run, "DBUS_SESSION_BUS_ADDRESS=unix:path=" + run + "/bus"} {
		if !bytes.Contains(environ, []byte("\x00"+kv+"\x00")) {
			t.Errorf("the mcptray that stdio started lacks %s", kv)
		}
	}
	if log := s.serveLog(); !strings.Contains(log, "DBUS_SESSION_BUS_ADDRESS (the session bus in the runtime folder)") || strings.Contains(log, "unix:path=") {
		t.Errorf("the log does not say which environment mcptray was started with, or says a value:\n%s", log)
	}

	// The keychain: the gateway's HTTP face has its token, which the
	// mcptray keeps in it, and a command run as an app reaches it.
	gateway := func(args ...string) (info struct {
		Running bool
		URL     string
		Token   string
		Problem string
	}) {
		t.Helper()
		cmd := s.asApp(s.sdk, s.mcptray, append([]string{"gateway", "--json"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil {
			err = json.Unmarshal(out, &info)
		}
		if err != nil || !info.Running {
			t.Fatalf("mcptray gateway --json %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return info
	}
	if info := gateway("--show-token"); info.Problem != "" || info.Token == "" {
		t.Errorf("the mcptray that stdio started has no keychain: %q\n%s", info.Problem, s.serveLog())
	} else if got := httpCall(t, info.URL, info.Token, "mcp__a__started"); got != pid {
		t.Errorf("the HTTP face was answered by a process started at %s, want %s", got, pid)
	}

	second := startAppCmd(t, s.asApp(s.sdk, s.mcptray, "stdio"))
	initialize(t, second, "second-app")
	if got := toolText(t, second.waitCall(t, "mcp__a__started", s.serveLog)); got != pid {
		t.Errorf("the second app was answered by a process started at %s, want the one server, started at %s", got, pid)
	}
	s.oneOfEach("a second app connected")
}

// startKeyring starts a session bus at its usual place, the socket bus in
// the runtime folder, with a throwaway Secret Service on it (an unlocked
// gnome-keyring in the test's folders), until the test ends.
func (s *bareSession) startKeyring() {
	t := s.t
	t.Helper()
	for _, cmd := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(cmd); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s is needed (make deps installs it)", cmd)
			}
			t.Fatalf("run make deps: %s is missing", cmd)
		}
	}
	bus := "unix:path=" + filepath.Join(s.run, "bus")
	daemon := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address="+bus, "--print-address=1")
	daemon.Env = s.desktop
	out, err := daemon.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		daemon.Process.Kill()
		daemon.Wait()
	})
	// It prints its address once it listens.
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("dbus-daemon did not start: %v", err)
	}
	data := filepath.Join(s.dir, "data")
	keyring := exec.Command("gnome-keyring-daemon", "--unlock", "--components=secrets")
	keyring.Env = append(append([]string{}, s.desktop...), "DBUS_SESSION_BUS_ADDRESS="+bus, "XDG_DATA_HOME="+data)
	keyring.Stdin = strings.NewReader("test-keyring-" + strconv.Itoa(os.Getpid()))
	// It forks its daemon and returns once that answers on the bus.
	if b, err := keyring.CombinedOutput(); err != nil {
		t.Fatalf("gnome-keyring-daemon: %v\n%s", err, b)
	}
	t.Cleanup(func() {
		// It leaves when its bus goes; should it not, it goes here.
		for _, pid := range keyringDaemons(data) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// keyringDaemons are the gnome-keyring-daemon processes whose keyrings
// are in data.
func keyringDaemons(data string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if bytes.Contains(cmdline, []byte("gnome-keyring-daemon")) && bytes.Contains(environ, []byte("\x00XDG_DATA_HOME="+data+"\x00")) {
			out = append(out, pid)
		}
	}
	return out
}
