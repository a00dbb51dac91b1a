package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// CheckOptions say how the check runs its probe.
type CheckOptions struct {
	// Launcher is what servers start through (mcptray-sandbox, or
	// mcptray itself as sandbox-exec).
	Launcher string
	// Probe is the probe's program and the arguments before its tries:
	// mcptray and ProbeArg.
	Probe []string
	// Version is mcptray's, kept in the report.
	Version string
	// Input turns the input the check made for a kind of server into
	// what mcptray gives such a server (core/conn's); nil takes it as it
	// is.
	Input func(k Kind, in Input) Input
	// Kinds are the kinds of server to try; nil for Kinds.
	Kinds []Kind
	// Proxy is mcptray's own egress proxy, which the kinds of server
	// whose network goes through it reach, as servers do; nil puts a
	// stand-in in its place, a listener that answers by closing.
	Proxy *CheckProxy
}

// Kernel is the kernel's release, as uname -r says it.
func Kernel() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// Check runs a hostile probe in a real sandbox, made as each kind of
// server gets it on this computer (in namespaces where it allows them),
// through o.Launcher, and tries every door of Doors that applies to that
// kind. It returns what held; an error only when ctx ended.
func Check(ctx context.Context, o CheckOptions) (Report, error) {
	r := Report{Time: time.Now().UTC(), Kernel: Kernel(), Version: o.Version, ABI: ABI(), Launcher: "go"}
	if filepath.Base(o.Launcher) == "mcptray-sandbox" {
		r.Launcher = "c"
	}
	switch {
	case o.Launcher == "":
		r.Err = "this mcptray has no sandbox launcher"
		return r, nil
	case len(o.Probe) == 0:
		r.Err = "no probe to run"
		return r, nil
	case r.ABI <= 0:
		r.Err = wordsNoKernel
		return r, nil
	}
	r.Namespaces = Isolation(o.Launcher)
	r.OwnProxy = o.Proxy != nil && o.Proxy.Port > 0
	kinds := o.Kinds
	if kinds == nil {
		kinds = Kinds
	}
	for _, k := range kinds {
		kr, err := checkKind(ctx, o, k, r.Namespaces)
		if err != nil {
			return r, err
		}
		r.Kinds = append(r.Kinds, kr)
	}
	return r, nil
}

// checkKind makes a scene, computes the policy of a server of kind k in
// it, runs the probe there with every door's try, and judges each.
func checkKind(ctx context.Context, o CheckOptions, k Kind, namespaces bool) (KindResult, error) {
	kr := KindResult{Kind: k}
	s, err := newScene(k, o.Proxy)
	if err != nil {
		kr.Err = err.Error()
		return kr, nil
	}
	defer s.close()
	// The person's login environment as servers get it (FromLogin), with
	// a token a profile exports, as ~/.profile may.
	env, _ := FromLogin([]string{"PATH=/usr/bin:/bin", "HOME=" + s.Home, "LANG=C.UTF-8", profileToken + "=a token the server must not get"})
	input := func(data string, args []string) Input {
		in := Input{Program: o.Probe[0], Args: args, Env: env, Home: s.Home, DataDir: data, Namespaces: namespaces}
		if k.Project {
			in.ProjectDir, in.Dir = s.Project, s.Project
		}
		if k.Proxy {
			in.EgressPort = s.ProxyPort
			if o.Proxy != nil && data != "" {
				in.EgressEnv = o.Proxy.Env(filepath.Base(data))
			}
		}
		if o.Input != nil {
			in = o.Input(k, in)
		}
		return in
	}
	if stop := s.startNeighbour(ctx, o, input); stop != nil {
		defer stop()
	}
	var doors []Door
	var tries []string
	for _, d := range Doors {
		if t := d.Try(s, k); t != "" {
			doors, tries = append(doors, d), append(tries, t)
		}
	}
	program := o.Probe[0]
	args := append(append([]string{}, o.Probe[1:]...), tries...)
	p, err := Default(input(s.Data, args))
	if err == nil {
		err = p.Prepare()
	}
	if err != nil {
		kr.Err = "making its sandbox: " + err.Error()
		return kr, nil
	}
	kr.Level = levelFor(p, ABI()).Words
	out, err := s.run(ctx, o.Launcher, p, program, append([]string{filepath.Base(program)}, args...), env)
	if ctx.Err() != nil {
		return kr, ctx.Err()
	}
	if err != nil {
		kr.Err = err.Error()
		return kr, nil
	}
	s.settle()
	lines := strings.Split(out, "\n")
	for i, d := range doors {
		got := "failed: the probe said nothing of it"
		if i < len(lines) {
			if v, ok := strings.CutPrefix(lines[i], tries[i]+" "); ok {
				got = v
			}
		}
		kr.Doors = append(kr.Doors, d.judge(s, k, namespaces, got))
	}
	return kr, nil
}

