package service

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service/signin"
	"github.com/mcptray/mcptray/core/tools"
	"github.com/mcptray/mcptray/core/transport"
)

// settleWait bounds how long a command waits for a server to connect: a
// little more than the connect timeout, so that a slow server reports its
// own timeout rather than being cut short.
const settleWait = conn.DefaultConnectTimeout + 5*time.Second

// Tools returns a server's tools: a configured server by name (waiting for
// it to connect if it is connecting), or any remote server by URL.
func (s *Service) Tools(ctx context.Context, target string) ([]tools.Tool, error) {
	var list []tools.Tool
	err := s.withServer(ctx, target, func(m *conn.Manager, name string) error {
		var err error
		list, err = m.Tools(name)
		return err
	})
	return list, err
}

// CallRequest is one tool call: the server (a name or a URL), the tool's
// name as the server spells it, and its arguments as a JSON object.
type CallRequest struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Flow, set by the gateway, says the calling app's session had read
	// the person's data and content someone else wrote (flows.go).
	Flow *Flow `json:"-"`
}

// Call calls a tool and returns its result with every text sanitised. A
// result with IsError set is a result, not an error.
func (s *Service) Call(ctx context.Context, req CallRequest) (*mcp.CallToolResult, error) {
	var res *mcp.CallToolResult
	err := s.withServer(ctx, req.Server, func(m *conn.Manager, name string) error {
		if req.Flow != nil {
			defer s.flows.start(name, req.Flow)()
		}
		var err error
		res, err = m.CallTool(ctx, name, req.Tool, req.Arguments)
		return err
	})
	return res, err
}

// CallAsync is Call without the wait: done gets what Call would return,
// once, perhaps on the goroutine that reads a stdio server's answers, so
// done must not wait on anything (see conn.Manager.CallToolAsync). A
// configured server that is connected is called without a goroutine of
// its own; anything else (waiting for a server to connect, a server by URL)
// waits on one.
func (s *Service) CallAsync(ctx context.Context, req CallRequest, done func(*mcp.CallToolResult, error)) {
	if name, ok := s.connected(req.Server); ok {
		if req.Flow != nil {
			done = flowDone(s.flows.start(name, req.Flow), done)
		}
		s.conns.CallToolAsync(ctx, name, req.Tool, req.Arguments, func(res *mcp.CallToolResult, err error) {
			done(res, wrapError(err))
		})
		return
	}
	go func() { done(s.Call(ctx, req)) }()
}

// connected returns the name of the configured server target names when
// it is connected now, so that a call to it needs no waiting.
func (s *Service) connected(target string) (string, bool) {
	if s.checkOpen() != nil {
		return "", false
	}
	if _, ok := signin.URLServer(target); ok {
		return "", false
	}
	name, err := s.configuredName(target)
	if err != nil {
		return "", false
	}
	st, ok := s.conns.Status(name)
	return name, ok && st.State == conn.Connected
}

// configuredName is the name of the configured server target names (the
// built-in one included), or why there is none.
func (s *Service) configuredName(target string) (string, error) {
	if target == builtinName {
		return target, nil
	}
	e, err := s.find(s.current(), target)
	if err != nil {
		return "", err
	}
	return e.Name, nil
}

// withServer runs fn with the connected server that target names: a
// configured one in the service's manager, or one reached by URL in a
// manager of its own that is closed afterwards.
func (s *Service) withServer(ctx context.Context, target string, fn func(m *conn.Manager, name string) error) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if sv, ok := signin.URLServer(target); ok {
		return s.withURL(ctx, sv, fn)
	}
	name, err := s.configuredName(target)
	if err != nil {
		return err
	}
	if err := s.waitConnected(ctx, s.conns, name); err != nil {
		return err
	}
	return wrapError(fn(s.conns, name))
}

// withURL connects to a server that is not configured, runs fn, and
// disconnects. Its sign-in challenge is kept for SignIn.
func (s *Service) withURL(ctx context.Context, sv *config.Server, fn func(m *conn.Manager, name string) error) error {
	m := s.newConns(s.log.With("url", sanitize.Line(sv.URL)))
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return conn.ErrClosed
	}
	s.adhoc[m] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.adhoc, m)
		s.mu.Unlock()
		m.Close()
	}()
	set := &config.Set{Servers: []config.Entry{{Server: *sv, Signature: config.Signature(sv), Approval: config.NotNeeded}}}
	if err := m.Apply(set); err != nil {
		return wrapError(err)
	}
	err := s.waitConnected(ctx, m, sv.Name)
	if err == nil {
		err = fn(m, sv.Name)
	}
	if conn.IsNeedsAuth(err) {
		var ch *transport.AuthError
		if !errors.As(err, &ch) {
			ch, _ = m.AuthChallenge(sv.Name)
		}
		s.signins.SetChallenge(sv.URL, ch)
	}
	return wrapError(err)
}

// waitConnected waits until the server has settled, and says in plain words
// why when it is not connected.
func (s *Service) waitConnected(ctx context.Context, m *conn.Manager, name string) error {
	// The usual case, a connected server, costs one look and no
	// subscription: it is on every tool call's path.
	if st, ok := m.Status(name); ok && st.State == conn.Connected {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	events := m.Subscribe(wctx)
	for {
		st, ok := m.Status(name)
		info := conn.ServerInfo{Status: st}
		switch {
		case !ok:
			if s.isPaused() {
				return newError(Other, "mcptray is paused; resume it to use %s", sanitize.Line(name))
			}
			return newError(Other, "%s is not running", sanitize.Line(name))
		case info.Status.State == conn.Connected:
			return nil
		case info.Status.State != conn.Pending:
			return wrapError(&conn.NotConnectedError{Server: name, Status: info.Status})
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return newError(Other, "%s did not finish connecting within %s", sanitize.Line(name), settleWait)
		case _, ok := <-events:
			if !ok {
				return conn.ErrClosed
			}
		}
	}
}

func (s *Service) isPaused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// Resources lists a connected server's resources. Servers that have none
// may answer with an error.
func (s *Service) Resources(ctx context.Context, server string) ([]mcp.Resource, error) {
	var out []mcp.Resource
	err := s.withServer(ctx, server, func(m *conn.Manager, name string) error {
		var err error
		out, err = m.Resources(ctx, name)
		return err
	})
	return out, err
}

// ReadResource reads one of a server's resources.
func (s *Service) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	var out *mcp.ReadResourceResult
	err := s.withServer(ctx, server, func(m *conn.Manager, name string) error {
		var err error
		out, err = m.ReadResource(ctx, name, uri)
		return err
	})
	return out, err
}

// Prompts lists a connected server's prompts. Servers that have none may
// answer with an error. A configured server's list is told to the pins'
// policy, as its tools are (pins.go): what changed in it is held until
// the person accepts it, and OfferablePrompts says which may be offered.
func (s *Service) Prompts(ctx context.Context, server string) ([]mcp.Prompt, error) {
	var out []mcp.Prompt
	err := s.withServer(ctx, server, func(m *conn.Manager, name string) error {
		var err error
		out, err = m.Prompts(ctx, name)
		switch {
		case m != s.conns:
		case err == nil:
			s.seePrompts(name, out)
		case ctx.Err() == nil:
			s.seePrompts(name, nil) // a server without prompts says so with an error
		}
		return err
	})
	return out, err
}

// GetPrompt gets one of a server's prompts with its arguments.
func (s *Service) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	var out *mcp.GetPromptResult
	err := s.withServer(ctx, server, func(m *conn.Manager, n string) error {
		var err error
		out, err = m.GetPrompt(ctx, n, name, args)
		return err
	})
	return out, err
}
