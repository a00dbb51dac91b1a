package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/rawio"
	"github.com/mcptray/mcptray/core/sandbox"
)

const (
	defaultStderrBytes = 64 << 10
	defaultGrace       = 5 * time.Second
	// stdinGrace is how long a stopping server has to exit by itself once its
	// stdin is closed, before SIGTERM: the MCP spec's order is close stdin,
	// wait, SIGTERM, wait, SIGKILL. It is never longer than Grace.
	stdinGrace = time.Second
	// killWait bounds waiting for the group to end after SIGKILL, which no
	// process can ignore; only one stuck in the kernel outlasts it.
	killWait = 2 * time.Second
	// drainWait bounds reading the rest of stderr once the group has ended.
	// Only a process that left the group can still hold the pipe open.
	drainWait = 500 * time.Millisecond
)

// StdioConfig says what to run and how.
type StdioConfig struct {
	// Command is the program: a name looked up on the child's PATH (not
	// mcptray's), or a path, relative to Dir if not absolute.
	Command string
	Args    []string
	// Env is the server's own variables, on top of BaseEnv.
	Env map[string]string
	// Dir is the working folder; "" means the person's home.
	Dir string
	// BaseEnv is the person's environment; nil means LoginEnv's. The
	// server gets of it only what sandbox.LoginVar passes (what runs
	// programs), with or without a sandbox: the rest reaches it only
	// through Env.
	BaseEnv []string
	// StderrBytes is how much of the newest stderr to keep; 0 means 64 KiB.
	StderrBytes int
	// Grace is how long the server has between SIGTERM and SIGKILL; 0 means
	// 5 s.
	Grace time.Duration
	// Logger receives what happens to the process, never its arguments,
	// environment or output (those may hold secrets); nil means discard.
	Logger *slog.Logger
	// Sandbox, when set, runs the program inside a sandbox; nil runs it as
	// it is.
	Sandbox *Sandbox
}

// Sandbox says how to run a server inside a sandbox (core/sandbox).
type Sandbox struct {
	// Launcher is mcptray's own program, which applies the policy and then
	// executes the server in its place (mcptray sandbox-exec), keeping its
	// process id and group; unused on macOS, where sandbox-exec does it.
	Launcher string
	// Policy computes the policy once the program is found: path is the
	// program's, env the environment it runs with.
	Policy func(path string, env []string) (sandbox.Policy, error)
	// Bridge serves mcptray's egress proxy on a listener inside the
	// server's own network, until the listener closes (when the server
	// has stopped); nil leaves a server that has its own network with
	// nothing to reach.
	Bridge func(net.Listener)
}

// Stdio is an MCP transport to a server run as a child process, talking
// JSON-RPC over its stdin and stdout. It is mcp-go's stdio transport over
// streams (NewIO) with mcptray's own process handling:
//
//   - the program is found on the PATH of the child's environment: of the
//     person's login-shell environment (LoginEnv), what runs programs
//     (sandbox.FromLogin), and the server's own variables;
//   - the child leads a process group of its own (a job object on Windows),
//     and stopping it (Close, or the end of Start's context) reaches the whole
//     group: close stdin, SIGTERM, Grace, SIGKILL;
//   - a child that exits on its own is noticed at once: calls in flight
//     fail, whatever it left running in its group is stopped the same way,
//     then Done closes and ExitErr says why;
//   - the newest StderrBytes of stderr are kept in a ring, for the UI;
//   - a line on stdout longer than MaxMessageSize stops the server, and
//     ExitErr says why (mcp-go would read it into memory however long);
//   - the answers to SendRequest are taken off stdout before mcp-go's reader
//     sees them and decoded once (replies): mcp-go decodes each twice.
//
// # Who waits for the child
//
// A process can be waited for (reaped) only once, and stop is the one place
// that does. Until then Stdio learns that the child exited from the OS
// without reaping it: waitid(WNOWAIT) on a pidfd on Linux, a kqueue
// NOTE_EXIT on macOS and the BSDs, a wait on a process handle on Windows.
// Nothing reaps the child before that watch is set up, so the pid it
// watches is the child's. Once the child has exited (or must be stopped),
// one goroutine closes mcp-go's side and calls cmd.Wait; that goroutine's
// return is what makes reading cmd.ProcessState safe. Watching stdout for
// EOF would not do: a grandchild holding stdout keeps it open after the
// child has died.
//
// Start's context is not handed to exec.CommandContext, whose cancel would
// reach only the child: its end starts the same stop as Close.
type Stdio struct {
	cfg    StdioConfig
	inner  *mcptransport.Stdio
	stderr *byteRing

	// The child's stdin and stdout as mcp-go sees them; they reach the
	// child's pipes once Start has made them.
	stdin  *lateWriter
	stdout *limitReader
	// replies answers SendRequest from stdout, before mcp-go reads it.
	replies *replies

	// Written by command on Start's goroutine; read after, by Start and the
	// supervisor it starts. inR, outW and errW are the child's ends.
	cmd        *exec.Cmd
	inR, inW   *os.File
	outR, outW *os.File
	errR, errW *os.File
	// policy is the sandbox it runs in (nil for none); bridge the proxy's
	// listener inside its own network, closed with the pipes.
	policy *sandbox.Policy
	bridge net.Listener

	mu       sync.Mutex
	phase    stdioPhase
	cancel   context.CancelCauseFunc // ends the life Start began
	pid      int
	onLost   func(error)
	fault    error // why mcptray stopped a misbehaving server, if it did
	exitErr  error // why the child ended; set before done closes
	closeErr error // what Close returns; set before done closes
	done     chan struct{}
}

