package conn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/jsonwire"
	"github.com/mcptray/mcptray/core/tools"
	"github.com/mcptray/mcptray/core/transport"
)

// CallTool calls tool on server with args (a JSON object, or empty) and
// returns its result with every text sanitised. Its errors are in plain
// words ("cancelled", not mcp-go's "transport error: context canceled").
//
// A Caller in ctx (WithCaller) gets the server's progress for the call and
// its questions during it.
//
// The call is bounded by ctx and by the tool-call timeout. When the server
// has forgotten the session (it restarted: HTTP 404 or JSON-RPC -32001), the
// connection is made anew and the call is tried once more.
func (m *Manager) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	ch := make(chan outcome, 1)
	m.callTool(ctx, server, tool, args, false, func(res *mcp.CallToolResult, err error) { ch <- outcome{res, err} })
	o := <-ch
	return o.res, o.err
}

// CallToolAsync is CallTool without the wait: it returns once the call is
// on its way, and done gets what CallTool would return, once. On a stdio
// server the answer comes on the goroutine that reads the server's output,
// so done must not wait on anything: hand slow work to a goroutine of its
// own. Why stdio calls go this way: the goroutine that reads the answer
// goes on to pass it to the app, rather than wake a waiting goroutine to
// do it, which cost the gateway's stdio face a fifth to a third of what it
// added to a call (bench/README.md).
func (m *Manager) CallToolAsync(ctx context.Context, server, tool string, args json.RawMessage, done func(*mcp.CallToolResult, error)) {
	m.callTool(ctx, server, tool, args, true, done)
}

// callTool starts a call whose result goes to done. A stdio server's direct
// call is sent without waiting; any other call waits on a goroutine of its
// own when async, else on the caller's. The rare ways after a failure
// (reconnecting, waiting to learn why a server ended) always run on a
// goroutine of their own.
func (m *Manager) callTool(ctx context.Context, server, tool string, args json.RawMessage, async bool, done func(*mcp.CallToolResult, error)) {
	c, err := m.conn(server)
	if err != nil {
		done(nil, err)
		return
	}
	arguments, err := objectArguments(args)
	if err != nil {
		done(nil, err)
		return
	}
	ctx, cancel := m.callBound(ctx)
	sess, err := c.live()
	if err != nil {
		cancel()
		done(nil, err)
		return
	}
	inflight, end := m.calls.begin(server, callerOf(ctx))
	finish := func(res *mcp.CallToolResult, err error) {
		if err == nil && tools.SanitizeResult(res) {
			tools.NoteHidden(ctx)
		}
		end()
		done(res, err)
		cancel() // after the answer: it is on the caller's way
	}
	answered := func(res *mcp.CallToolResult, err error) {
		if err == nil {
			finish(res, nil)
			return
		}
		go func() { finish(c.afterFailure(ctx, sess, server, tool, arguments, inflight.token, err)) }()
	}
	if tr, ok := sess.client.GetTransport().(*transport.Stdio); ok && sess.direct {
		sess.callDirectAsync(ctx, tr, tool, arguments, inflight.token, func(res *mcp.CallToolResult, err error) {
			if err == nil && res.NeedsInput() {
				// See callTool: mcp-go's client drives the round trip.
				go func() { answered(c.callClient(ctx, sess, tool, arguments, inflight.token)) }()
				return
			}
			answered(res, err)
		})
		return
	}
	if async {
		go func() { answered(c.callTool(ctx, sess, tool, arguments, inflight.token)) }()
		return
	}
	answered(c.callTool(ctx, sess, tool, arguments, inflight.token))
}

// callBound is ctx bounded by ToolCallTimeout: ctx itself when it ends by
// then anyway (the gateway gives each call such a context of its own, so
// that a call makes one context and one timer, not two), else a context
// that does, which the returned function ends.
func (m *Manager) callBound(ctx context.Context) (context.Context, context.CancelFunc) {
	if end, ok := ctx.Deadline(); ok && time.Until(end) <= m.opts.ToolCallTimeout {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, m.opts.ToolCallTimeout)
}

// afterFailure is what follows a call that failed with err: once more on a
// new connection when the server forgot the session, else the error in
// plain words, after the server's connection is looked at.
func (c *serverConn) afterFailure(ctx context.Context, sess *session, server, tool string, arguments json.RawMessage, token string, err error) (*mcp.CallToolResult, error) {
	if transport.IsSessionExpired(err) {
		c.log.Info("session expired; reconnecting and trying once more")
		if sess, err = c.reconnect(ctx); err != nil {
			return nil, fmt.Errorf("%s restarted and reconnecting failed: %w", server, err)
		}
		res, err2 := c.callTool(ctx, sess, tool, arguments, token)
		if err2 == nil {
			return res, nil
		}
		err = err2
	}
	c.noticeFailure(sess, err)
	return nil, fmt.Errorf("calling %s on %s: %w", tool, server, readable(c.explain(ctx, sess, err)))
}

