//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/service"
)

// serveDeadline bounds every wait in the serve tests: starting servers
// includes reading the login shell's environment, which may take seconds.
const serveDeadline = 30 * time.Second

// stopDeadline is how long mcptray serve may take to stop once signalled:
// the test servers exit as soon as their stdin closes.
const stopDeadline = 5 * time.Second

// TestServe runs mcptray serve as a person does, with real test servers
// under it, and stops it the way a terminal or a service manager does.
// It reads /proc, so it runs on Linux only.
func TestServe(t *testing.T) {
	t.Parallel()
	mcptray, testServer := Binary(t), TestServer(t)

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run("stops every server on "+signalName(sig), func(t *testing.T) {
			t.Parallel()
			s := startServe(t, mcptray, testServer, "a", "b")
			s.waitLines("both servers to connect", "a: connected", "b: connected")
			s.stop(sig)
			s.checkLog()
		})
	}

	t.Run("mcptray quit stops it and every server", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, mcptray, testServer, "a", "b")
		s.waitLines("both servers to connect", "a: connected", "b: connected")
		// Started with no desktop while it runs, mcptray says where it is.
		if out, err := s.run(); err != nil || !strings.Contains(out, "mcptray is already running for you, in the background") {
			t.Errorf("mcptray with no desktop while mcptray serve runs: %v\n%s", err, out)
		}
		s.stopBy("mcptray quit", func() {
			out, err := s.run("quit")
			if err != nil || !strings.Contains(out, "mcptray stopped") {
				t.Errorf("mcptray quit: %v\n%s", err, out)
			}
		})
		s.checkLog()
		if out, err := s.run("quit"); err != nil || out != "mcptray is not running.\n" {
			t.Errorf("mcptray quit with none running: %v\n%q", err, out)
		}
	})

	t.Run("commands go through it, so every server runs once", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, mcptray, testServer, "a")
		s.waitLines("a to connect", "a: connected")
		servers := s.servers()
		if len(servers) != 1 {
			t.Fatalf("%d test servers run, want 1: %+v", len(servers), servers)
		}
		// The tool answers with when the process that runs it started
		// (its pid is its sandbox's own): the serve's own server, not a
		// copy the command started.
		out, err := s.run("call", "a", "started")
		if err != nil {
			t.Fatalf("mcptray call a started: %v\n%s", err, out)
		}
		if started := strings.TrimSpace(out); started != servers[0].start {
			t.Errorf("the call was answered by a process started at %q, want the running server %d, started at %s", started, servers[0].pid, servers[0].start)
		}
		if out, err := s.run("status"); err != nil || !strings.Contains(out, "a ") {
			t.Errorf("status through the running mcptray: %v\n%s", err, out)
		}
		if got := s.servers(); len(got) != 1 || got[0] != servers[0] {
			t.Errorf("test servers after the commands: %+v, want only %+v", got, servers[0])
		}
		// A second serve is refused, in plain words.
		out, err = s.run("serve")
		if err == nil || !strings.Contains(out, "already running") || strings.Contains(out, "panic") {
			t.Errorf("a second serve: %v\n%s", err, out)
		}
		s.stop(syscall.SIGTERM)
	})

	t.Run("follows config changes", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, mcptray, testServer, "a", "b")
		s.waitLines("both servers to connect", "a: connected", "b: connected")
		s.add("c")
		s.waitLines("the new server to connect", "config changed: 1 added, 0 changed, 0 removed", "c: connected")
		servers := s.servers()
		if len(servers) != 3 {
			t.Errorf("%d test servers run after adding one, want 3: %+v", len(servers), servers)
		}

		s.remove("a")
		s.waitLines("the removal", "config changed: 0 added, 0 changed, 1 removed")
		i := slices.IndexFunc(servers, func(p proc) bool { return p.name == "a" })
		if i < 0 {
			t.Fatalf("no test server called a among %+v", servers)
		}
		s.waitGone("the removed server's process to end", servers[i])
		s.stop(syscall.SIGTERM)

		// A removed server is not coming back: once it is gone, nothing
		// may give it a connection state, as if it were still there.
		removed := slices.Index(s.seen, "config changed: 0 added, 0 changed, 1 removed")
		for _, l := range s.seen[removed:] {
			rest, ok := strings.CutPrefix(l, "a: ")
			state, _, _ := strings.Cut(rest, " ")
			var st service.State
			if ok && st.UnmarshalText([]byte(state)) == nil {
				t.Errorf("after a was removed, serve printed %q\n%s", l, s.output())
			}
		}
	})
}

func signalName(sig syscall.Signal) string {
	if sig == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}

// serve is one running mcptray serve.
type serve struct {
	t          *testing.T
	mcptray    string
	testServer string // this serve's own copy, so its processes are told apart
	env        []string
	cmd        *exec.Cmd
	stderr     *bytes.Buffer // read only after exited closes
	lines      chan string   // stdout, closed at its end
	seen       []string      // what was read from lines so far
	exited     chan struct{} // closed when cmd.Wait has returned waitErr
	waitErr    error
}