type stdioPhase int

const (
	phaseNew stdioPhase = iota
	phaseStarting
	phaseRunning
	phaseEnded
)

var _ mcptransport.BidirectionalInterface = (*Stdio)(nil)

// errNeverStarted is ExitErr's answer for a transport closed before Start.
var errNeverStarted = errors.New("it was never started")

// NewStdio returns a transport that runs cfg's program on Start. Nothing runs
// before that; NewStdio only checks cfg.
func NewStdio(cfg StdioConfig) (*Stdio, error) {
	if strings.TrimSpace(cfg.Command) == "" {
		return nil, errors.New("no program to run: the command is empty")
	}
	if cfg.StderrBytes <= 0 {
		cfg.StderrBytes = defaultStderrBytes
	}
	if cfg.Grace <= 0 {
		cfg.Grace = defaultGrace
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Args = slices.Clone(cfg.Args)
	cfg.Env = maps.Clone(cfg.Env)
	cfg.BaseEnv = slices.Clone(cfg.BaseEnv) // nil stays nil: it means LoginEnv
	s := &Stdio{cfg: cfg, stderr: newByteRing(cfg.StderrBytes), done: make(chan struct{}), stdin: &lateWriter{}}
	s.stdout = &limitReader{limit: MaxMessageSize, mode: limitLine, onExceed: s.misbehaved}
	// mcp-go spawns a process itself only through exec's StdoutPipe, which
	// leaves no place to bound a line; over streams it reads ours.
	s.replies = newReplies(s.stdout)
	s.inner = mcptransport.NewIO(s.replies, s.stdin, nil)
	mcptransport.WithCommandLogger(cfg.Logger)(s.inner)
	return s, nil
}

// Start runs the program. ctx is the child's whole life, not only its start:
// when it ends, the child is stopped as by Close. Finding the login-shell
// environment may take a few seconds the first time. Calling Start again
// does nothing; after a failed Start or a Close it returns an error.
func (s *Stdio) Start(ctx context.Context) error {
	s.mu.Lock()
	switch s.phase {
	case phaseStarting, phaseRunning:
		s.mu.Unlock()
		return nil
	case phaseEnded:
		s.mu.Unlock()
		return mcptransport.ErrTransportClosed
	}
	s.phase = phaseStarting
	ctx, cancel := context.WithCancelCause(ctx)
	s.cancel = cancel
	s.mu.Unlock()

	if err := s.spawn(ctx); err != nil {
		s.closePipes()
		cancel(nil)
		err = fmt.Errorf("starting %s: %w", s.cfg.Command, err)
		s.end(err, nil)
		return err
	}
	drained := make(chan struct{})
	go s.drain(drained)

	g, err := startGroup(s.cmd.Process, s.cfg.Logger)
	if err != nil {
		// Unwatched, the child could not be looked after: end it now.
		_ = s.cmd.Process.Kill()
		s.replies.close()
		_ = s.inner.Close()
		_ = s.cmd.Wait()
		s.closePipes()
		cancel(nil)
		err = fmt.Errorf("starting %s: watching its process: %w", s.cfg.Command, err)
		s.end(err, nil)
		return err
	}
	s.mu.Lock()
	s.pid = g.pid
	s.phase = phaseRunning
	s.mu.Unlock()
	s.cfg.Logger.Info("started stdio server", "command", s.cfg.Command, "pid", g.pid)
	go s.supervise(ctx, g, drained)
	return nil
}

// spawn builds the child's command and starts it, with stdin, stdout and
// stderr on pipes of our own, closes the child's ends here (the child has
// its copies, or there is no child), and has mcp-go start reading.
func (s *Stdio) spawn(ctx context.Context) error {
	cmd, err := s.command(ctx)
	if err != nil {
		return err
	}
	if s.policy != nil {
		// In namespaces of its own when the policy says so; the
		// listener is the proxy's port inside its network.
		s.bridge, err = sandbox.Start(cmd, *s.policy, startProcess)
		if s.bridge != nil && s.cfg.Sandbox.Bridge != nil {
			s.cfg.Sandbox.Bridge(s.bridge)
		}
	} else {
		err = startProcess(cmd)
	}
	s.inR.Close()
	s.outW.Close()
	s.errW.Close()
	if err != nil {
		return err
	}
	// Read and written with raw system calls (rawio): each call through
	// the gateway reads and writes these once.
	s.stdout.r = rawio.Reader(s.outR)
	s.stdin.set(struct {
		io.Writer
		io.Closer
	}{rawio.Writer(s.inW), s.inW})
	if err := s.inner.Start(ctx); err != nil { // over streams it only starts reading
		forgetStarted(cmd.Process.Pid)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return nil
}

// closePipes closes mcptray's ends of the child's pipes (and the child's
// ends, if spawn did not get to it); closing one twice does no harm.
func (s *Stdio) closePipes() {
	for _, f := range []*os.File{s.inR, s.inW, s.outR, s.outW, s.errR, s.errW} {
		if f != nil {
			f.Close()
		}
	}
	if s.bridge != nil {
		s.bridge.Close() // the proxy stops serving the server's network
	}
}

// command builds the child's exec.Cmd, its stdin, stdout and stderr on
// pipes of our own: *os.Files, so exec copies nothing and cmd.Wait waits for
// no copying. mcp-go reads stdout, through the line limit; drain empties
// stderr into the ring.
func (s *Stdio) command(ctx context.Context) (*exec.Cmd, error) {
	name, args := s.cfg.Command, s.cfg.Args
	base := s.cfg.BaseEnv
	if base == nil {
		base = LoginEnv(ctx, s.cfg.Logger)
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	dir := s.cfg.Dir
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = home
		}
	}
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("its working folder %s does not exist", dir)
		}
	}
	base, _ = sandbox.FromLogin(base) // not the person's tokens: its config names what it needs
	env := childEnv(base, s.cfg.Env, dir)
	path, err := lookPath(name, env, dir)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Args[0] = name // as a shell would: argv[0] is the name typed
	if sb := s.cfg.Sandbox; sb != nil {
		p, err := sb.Policy(path, env)
		if err != nil {
			return nil, fmt.Errorf("making its sandbox: %w", err)
		}
		run, argv, boxed, err := sandbox.Command(sb.Launcher, p, path, cmd.Args, env)
		if err != nil {
			return nil, err
		}
		s.policy = &p
		cmd = exec.Command(run)
		cmd.Args, env = argv, boxed
	}
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = sysProcAttr()
	wrapScript(cmd, env)
	var err1, err2, err3 error
	s.inR, s.inW, err1 = os.Pipe()
	s.outR, s.outW, err2 = os.Pipe()
	s.errR, s.errW, err3 = os.Pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("making its pipes: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.inR, s.outW, s.errW
	s.cmd = cmd
	return cmd, nil
}