// run runs the probe in p through launcher and returns what it printed.
func (s *Scene) run(ctx context.Context, launcher string, p Policy, program string, argv, env []string) (string, error) {
	path, argv, env, err := Command(launcher, p, program, argv, env)
	if err != nil {
		return "", err
	}
	var out, errOut bytes.Buffer
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Dir: s.Data, Stdout: &out, Stderr: &errOut, WaitDelay: 5 * time.Second}
	if s.tty != nil { // a terminal of its own, for the tty door
		cmd.Stdin, cmd.SysProcAttr = s.tty, terminalAttr(cmd.SysProcAttr)
	}
	ln, err := Start(cmd, p, (*exec.Cmd).Start)
	if err != nil {
		return "", fmt.Errorf("starting the probe in its sandbox: %w", err)
	}
	if ln != nil { // the proxy, or its stand-in, in the server's own network
		defer ln.Close()
		go s.serve(ln)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stop()
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("the probe in its sandbox: %v: %s", err, strings.TrimSpace(errOut.String()))
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// startNeighbour starts another server in a sandbox of its own, as input
// makes it for its data folder and arguments: a probe that holds a
// secret in its arguments and a file in its shared memory, and waits.
// It returns what stops it, once it has made them; nil, with the
// neighbour's doors left out, when it could not be started.
func (s *Scene) startNeighbour(ctx context.Context, o CheckOptions, input func(data string, args []string) Input) func() {
	secret := fmt.Sprintf("sk-neighbour-%d", time.Now().UnixNano())
	shm := filepath.Join("/dev/shm", "mcptray-check-"+filepath.Base(s.Root))
	tries := []string{"hold:" + secret, "put:" + shm, "wait:"}
	args := append(append([]string{}, o.Probe[1:]...), tries...)
	p, err := Default(input(filepath.Dir(s.OtherData), args))
	if err == nil {
		err = p.Prepare()
	}
	if err != nil {
		return nil
	}
	path, argv, env, err := Command(o.Launcher, p, o.Probe[0], append([]string{filepath.Base(o.Probe[0])}, args...), input("", nil).Env)
	if err != nil {
		return nil
	}
	out := &lineCounter{}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Dir: filepath.Dir(s.OtherData), Stdout: out, WaitDelay: 5 * time.Second}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	ln, err := Start(cmd, p, (*exec.Cmd).Start)
	if err != nil {
		return nil
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		stdin.Close()
		<-exited
		if ln != nil {
			ln.Close()
		}
		os.Remove(shm) // where its shared memory was the computer's
	}
	if ln != nil {
		go s.serve(ln)
	}
	// It is ready once it has said how its first two tries went. One that
	// ended first never will: it is not waited for.
	ready, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	select {
	case <-out.reached(2):
	case <-exited:
	case <-ready.Done():
	}
	select {
	case <-out.reached(2):
	default:
		stop()
		return nil
	}
	s.Neighbour = secret
	if strings.Contains(out.String(), "put:"+shm+" ok") {
		s.NeighbourShm = shm
	}
	return stop
}

// lineCounter is a writer that tells when it has been written n lines.
type lineCounter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	waiters []lineWaiter
}

type lineWaiter struct {
	n    int
	done chan struct{}
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	lines := bytes.Count(c.buf.Bytes(), []byte("\n"))
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if lines >= w.n {
			close(w.done)
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
	return len(p), nil
}

// reached is closed once n lines were written.
func (c *lineCounter) reached(n int) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	done := make(chan struct{})
	if bytes.Count(c.buf.Bytes(), []byte("\n")) >= n {
		close(done)
	} else {
		c.waiters = append(c.waiters, lineWaiter{n, done})
	}
	return done
}

