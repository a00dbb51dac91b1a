package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
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
	// BaseEnv is the environment to start from; nil means LoginEnv's.
	BaseEnv []string
	// StderrBytes is how much of the newest stderr to keep; 0 means 64 KiB.
	StderrBytes int
	// Grace is how long the server has between SIGTERM and SIGKILL; 0 means
	// 5 s. mcp-go's own Close kills the child (not its group) 5 s after
	// closing stdin, so a longer Grace helps only the rest of the group.
	Grace time.Duration
	// Logger receives what happens to the process, never its arguments,
	// environment or output (those may hold secrets); nil means discard.
	Logger *slog.Logger
}

// Stdio is an MCP transport to a server run as a child process, talking
// JSON-RPC over its stdin and stdout. It is mcp-go's stdio transport with
// mcptray's own process handling:
//
//   - the program is found on the PATH of the child's environment, which is
//     by default the person's login-shell environment (LoginEnv);
//   - the child leads a process group of its own (a job object on Windows),
//     and stopping it (Close, or the end of Start's context) reaches the whole
//     group: close stdin, SIGTERM, Grace, SIGKILL;
//   - a child that exits on its own is noticed at once: calls in flight
//     fail, whatever it left running in its group is stopped the same way,
//     then Done closes and ExitErr says why;
//   - the newest StderrBytes of stderr are kept in a ring, for the UI.
//
// # Who waits for the child
//
// A process can be waited for (reaped) only once, and mcp-go's Close calls
// cmd.Wait, so Stdio never does. It learns that the child exited from the
// OS without reaping it: waitid(WNOWAIT) on a pidfd on Linux, a kqueue
// NOTE_EXIT on macOS and the BSDs, a wait on a process handle on Windows.
// Nothing reaps the child before that watch is set up, so the pid it
// watches is the child's. Once the child has exited (or must be stopped),
// one goroutine calls mcp-go's Close, which reaps it; that goroutine's
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

	// Written by command, which runs inside inner.Start on Start's
	// goroutine; read after, by Start and the supervisor it starts.
	cmd        *exec.Cmd
	errR, errW *os.File

	mu       sync.Mutex
	phase    stdioPhase
	cancel   context.CancelCauseFunc // ends the life Start began
	pid      int
	onLost   func(error)
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
	s := &Stdio{cfg: cfg, stderr: newByteRing(cfg.StderrBytes), done: make(chan struct{})}
	s.inner = mcptransport.NewStdioWithOptions(cfg.Command, nil, cfg.Args,
		mcptransport.WithCommandFunc(s.command),
		mcptransport.WithCommandLogger(cfg.Logger))
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

	err := s.inner.Start(ctx)
	if s.errW != nil {
		s.errW.Close() // the child has its own copy, or there is no child
	}
	if err != nil {
		if s.errR != nil {
			s.errR.Close()
		}
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
		_ = s.inner.Close()
		s.errR.Close()
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

// command builds the child's exec.Cmd for mcp-go, which then adds the stdin
// and stdout pipes and starts it. stderr goes to a pipe of our own (an
// *os.File, so exec copies nothing and cmd.Wait waits for no copying), which
// drain empties into the ring; mcp-go leaves a Cmd's Stderr alone when set.
func (s *Stdio) command(ctx context.Context, name string, _ []string, args []string) (*exec.Cmd, error) {
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
	env := childEnv(base, s.cfg.Env, dir)
	path, err := lookPath(name, env, dir)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Args[0] = name // as a shell would: argv[0] is the name typed
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = sysProcAttr()
	wrapScript(cmd, env)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making its stderr pipe: %w", err)
	}
	cmd.Stderr = w
	s.cmd, s.errR, s.errW = cmd, r, w
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

	var exit error
	switch {
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
	s.errR.Close()
	g.release()

	if crashed {
		s.cfg.Logger.Warn("stdio server ended by itself", "pid", g.pid, "why", exit)
	} else {
		s.cfg.Logger.Info("stopped stdio server", "pid", g.pid, "why", exit)
	}
	s.end(exit, stopErr)
	if crashed {
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
	// mcp-go's Close closes stdin, fails the calls in flight and waits for
	// the child: the one cmd.Wait. Its own SIGTERM and SIGKILL reach only the
	// child, 2 and 5 s after stdin closes; ours reach the group.
	innerDone := make(chan error, 1)
	go func() { innerDone <- s.inner.Close() }()

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
	innerErr := <-innerDone
	// mcp-go's Close returns before its cmd.Wait has returned only when it
	// gives up (ErrChildShutdownTimeout): then ProcessState is not ours to read.
	reaped = g.hasExited() && !errors.Is(innerErr, mcptransport.ErrChildShutdownTimeout)
	return reaped, err
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

// ExitErr says why the child ended, in plain words (an *ExitError, or
// Start's error); nil until Done is closed.
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
func (s *Stdio) SendRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	return s.inner.SendRequest(ctx, req)
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

func (e *ExitError) Error() string {
	var how string
	switch {
	case e.Signal != 0:
		how = fmt.Sprintf("killed by signal %d", e.Signal)
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
