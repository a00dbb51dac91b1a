package conn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/tools"
	"github.com/mcptray/mcptray/core/transport"
)

// serverConn is one server's connection and the goroutine that owns it.
type serverConn struct {
	m     *Manager
	entry config.Entry
	log   *slog.Logger

	ctx    context.Context // this server's life; stop cancels it
	cancel context.CancelFunc
	// first is the place in the window Apply queued for the first
	// attempt; the loop's own goroutine takes it.
	first *ticket
	kick  chan struct{} // asks the loop to reconnect now
	done  chan struct{} // closed when the loop has ended and its processes are gone

	mu       sync.Mutex
	status   Status
	changed  chan struct{} // closed and replaced at every change, for waiters
	sess     *session      // the live connection while connected
	tools    []tools.Tool
	failures int
	stderr   func() string        // the last session's stderr tail (or a failed start's), kept after it ends
	authErr  *transport.AuthError // the challenge that last moved it to NeedsAuth
	// listsStarted numbers the re-lists of tools; listShown is the number
	// of the one whose list tools holds (see relist).
	listsStarted, listShown uint64
	// promptsChanged counts the server's notices that its prompts
	// changed.
	promptsChanged uint64
}

func newServerConn(m *Manager, e config.Entry) *serverConn {
	ctx, cancel := context.WithCancel(m.ctx)
	return &serverConn{
		m:       m,
		entry:   e,
		log:     m.opts.Logger.With("server", e.Name),
		ctx:     ctx,
		cancel:  cancel,
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		status:  Status{State: Pending, Since: m.opts.Now()},
		changed: make(chan struct{}),
	}
}

func (c *serverConn) start() {
	c.m.wg.Add(1)
	go c.run()
}

// stop ends the connection and its processes; it does not wait (Manager.Close
// waits for every server through its WaitGroup).
func (c *serverConn) stop() { c.cancel() }

// set moves the server to state with why as its error, and tells everyone.
func (c *serverConn) set(state State, why string) {
	c.mu.Lock()
	next, err := c.status.Transition(state, c.m.opts.Now(), why)
	if err != nil {
		// The loop below only makes allowed moves; this is a bug, but
		// not one worth stopping a server for.
		c.log.Error("state change refused", "err", err)
		c.mu.Unlock()
		return
	}
	c.status = next
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	c.log.Debug("state", "state", state, "why", why)
	c.m.events.Publish(Event{Server: c.entry.Name, Status: next})
}

func (c *serverConn) info() ServerInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := ServerInfo{
		Name: c.entry.Name, NameHidden: c.entry.NameHidden, Scope: c.entry.Scope, Transport: c.entry.Transport,
		Origin: c.entry.Origin, Status: c.status, Failures: c.failures, PromptsChanged: c.promptsChanged,
	}
	if c.status.State == Connected {
		i.Tools = append([]tools.Tool(nil), c.tools...)
	}
	if c.stderr != nil {
		i.Stderr = c.stderr()
	}
	return i
}

// run is the server's life: connect, watch, and after a failure wait and
// connect again, until stop.
func (c *serverConn) run() {
	defer c.m.wg.Done()
	defer close(c.done)
	defer func() {
		if c.first != nil { // never used: let the next one in
			c.first.release()
		}
	}()
	switch {
	case c.entry.Approval == config.Undecided:
		c.set(AwaitingApproval, "waits for your approval")
		return
	case c.entry.Approval == config.Denied:
		c.set(Disabled, "you denied it")
		return
	case c.entry.Disabled:
		c.set(Disabled, "turned off in its config")
		return
	}
	for {
		err := c.connect()
		if c.ctx.Err() != nil {
			return
		}
		var wait time.Duration
		switch {
		case err == nil:
			lost := c.watch()
			c.endSession()
			if c.ctx.Err() != nil {
				return
			}
			if lost == nil { // asked to reconnect: no failure, no wait
				c.set(Pending, "reconnecting")
				continue
			}
			wait = c.fail(plain(lost))
		case transport.IsAuthError(err):
			c.noteAuth(err)
			c.set(NeedsAuth, plain(err))
			wait = NeedsAuthTTL // nobody probes an expired sign-in before then
		default:
			wait = c.fail(plain(err))
		}
		c.log.Info("will retry", "in", wait.Round(time.Millisecond), "err", err)
		t := time.NewTimer(wait)
		select {
		case <-c.ctx.Done():
			t.Stop()
			return
		case <-c.kick:
			t.Stop()
		case <-t.C:
		}
		c.set(Pending, "")
	}
}

// fail records one more failure in a row, and returns how long to wait
// before the next attempt.
func (c *serverConn) fail(why string) time.Duration {
	c.mu.Lock()
	c.failures++
	n := c.failures
	c.mu.Unlock()
	c.set(Failed, why)
	return backoff(n, c.m.opts.MinBackoff, c.m.opts.MaxBackoff)
}

// connects reports whether run will try to connect: the server is
// approved (or needs no approval) and turned on.
func (c *serverConn) connects() bool {
	return c.entry.Approval != config.Undecided && c.entry.Approval != config.Denied && !c.entry.Disabled
}

// window is the sliding window the server's attempts queue for.
func (c *serverConn) window() *window {
	if c.entry.Transport.Remote() {
		return c.m.remote
	}
	return c.m.local
}