// startServe writes a config with the test server as each of names into a
// new home, and starts mcptray serve there.
func startServe(t *testing.T, mcptray, testServer string, names ...string) *serve {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	s := &serve{
		t: t, mcptray: mcptray, testServer: Own(t, testServer),
		env:    []string{"HOME=" + home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + runtimeDir(t)},
		stderr: &bytes.Buffer{}, lines: make(chan string, 100), exited: make(chan struct{}),
	}
	for _, name := range names {
		s.add(name)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(mcptray, "serve")
	s.cmd.Env = s.env
	s.cmd.Stdout = w
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting mcptray serve: %v", err)
	}
	w.Close()
	go func() {
		defer close(s.lines)
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	go func() { s.waitErr = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default: // a failed test left it running
			s.cmd.Process.Kill()
			<-s.exited
		}
	})
	return s
}

// add adds the test server as name with mcptray add.
func (s *serve) add(name string) {
	s.t.Helper()
	cmd := exec.Command(s.mcptray, "add", name, "--", s.testServer, "-name", name)
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("mcptray add %s: %v\n%s", name, err, out)
	}
}

// run runs another mcptray command in the serve's home and returns what
// it printed, stdout and stderr together.
func (s *serve) run(args ...string) (string, error) {
	cmd := exec.Command(s.mcptray, args...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// remove removes the server called name with mcptray remove.
func (s *serve) remove(name string) {
	s.t.Helper()
	cmd := exec.Command(s.mcptray, "remove", name)
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("mcptray remove %s: %v\n%s", name, err, out)
	}
}

// waitLines reads stdout until every one of want has been printed as a
// line, in any order.
func (s *serve) waitLines(what string, want ...string) {
	s.t.Helper()
	s.waitUntil(what, func() string {
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return slices.Contains(s.seen, w) })
		if len(missing) == 0 {
			return ""
		}
		return fmt.Sprintf("%q", missing)
	})
}

// waitPrefix reads stdout until a line that begins with prefix, read now
// or before, and returns the first such line.
func (s *serve) waitPrefix(what, prefix string) string {
	s.t.Helper()
	var found string
	s.waitUntil(what, func() string {
		for _, line := range s.seen {
			if strings.HasPrefix(line, prefix) {
				found = line
				return ""
			}
		}
		return fmt.Sprintf("a line beginning %q", prefix)
	})
	return found
}

// waitUntil reads stdout into s.seen until missing, which says what the
// lines seen lack, says nothing is.
func (s *serve) waitUntil(what string, missing func() string) {
	s.t.Helper()
	timer := time.NewTimer(serveDeadline)
	defer timer.Stop()
	for {
		lack := missing()
		if lack == "" {
			return
		}
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("waiting for %s: mcptray serve ended its output without %s\n%s", what, lack, s.output())
			}
			s.seen = append(s.seen, line)
		case <-timer.C:
			s.t.Fatalf("waited %v for %s; still missing %s\n%s", serveDeadline, what, lack, s.output())
		}
	}
}

// checkLog checks that serve wrote its start and its end, and the servers
// it started, to the log file in its home, and that mcptray logs shows them.
func (s *serve) checkLog() {
	s.t.Helper()
	home := strings.TrimPrefix(s.env[0], "HOME=")
	b, err := os.ReadFile(filepath.Join(home, ".local", "state", "mcptray", "logs", "mcptray.log"))
	if err != nil {
		s.t.Fatalf("mcptray serve wrote no log file: %v", err)
	}
	for _, want := range []string{`"msg":"mcptray serve starts"`, `"msg":"started stdio server","server":"a"`, `"msg":"mcptray serve stopped"`} {
		if !strings.Contains(string(b), want) {
			s.t.Errorf("the log file has no %s:\n%s", want, b)
		}
	}
	out, err := s.run("logs")
	if err != nil || !strings.Contains(out, "INFO  mcptray serve starts pid=") {
		s.t.Errorf("mcptray logs: %v\n%s", err, out)
	}
}

// output is what serve printed so far, for failure messages, with the
// log file's newest lines.
func (s *serve) output() string {
	out := "stdout:\n  " + strings.Join(s.seen, "\n  ")
	home := strings.TrimPrefix(s.env[0], "HOME=")
	if b, err := os.ReadFile(filepath.Join(home, ".local", "state", "mcptray", "logs", "mcptray.log")); err == nil {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		out += "\nlog:\n  " + strings.Join(lines[max(0, len(lines)-30):], "\n  ")
	}
	return out
}

// proc is a process, told apart from a later one with the same pid by
// when it started.
type proc struct {
	pid   int
	start string // field 22 of /proc/PID/stat, in clock ticks since boot
	name  string // the test server's -name
}

