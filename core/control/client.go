package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// Client speaks to the running mcptray. Its methods are those of
// core/service's Service, so a front end can hold either.
type Client struct {
	hc  *http.Client
	PID int // the running instance's process id

	client  string // what it says it is (Window, CommandLine), or ""
	key     string // the control key, "" when it could not be read
	keyPath string
	noKey   string // why the key could not be read
}

// Dial connects to the running mcptray for paths, or returns ErrNotRunning.
// It is DialAs for a client that does not say what it is.
func Dial(ctx context.Context, p config.Paths) (*Client, error) { return DialAs(ctx, p, "") }

// DialAs connects to the running mcptray for paths, or returns
// ErrNotRunning, as client (Window, CommandLine): the activity record
// names it with the decisions it asks for. It reads the control key that
// mcptray keeps at KeyPath; a program that cannot read it (one in a
// sandbox) reaches only what needs none, and the rest answer a
// RefusedError.
func DialAs(ctx context.Context, p config.Paths, client string) (*Client, error) {
	c, err := dial(ctx, p)
	if err != nil {
		return nil, err
	}
	c.Close()
	path := SocketPath(p)
	cl := &Client{hc: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialSocket(ctx, path)
		},
		DisableCompression: true,
	}}, client: client, keyPath: KeyPath(p)}
	var h hello
	if err := cl.do(ctx, http.MethodGet, "hello", nil, &h); err != nil {
		return nil, fmt.Errorf("the running mcptray did not answer: %w", err)
	}
	cl.PID = h.PID
	// Read once the instance answers: it wrote its key before it listened,
	// so this is its key and not a stopped one's.
	if cl.key, err = readKey(p); err != nil {
		cl.noKey = err.Error()
	}
	return cl, nil
}

// GatewayStatus says how the running mcptray's gateway is doing.
func (c *Client) GatewayStatus(ctx context.Context) (gateway.Status, error) {
	var st gateway.Status
	err := c.do(ctx, http.MethodGet, "gateway", nil, &st)
	return st, err
}

// Close lets the client's idle connections go.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// do sends one request and decodes its answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := c.request(ctx, method, path, body)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("reaching the running mcptray: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c.answerError(resp)
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxBody))
	if out == nil {
		return nil
	}
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("reading the running mcptray's answer: %w", err)
	}
	return nil
}

// request is a request for /v1/PATH with the control key and what the
// client says it is.
func (c *Client) request(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://mcptray/v1/"+path, body)
	if err != nil {
		return nil, err
	}
	if c.key != "" {
		req.Header.Set("Authorization", keyScheme+c.key)
	}
	if c.client != "" {
		req.Header.Set(clientHeader, c.client)
	}
	return req, nil
}

// ErrOlder says that the running mcptray does not know the request: it is
// an older mcptray than the one asking, still running after an upgrade.
var ErrOlder = errors.New("the running mcptray is older than this one and does not know this request")

// answerError is the error a refusing answer carries, in the running
// mcptray's words when it gave some.
func (c *Client) answerError(resp *http.Response) error {
	err := answerError(resp)
	var serr *service.Error
	if why := resp.Header.Get(refusedHeader); why != "" && errors.As(err, &serr) {
		return &RefusedError{Msg: serr.Msg, Sandboxed: why == refusedSandbox, KeyPath: c.keyPath, NoKey: c.noKey}
	}
	return err
}

func answerError(resp *http.Response) error {
	var e service.Error
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&e); err != nil || e.Msg == "" {
		if resp.StatusCode == http.StatusNotFound {
			return ErrOlder
		}
		return fmt.Errorf("the running mcptray answered %s", resp.Status)
	}
	return &e
}

// Snapshot returns everything the running mcptray shows, now.
func (c *Client) Snapshot(ctx context.Context) (service.Snapshot, error) {
	var s service.Snapshot
	err := c.do(ctx, http.MethodGet, "snapshot", nil, &s)
	return s, err
}

// Settle waits until no server is still connecting, then returns a
// Snapshot.
func (c *Client) Settle(ctx context.Context) (service.Snapshot, error) {
	var s service.Snapshot
	err := c.do(ctx, http.MethodPost, "settle", struct{}{}, &s)
	return s, err
}