// drain copies the child's stderr into the ring until every writer has
// closed the pipe or the supervisor closes it.
func (s *Stdio) drain(drained chan<- struct{}) {
	defer close(drained)
	buf := make([]byte, 32<<10)
	for {
		n, err := s.errR.Read(buf)
		s.stderr.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// supervise waits for the child to exit or for its life to end, then stops
// the group, reaps the child and says why it ended.
func (s *Stdio) supervise(ctx context.Context, g *procGroup, drained <-chan struct{}) {
	select {
	case <-ctx.Done():
	case <-g.exited:
	}
	crashed := g.hasExited() // it ended before anyone asked it to
	reaped, stopErr := s.stop(g)
	s.outR.Close() // a grandchild may hold stdout open: mcp-go's reader must end
	fault := s.faultErr()

	var exit error
	switch {
	case fault != nil:
		exit = fault
	case reaped && s.cmd.ProcessState != nil:
		code, sig := exitStatus(s.cmd.ProcessState)
		exit = &ExitError{Code: code, Signal: sig, Stopped: !crashed}
	case g.hasExited():
		exit = &ExitError{Code: -1, Stopped: !crashed}
	default:
		exit = stopErr
	}

	timer := time.NewTimer(drainWait)
	select {
	case <-drained:
	case <-timer.C:
	}
	timer.Stop()
	s.closePipes()
	g.release()

	switch {
	case crashed:
		s.cfg.Logger.Warn("stdio server ended by itself", "pid", g.pid, "why", exit)
	case fault != nil:
		s.cfg.Logger.Warn("stopped a stdio server that broke the protocol", "pid", g.pid, "why", exit)
	default:
		s.cfg.Logger.Info("stopped stdio server", "pid", g.pid, "why", exit)
	}
	s.end(exit, stopErr)
	if crashed || fault != nil {
		s.mu.Lock()
		onLost := s.onLost
		s.mu.Unlock()
		if onLost != nil {
			onLost(exit)
		}
	}
}

// stop ends the child and its group: close stdin, wait a moment, SIGTERM to
// the group, Grace, SIGKILL to the group. It reports whether the child was
// reaped (so cmd.ProcessState may be read), and an error if it would not die.
func (s *Stdio) stop(g *procGroup) (reaped bool, err error) {
	// mcp-go's Close fails the calls in flight and closes stdin; then the
	// one cmd.Wait reaps the child once it has exited.
	waited := make(chan struct{})
	go func() {
		s.replies.close()
		_ = s.inner.Close()
		_ = s.cmd.Wait()
		close(waited)
	}()

	grace := s.cfg.Grace
	first := min(stdinGrace, grace)
	if !g.waitGone(first) {
		wait := grace
		if !g.terminate() {
			wait = grace - first // nothing sent: closing stdin was the request
		}
		if !g.waitGone(wait) {
			s.cfg.Logger.Warn("stdio server did not stop when asked; killing it", "pid", g.pid, "grace", grace)
			g.kill()
			if !g.waitGone(killWait) {
				if !g.hasExited() {
					err = fmt.Errorf("process %d did not exit, even on SIGKILL", g.pid)
				}
				s.cfg.Logger.Warn("processes of a stdio server outlived SIGKILL", "pid", g.pid)
			}
		}
	}
	if !g.hasExited() {
		// Wait would block until it does: leave it to its goroutine, and
		// ProcessState unread.
		return false, err
	}
	<-waited // prompt: the child is a zombie, and exec copies nothing
	return true, err
}

// misbehaved stops a server that broke the protocol in a way mcptray cannot
// read past (a line over MaxMessageSize); ExitErr then says why.
func (s *Stdio) misbehaved(err error) {
	s.mu.Lock()
	if s.fault == nil {
		s.fault = err
	}
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel(err)
	}
}

func (s *Stdio) faultErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fault
}