// connect waits for a place in the window, then connects and lists tools.
// A stdio server's process may start a little earlier, in a place to warm
// up in (window.go). The place is given up as soon as the handshake is
// done: the window bounds processes starting at once, not servers being
// asked for tools. How long the handshake took in its place is remembered
// for the next start's queue.
func (c *serverConn) connect() error {
	t := c.first
	c.first = nil
	if t == nil {
		t = c.window().enqueue(c.m.expected(&c.entry))
		c.window().dispatch()
	}
	if err := t.waitWarm(c.ctx); err != nil {
		return err
	}
	var start time.Time
	sess, err := c.m.dial(c.ctx, &c.entry.Server, func(ctx context.Context) error {
		if err := t.wait(ctx); err != nil {
			return err
		}
		start = time.Now()
		c.log.Debug("handshake begins")
		return nil
	})
	t.release()
	if err != nil {
		if se, ok := errors.AsType[*stderrError](err); ok {
			c.mu.Lock()
			c.stderr = func() string { return se.tail }
			c.mu.Unlock()
		}
		return err
	}
	if c.entry.Transport != config.InProcess {
		c.m.history.record(&c.entry, time.Since(start), c.m.opts.Now())
	}
	c.mu.Lock()
	c.stderr = sess.stderr
	c.mu.Unlock()
	list, err := c.listTools(sess)
	if err != nil {
		sess.close()
		return fmt.Errorf("listing its tools: %w", err)
	}
	sess.client.OnNotification(c.onNotification)
	c.mu.Lock()
	c.sess, c.tools, c.failures = sess, list, 0
	c.mu.Unlock()
	c.set(Connected, "")
	return nil
}

// watch waits until the connection is lost (returning why), a reconnect is
// asked for (nil), or the server stops. Remote servers are pinged now and
// then: a network loss or a laptop's sleep breaks their connection without
// a word.
func (c *serverConn) watch() error {
	c.mu.Lock()
	sess := c.sess
	c.mu.Unlock()
	var ping <-chan time.Time
	if c.entry.Transport.Remote() {
		t := time.NewTicker(c.m.opts.PingInterval)
		defer t.Stop()
		ping = t.C
	}
	for {
		select {
		case <-c.ctx.Done():
			return c.ctx.Err()
		case <-c.kick:
			return nil
		case <-sess.lost:
			return fmt.Errorf("the connection was lost: %w", sess.lostErr())
		case <-ping:
			if err := c.ping(sess); err != nil {
				return err
			}
		}
	}
}

// ping reports a connection that no longer works. A server that answers
// with an error (one that does not know ping) still answers.
func (c *serverConn) ping(sess *session) error {
	ctx, cancel := context.WithTimeout(c.ctx, c.m.opts.RequestTimeout)
	defer cancel()
	var err error
	if sess.modern {
		// 2026-07-28 has no ping (mcp-go's Ping does nothing there);
		// server/discover is the cheapest request every such server answers.
		_, err = sess.client.Discover(ctx, mcp.DiscoverRequest{})
	} else {
		err = sess.client.Ping(ctx)
	}
	var terr *mcptransport.Error
	if err == nil || c.ctx.Err() != nil || !errors.As(err, &terr) {
		return nil
	}
	if transport.IsSessionExpired(err) {
		return fmt.Errorf("the server restarted and forgot this connection")
	}
	return fmt.Errorf("the server stopped answering: %w", err)
}

func (c *serverConn) endSession() {
	c.mu.Lock()
	sess := c.sess
	c.sess, c.tools = nil, nil
	c.mu.Unlock()
	if sess != nil {
		if err := sess.close(); err != nil {
			c.log.Debug("closing", "err", err)
		}
	}
}

// reconnect asks the loop to reconnect now and waits until the server is
// connected again, or fails, or ctx ends.
func (c *serverConn) reconnect(ctx context.Context) (*session, error) {
	c.mu.Lock()
	old := c.sess
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default: // a reconnect is already asked for
	}
	for {
		c.mu.Lock()
		sess, st, changed := c.sess, c.status, c.changed
		c.mu.Unlock()
		switch {
		case st.State == Connected && sess != nil && sess != old:
			return sess, nil
		case st.State == Failed || st.State == NeedsAuth || st.State == Disabled:
			return nil, fmt.Errorf("reconnecting: %s", st.Err)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.done:
			return nil, errors.New("the server was stopped")
		}
	}
}

// live returns the connection if the server is connected, or an error that
// says in plain words why it is not.
func (c *serverConn) live() (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status.State == Connected && c.sess != nil {
		return c.sess, nil
	}
	return nil, &NotConnectedError{Server: c.entry.Name, Status: c.status}
}

// NotConnectedError says that a call could not be made because its server
// is not connected, and why.
type NotConnectedError struct {
	Server string
	Status Status
}

func (e *NotConnectedError) Error() string {
	what := map[State]string{
		Pending:          "is still connecting",
		AwaitingApproval: "waits for your approval",
		Failed:           "failed",
		NeedsAuth:        "needs you to sign in",
		Disabled:         "is turned off",
	}[e.Status.State]
	if what == "" {
		what = "is " + e.Status.State.String()
	}
	if e.Status.Err != "" {
		return fmt.Sprintf("%s %s: %s", e.Server, what, e.Status.Err)
	}
	return e.Server + " " + what
}

// IsNeedsAuth reports whether err means the person must sign in first.
func IsNeedsAuth(err error) bool {
	var nc *NotConnectedError
	if errors.As(err, &nc) && nc.Status.State == NeedsAuth {
		return true
	}
	return transport.IsAuthError(err)
}

// session is one live connection to a server.
type session struct {
	client  *client.Client
	lost    <-chan struct{} // closed when the connection is gone
	lostErr func() error
	// modern is a connection in revision 2026-07-28 or later, http one
	// over streamable HTTP; caps and info are what the client declared.
	modern, http bool
	caps         mcp.ClientCapabilities
	info         mcp.Implementation
	stderr       func() string // nil for servers without a process
	pid          int           // the child's process id, for stdio servers
	close        func() error
	// direct is a session whose tools/call goes straight through its
	// transport (direct.go).
	direct bool
}