// Subscribe returns a channel that receives a notice whenever the running
// mcptray's Snapshot may have changed, the first at once. It closes when
// ctx ends or the running mcptray goes away.
func (c *Client) Subscribe(ctx context.Context) (<-chan struct{}, error) {
	return follow[struct{}](ctx, c, "events", 1, true)
}

// Approve lets a project server run exactly what it runs now.
func (c *Client) Approve(ctx context.Context, name string) (service.Server, error) {
	var s service.Server
	err := c.do(ctx, http.MethodPost, "approve", nameRequest{name}, &s)
	return s, err
}

// Deny keeps a project server from running what it runs now.
func (c *Client) Deny(ctx context.Context, name string) (service.Server, error) {
	var s service.Server
	err := c.do(ctx, http.MethodPost, "deny", nameRequest{name}, &s)
	return s, err
}

// Enable turns a server on again.
func (c *Client) Enable(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodPost, "enable", nameRequest{name}, nil)
}

// Disable turns a server off.
func (c *Client) Disable(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodPost, "disable", nameRequest{name}, nil)
}

// Retry connects a server again at once.
func (c *Client) Retry(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodPost, "retry", nameRequest{name}, nil)
}

// SignIn signs in to a remote server; cancel ctx to give up.
func (c *Client) SignIn(ctx context.Context, name string, opts service.SignInOptions) error {
	return c.do(ctx, http.MethodPost, "sign-in", signInRequest{Name: name, Options: opts}, nil)
}

// SignOut forgets a remote server's sign-in.
func (c *Client) SignOut(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodPost, "sign-out", nameRequest{name}, nil)
}

// SignInIdP signs in to the identity provider; cancel ctx to give up.
func (c *Client) SignInIdP(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "sign-in-idp", struct{}{}, nil)
}

// SignOutIdP forgets the sign-in at the identity provider.
func (c *Client) SignOutIdP(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "sign-out-idp", struct{}{}, nil)
}

// Add writes a new server into mcptray's own config.
func (c *Client) Add(ctx context.Context, req service.AddRequest) (service.AddResult, error) {
	var r service.AddResult
	err := c.do(ctx, http.MethodPost, "add", req, &r)
	return r, err
}

// InstallBundle installs a server from an MCP Bundle file.
func (c *Client) InstallBundle(ctx context.Context, req service.BundleRequest) (service.BundleResult, error) {
	var r service.BundleResult
	err := c.do(ctx, http.MethodPost, "install-bundle", req, &r)
	return r, err
}

// Remove takes a server out of mcptray's own config.
func (c *Client) Remove(ctx context.Context, name string) (service.RemoveResult, error) {
	var r service.RemoveResult
	err := c.do(ctx, http.MethodPost, "remove", nameRequest{name}, &r)
	return r, err
}

// PauseAll stops every server until ResumeAll.
func (c *Client) PauseAll(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "pause", struct{}{}, nil)
}

// ResumeAll starts every server again.
func (c *Client) ResumeAll(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "resume", struct{}{}, nil)
}

// Tools returns a server's tools.
func (c *Client) Tools(ctx context.Context, target string) ([]tools.Tool, error) {
	var r toolsResponse
	err := c.do(ctx, http.MethodPost, "tools", nameRequest{target}, &r)
	return r.Tools, err
}

// Call calls a tool.
func (c *Client) Call(ctx context.Context, req service.CallRequest) (*mcp.CallToolResult, error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, "call", req, &raw); err != nil {
		return nil, err
	}
	return mcp.ParseCallToolResult(&raw)
}

// Quit asks the running mcptray to stop, as its tray's Quit would; it
// returns once the request is taken, before the servers have stopped.
func (c *Client) Quit(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "quit", struct{}{}, nil)
}

// OpenWindow asks the running mcptray to open its window (at server, when
// not ""), or bring it forward.
func (c *Client) OpenWindow(ctx context.Context, server string) error {
	return c.do(ctx, http.MethodPost, "window", WindowRequest{Server: server}, nil)
}

// OpenBundle asks the running mcptray to open its window at the install
// dialog of the MCP Bundle file, given as a full path: the running
// mcptray reads it.
func (c *Client) OpenBundle(ctx context.Context, file string) error {
	return c.do(ctx, http.MethodPost, "window", WindowRequest{Bundle: file}, nil)
}