// end records how the transport ended and closes done.
func (s *Stdio) end(exit, closeErr error) {
	s.mu.Lock()
	s.phase = phaseEnded
	s.exitErr, s.closeErr = exit, closeErr
	s.mu.Unlock()
	close(s.done)
}

// Close stops the child and everything in its group: it closes stdin, gives
// the server a moment to exit, sends SIGTERM to the group, waits up to Grace,
// then sends SIGKILL to the group; it returns once the child is reaped.
// Calls in flight fail at once. Close may be called any number of times,
// from any goroutine; each call waits for the stop and returns nil, or an
// error if the child would not die.
func (s *Stdio) Close() error {
	s.mu.Lock()
	switch s.phase {
	case phaseNew:
		s.phase = phaseEnded
		s.exitErr = errNeverStarted
		s.mu.Unlock()
		close(s.done)
		s.replies.close()
		return s.inner.Close() // nothing runs; later calls get ErrTransportClosed
	case phaseStarting, phaseRunning:
		s.cancel(mcptransport.ErrTransportClosed)
	}
	s.mu.Unlock()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeErr
}

// Done is closed once the child has exited, by itself or stopped, and the
// rest of its group has been stopped; also when Start fails or Close is
// called before Start.
func (s *Stdio) Done() <-chan struct{} { return s.done }