// callTool makes one tools/call on sess: straight through its transport
// when it can (direct.go), else through mcp-go's client, which drives the
// 2026-07-28 revision's multi round-trip and mirrors the arguments into
// headers. The arguments are passed on as they came, not decoded.
func (c *serverConn) callTool(ctx context.Context, sess *session, tool string, arguments json.RawMessage, token string) (*mcp.CallToolResult, error) {
	if sess.direct {
		res, err := sess.callDirect(ctx, tool, arguments, token)
		if err != nil || !res.NeedsInput() {
			return res, err
		}
		// A result asking for input belongs to the multi round-trip, which
		// no earlier revision has; should a server send one anyway, the
		// call is asked again through mcp-go's client, which drives it.
	}
	return c.callClient(ctx, sess, tool, arguments, token)
}

// callClient makes one tools/call on sess through mcp-go's client.
func (c *serverConn) callClient(ctx context.Context, sess *session, tool string, arguments json.RawMessage, token string) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.RawArguments = arguments
	if token != "" {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	req.Header = sess.paramHeaders(c.tool(tool), arguments)
	return sess.client.CallTool(ctx, req)
}

// objectArguments checks that args is a JSON object and returns it, or {}
// for none (empty or null): servers validate the arguments as an object.
// They are checked, not decoded, as they pass through unchanged.
func objectArguments(args json.RawMessage) (json.RawMessage, error) {
	args = bytes.TrimSpace(args)
	switch {
	case len(args) == 0 || string(args) == "null":
		return json.RawMessage(`{}`), nil
	case !jsonwire.Valid(args):
		return nil, errors.New("the arguments must be a JSON object: they are not valid JSON")
	case args[0] != '{':
		return nil, errors.New("the arguments must be a JSON object, not a list or a single value")
	}
	return args, nil
}

// explain adds why a stdio server's connection broke under a call ("exited
// with status 3"), which says more than mcp-go's "transport closed". The
// exit is noticed a moment after the pipe closes, so it is waited for,
// briefly; a call its context ended has nothing to wait for.
func (c *serverConn) explain(ctx context.Context, sess *session, err error) error {
	var terr *mcptransport.Error
	if c.entry.Transport != config.Stdio || !errors.As(err, &terr) || ctx.Err() != nil {
		return err
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-sess.lost:
		if why := sess.lostErr(); why != nil {
			return fmt.Errorf("the server %v: %w", why, err)
		}
	case <-t.C:
	}
	return err
}

// noticeFailure reconnects a server whose connection broke under a call: a
// network error on a remote server says more than the transport noticed.
// Errors the server answered with (JSON-RPC errors) leave it alone.
func (c *serverConn) noticeFailure(sess *session, err error) {
	var terr *mcptransport.Error
	if !errors.As(err, &terr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	if transport.IsAuthError(err) {
		return // the loop learns of it on reconnect; a token refresh may fix it
	}
	c.mu.Lock()
	current := c.sess == sess
	c.mu.Unlock()
	if current && c.entry.Transport.Remote() {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
}

// Tools returns the tools of server while it is connected.
func (m *Manager) Tools(server string) ([]tools.Tool, error) {
	snap := m.Report()
	info, ok := snap.Find(server)
	if !ok {
		return nil, fmt.Errorf("there is no server called %q", server)
	}
	if info.Status.State != Connected {
		return nil, &NotConnectedError{Server: server, Status: info.Status}
	}
	return info.Tools, nil
}

// WaitSettled waits until no server is pending (each is connected, failed,
// needs sign-in, awaits approval or is disabled), or ctx ends; its error then
// says which servers were still starting ("cancelled" if ctx was), and
// errors.Is finds ctx's error.
func (m *Manager) WaitSettled(ctx context.Context) error {
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the subscription
	events := m.Subscribe(ctx)
	for {
		settled := true
		for _, s := range m.Report().Servers {
			if s.Status.State == Pending {
				settled = false
				break
			}
		}
		if settled {
			return nil
		}
		select {
		case <-ctx.Done():
			return notSettled(ctx, start, m.Report())
		case _, ok := <-events:
			if !ok {
				return ErrClosed
			}
		}
	}
}

// Retry asks a server to connect again now, without waiting for its
// backoff or its needs-auth time: after the person signed in, or pressed
// "Try again".
func (m *Manager) Retry(name string) error {
	c, err := m.conn(name)
	if err != nil {
		return err
	}
	select {
	case c.kick <- struct{}{}:
	default: // already asked
	}
	return nil
}

// tool returns the listed tool called name, or nil.
func (c *serverConn) tool(name string) *tools.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.tools {
		if c.tools[i].Name == name {
			t := c.tools[i]
			return &t
		}
	}
	return nil
}