func (c *lineCounter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// profileToken is the variable the check's login environment exports,
// as a person's profile exports GITHUB_TOKEN.
const profileToken = "GITHUB_TOKEN"

// newScene makes a scene for a server of kind k in a new temporary
// folder.
func newScene(k Kind, proxy *CheckProxy) (*Scene, error) {
	root, err := os.MkdirTemp("", "mcptray-check-")
	if err != nil {
		return nil, fmt.Errorf("making the check's folder: %w", err)
	}
	s := &Scene{Root: root, Home: filepath.Join(root, "home"), reached: map[string]int{}, serve: acceptAndClose}
	s.closers = append(s.closers, func() { os.RemoveAll(root) })
	if master, tty, err := openTerminal(); err == nil { // else the tty door is left out
		s.Terminal, s.tty = tty.Name(), tty
		s.closers = append(s.closers, func() { tty.Close(); master.Close() })
	}
	fail := func(err error) (*Scene, error) {
		s.close()
		return nil, fmt.Errorf("making the check's scene: %w", err)
	}
	mcptray := filepath.Join(s.Home, ".config", "mcptray")
	s.Data = filepath.Join(mcptray, "servers", "probe-"+k.Name)
	s.Project = filepath.Join(s.Home, "code", "app")
	s.SSHKey = filepath.Join(s.Home, ".ssh", "id_ed25519")
	s.OtherData = filepath.Join(mcptray, "servers", "other", "memory.jsonl")
	s.Config = filepath.Join(mcptray, "config.json")
	s.ControlKey = filepath.Join(root, "run", "mcptray-"+strconv.Itoa(os.Getuid()), "control.key")
	s.SharedTmp = filepath.Join(os.TempDir(), filepath.Base(root)+"-planted")
	for _, f := range []string{s.SSHKey, s.OtherData, s.Config, s.ControlKey, filepath.Join(s.Project, "package.json"), filepath.Join(s.Home, ".bashrc")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(f, []byte("a secret the server must not read\n"), 0o600); err != nil {
			return fail(err)
		}
	}
	for _, d := range []string{filepath.Join(s.Home, ".npm", "_npx"), filepath.Join(s.Home, ".cache", "uv"), filepath.Join(s.Data, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fail(err)
		}
	}
	s.closers = append(s.closers, func() { os.Remove(s.SharedTmp) })
	// A named socket where the server may write: Landlock alone would let
	// it connect there.
	s.Socket = filepath.Join(s.Data, "bus")
	if err := s.listen("unix", s.Socket); err != nil {
		return fail(err)
	}
	s.Abstract = filepath.Base(root) + "-bus"
	if err := s.listen("unix", "@"+s.Abstract); err != nil {
		return fail(err)
	}
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	s.closers = append(s.closers, func() { udp.Close() })
	s.UDP = udp.LocalAddr().String()
	s.Dgram = filepath.Join(s.Data, "journal")
	dgram, err := net.ListenPacket("unixgram", s.Dgram)
	if err != nil {
		return fail(err)
	}
	s.closers = append(s.closers, func() { dgram.Close() })
	s.settle = func() {
		s.reached["udp"] = drainDatagrams(udp)
		n := drainDatagrams(dgram)
		for _, door := range []string{"dgram-sendto", "dgram-sendmsg", "dgram-connect"} {
			s.reached[door] += n // which of them got through, their outcomes say
		}
	}
	if s.RefusedPort, err = s.listenTCP("127.0.0.1:0"); err != nil {
		return fail(err)
	}
	if proxy != nil && proxy.Port > 0 { // mcptray's own
		s.ProxyPort, s.serve = proxy.Port, proxy.Serve
	} else if s.ProxyPort, err = s.listenTCP("127.0.0.1:0"); err != nil {
		return fail(err)
	}
	elsewhere := net.JoinHostPort("127.0.0.2", strconv.Itoa(s.ProxyPort))
	if _, err := s.listenTCP(elsewhere); err == nil {
		s.Elsewhere = elsewhere
	}
	s.OtherPID = os.Getpid()
	s.Marker = fmt.Sprintf("%d.%06d", 3600+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	s.closers = append(s.closers, func() { s.endLeftBehind() })
	return s, nil
}

// listen answers every connection at addr by closing it, until the scene
// closes.
func (s *Scene) listen(network, addr string) error {
	l, err := net.Listen(network, addr)
	if err != nil {
		return err
	}
	s.closers = append(s.closers, func() { l.Close() })
	go acceptAndClose(l)
	return nil
}

func (s *Scene) listenTCP(addr string) (int, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return 0, err
	}
	s.closers = append(s.closers, func() { l.Close() })
	go acceptAndClose(l)
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Scene) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// drainDatagrams counts the datagrams that reached c before one it sends itself
// now: those came from the probe, which has ended.
func drainDatagrams(c net.PacketConn) int {
	const mark = "the check's own datagram"
	if _, err := c.WriteTo([]byte(mark), c.LocalAddr()); err != nil {
		return 0
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n := 0
	buf := make([]byte, 128)
	for {
		m, _, err := c.ReadFrom(buf)
		if err != nil || string(buf[:m]) == mark {
			return n
		}
		n++
	}
}

// endLeftBehind ends the living processes that run /bin/sleep with the
// scene's marker, left behind by the probe, and says how many there were.
func (s *Scene) endLeftBehind() int {
	left := livingWith(s.Marker)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(left)
}

// livingWith reports the living processes that run /bin/sleep marker.
func livingWith(marker string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Equal(b, []byte("/bin/sleep\x00"+marker+"\x00")) {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err == nil && !bytes.Contains(stat[bytes.LastIndexByte(stat, ')'):], []byte(") Z")) {
			out = append(out, pid)
		}
	}
	return out
}

// acceptAndClose answers every connection to l by closing it.
func acceptAndClose(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}