// ExitErr says why the child ended, in plain words (an *ExitError, Start's
// error, or why mcptray stopped a server that broke the protocol, such as a
// *MessageTooLargeError); nil until Done is closed.
func (s *Stdio) ExitErr() error {
	select {
	case <-s.done:
	default:
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitErr
}

// Stderr returns the newest of what the child wrote to stderr, at most
// StderrBytes of it, as valid UTF-8. It stays readable after the child ends.
func (s *Stdio) Stderr() string { return s.stderr.String() }

// Pid is the child's process id (and its process group's), 0 before Start.
func (s *Stdio) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pid
}

// SendRequest implements mcp-go's transport.Interface.
// A request cut short because mcptray stopped a misbehaving server fails
// with the reason, not mcp-go's "transport closed".
func (s *Stdio) SendRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	resp, err := s.replies.send(ctx, req, s.stdin)
	return resp, s.why(err)
}

// SendRequestAsync writes req to the server and returns without waiting
// for its answer: done gets it, or why there is none, once. The answer
// comes on the goroutine that reads the server's output, so done must not
// wait on anything; hand slow work to a goroutine of its own. When
// SendRequestAsync returns an error, nothing was sent and done is never
// called. The errors are SendRequest's.
func (s *Stdio) SendRequestAsync(ctx context.Context, req mcptransport.JSONRPCRequest, done func(*mcptransport.JSONRPCResponse, error)) error {
	err := s.replies.sendAsync(ctx, req, s.stdin, func(resp *mcptransport.JSONRPCResponse, err error) {
		done(resp, s.why(err))
	})
	return s.why(err)
}

// why is err, or the reason mcptray stopped a misbehaving server when
// that cut a request short.
func (s *Stdio) why(err error) error {
	if err != nil {
		if fault := s.faultErr(); fault != nil {
			return fault
		}
	}
	return err
}

// SendNotification implements mcp-go's transport.Interface.
func (s *Stdio) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	return s.inner.SendNotification(ctx, n)
}

// SetNotificationHandler implements mcp-go's transport.Interface.
func (s *Stdio) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	s.inner.SetNotificationHandler(h)
}

// SetRequestHandler implements mcp-go's transport.BidirectionalInterface:
// requests from the server (elicitation, roots, sampling) go to h.
func (s *Stdio) SetRequestHandler(h mcptransport.RequestHandler) {
	s.inner.SetRequestHandler(h)
}

// SetConnectionLostHandler makes mcp-go's Client.OnConnectionLost work: h is
// called with ExitErr's answer when the child ends by itself (not on Close).
func (s *Stdio) SetConnectionLostHandler(h func(error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onLost = h
}

// GetSessionId implements mcp-go's transport.Interface; stdio has no session.
func (s *Stdio) GetSessionId() string { return "" }

// ExitError says how a server's process ended.
type ExitError struct {
	Code    int  // exit status; -1 if a signal ended it or it is unknown
	Signal  int  // the signal that ended it (Unix only), or 0
	Stopped bool // mcptray was stopping it (Close, or Start's context ended)
}

// Error says how the process ended as what follows "the server": "exited
// with status 3", "was killed by signal 9 (SIGKILL)", "stopped by mcptray
// (exited with status 0)".
func (e *ExitError) Error() string {
	var how string
	switch {
	case e.Signal != 0:
		how = fmt.Sprintf("killed by signal %d", e.Signal)
		if name := signalName(e.Signal); name != "" {
			how += " (" + name + ")"
		}
		if !e.Stopped {
			return "was " + how // "the server was killed by signal 9 (SIGKILL)"
		}
	case e.Code == -1:
		how = "exited (how is unknown)"
	case e.Code < 0 || e.Code > 0xffff: // a Windows NTSTATUS, read in hex
		how = fmt.Sprintf("exited with status %#x", uint32(e.Code))
	default:
		how = fmt.Sprintf("exited with status %d", e.Code)
	}
	if e.Stopped {
		return "stopped by mcptray (" + how + ")"
	}
	return how
}

// lateWriter is the child's stdin as mcp-go holds it from NewStdio on: it
// writes nowhere until Start gives it the pipe.
type lateWriter struct {
	mu     sync.Mutex
	w      io.WriteCloser
	closed bool
}

func (l *lateWriter) set(w io.WriteCloser) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		w.Close()
		return
	}
	l.w = w
}

func (l *lateWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	w := l.w
	l.mu.Unlock()
	if w == nil {
		return 0, errors.New("the server is not running")
	}
	return w.Write(p)
}

func (l *lateWriter) Close() error {
	l.mu.Lock()
	w := l.w
	l.closed = true
	l.mu.Unlock()
	if w == nil {
		return nil
	}
	return w.Close()
}