// servers returns the processes running this serve's test server, after
// checking that each is a child of mcptray or of its sandbox's launcher.
func (s *serve) servers() []proc {
	s.t.Helper()
	var out []proc
	for _, p := range running(s.testServer) {
		st, err := readStat(p.pid)
		if err != nil {
			continue // gone meanwhile
		}
		// A sandboxed server is the child of its launcher, which is
		// mcptray's; in namespaces of its own, the launcher's init stands
		// between them (launcher, init, server).
		if !s.descends(st.ppid, 3) {
			s.t.Errorf("test server %d is a child of %d, neither mcptray (%d) nor its launcher", p.pid, st.ppid, s.cmd.Process.Pid)
		}
		out = append(out, p)
	}
	return out
}

// descends reports whether pid is this serve's mcptray or one of its
// descendants at most depth-1 generations below it.
func (s *serve) descends(pid, depth int) bool {
	for ; depth > 0; depth-- {
		if pid == s.cmd.Process.Pid {
			return true
		}
		st, err := readStat(pid)
		if err != nil {
			return false
		}
		pid = st.ppid
	}
	return false
}

// stop sends sig to mcptray serve and checks that it says it stopped,
// exits 0 within stopDeadline, and leaves no test server behind, not even
// a zombie.
func (s *serve) stop(sig syscall.Signal) {
	s.t.Helper()
	s.stopBy(signalName(sig), func() {
		if err := s.cmd.Process.Signal(sig); err != nil {
			s.t.Fatal(err)
		}
	})
}

// stopBy stops mcptray serve with stop, which how names, and checks that
// it stops every server it ran, as on a signal.
func (s *serve) stopBy(how string, stop func()) {
	s.t.Helper()
	servers := s.servers()
	if len(servers) == 0 {
		s.t.Fatalf("no test server is running under mcptray serve\n%s", s.output())
	}
	stop()
	start := time.Now()
	timer := time.NewTimer(stopDeadline)
	defer timer.Stop()
	select {
	case <-s.exited:
		if s.waitErr != nil {
			s.t.Errorf("mcptray serve ended with %v after %s, want exit status 0\nstderr: %s", s.waitErr, how, s.stderr)
		}
	case <-timer.C:
		s.t.Fatalf("mcptray serve still runs %v after %s\n%s", stopDeadline, how, s.output())
	}
	took := time.Since(start)

	// The rest of stdout: its end comes with the process's, unless a
	// child kept the pipe.
	timer.Reset(stopDeadline)
drain:
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				break drain
			}
			s.seen = append(s.seen, line)
		case <-timer.C:
			s.t.Errorf("stdout of mcptray serve is still open %v after it exited", stopDeadline)
			break drain
		}
	}
	for _, want := range []string{"Stopping every server…", "Stopped in "} {
		if !slices.ContainsFunc(s.seen, func(l string) bool { return strings.HasPrefix(l, want) }) {
			s.t.Errorf("mcptray serve did not print %q on %s (exited after %v)\n%s\nstderr: %s",
				want, how, took.Round(time.Millisecond), s.output(), s.stderr)
		}
	}

	// mcptray has been reaped, so a server it left would be an orphan, and
	// one it failed to reap would have been reaped by init by now: a
	// server still there, in any state, is a leak.
	s.waitGone("every test server to end", append(servers, running(s.testServer)...)...)
}

// waitGone waits until none of procs exists, not even as a zombie, and
// kills any that outlive stopDeadline.
func (s *serve) waitGone(what string, procs ...proc) {
	s.t.Helper()
	// There is no event for another process's end: poll /proc.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timer := time.NewTimer(stopDeadline)
	defer timer.Stop()
	for {
		left := slices.DeleteFunc(slices.Clone(procs), func(p proc) bool { return !p.alive() })
		if len(left) == 0 {
			return
		}
		select {
		case <-tick.C:
			continue
		case <-timer.C:
		}
		for _, p := range left {
			st, _ := readStat(p.pid)
			s.t.Errorf("waited %v for %s: test server %s (pid %d) is still there, state %q, parent %d",
				stopDeadline, what, p.name, p.pid, st.state, st.ppid)
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
		return
	}
}

// running lists the processes whose program, as started, is bin.
func running(bin string) []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		if argv[0] != bin {
			continue
		}
		p := proc{pid: pid}
		if i := slices.Index(argv, "-name"); i > 0 && i+1 < len(argv) {
			p.name = argv[i+1]
		}
		if st, err := readStat(pid); err == nil {
			p.start = st.start
			out = append(out, p)
		}
	}
	return out
}

// alive reports whether p still exists, as a zombie too.
func (p proc) alive() bool {
	st, err := readStat(p.pid)
	return err == nil && st.start == p.start
}

type stat struct {
	state string // R, S, D, Z, …
	ppid  int
	start string
}

// readStat reads /proc/PID/stat. The command name in it may hold spaces and
// parentheses, so the fields are counted from the last ')'.
func readStat(pid int) (stat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, errors.New("no command name in /proc/PID/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state), f[1] field 4 (ppid), f[19] field 22 (starttime).
	if len(f) < 20 {
		return stat{}, io.ErrUnexpectedEOF
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return stat{}, err
	}
	return stat{state: f[0], ppid: ppid, start: f[19]}, nil
}
