package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// backend is what the commands need from mcptray: the running instance
// over its control endpoint, or a service run in this process when none is
// running. Both give the same answers, so a command prints the same either
// way.
type backend interface {
	Snapshot(ctx context.Context) (service.Snapshot, error)
	Settle(ctx context.Context) (service.Snapshot, error)
	Approve(ctx context.Context, name string) (service.Server, error)
	Deny(ctx context.Context, name string) (service.Server, error)
	SignIn(ctx context.Context, name string, opts service.SignInOptions) error
	SignOut(ctx context.Context, name string) error
	SignInIdP(ctx context.Context) error
	SignOutIdP(ctx context.Context) error
	Add(ctx context.Context, req service.AddRequest) (service.AddResult, error)
	Remove(ctx context.Context, name string) (service.RemoveResult, error)
	Tools(ctx context.Context, target string) ([]tools.Tool, error)
	Call(ctx context.Context, req service.CallRequest) (*mcp.CallToolResult, error)
	secretBackend
}

var (
	_ backend = (*control.Client)(nil)
	_ backend = (*service.Service)(nil)
)

// connectNone and connectAll say which servers an in-process service
// starts: none (commands that read or edit the config) or all (status).
var (
	connectNone = []string{}
	connectAll  []string
)

// backend returns the running mcptray, or starts one in this process that
// connects only the servers in only (nil: all); close ends it.
func (c *cmdContext) backend(ctx context.Context, only []string) (b backend, close func(), err error) {
	if c.open != nil { // withSignIn holds one for every attempt
		return c.open, func() {}, nil
	}
	cl, err := control.Dial(ctx, c.paths)
	if err == nil {
		c.logger().Debug("using the running mcptray", "pid", cl.PID)
		return cl, cl.Close, nil
	}
	if !errors.Is(err, control.ErrNotRunning) {
		return nil, nil, err
	}
	svc, err := c.newService(only, false)
	if err != nil {
		return nil, nil, err
	}
	if err := svc.Start(ctx); err != nil {
		svc.Close()
		return nil, nil, err
	}
	return svc, func() { svc.Close() }, nil
}

// newService returns the service this process runs: for one command
// (follow false) or for mcptray serve (follow true).
func (c *cmdContext) newService(only []string, follow bool) (*service.Service, error) {
	if c.Store == nil {
		return nil, errors.New("no keychain was given to the command line")
	}
	opts := service.Options{
		Paths:  c.paths,
		Lookup: c.Lookup,
		Store:  c.Store,
		Logger: c.logger(),
		Elicit: c.elicit,
		Now:    c.Now,
		Follow: follow,
		Only:   only,
	}
	// MCPTRAY_BROWSER names a program that is given the sign-in URL
	// instead of the system browser (tests use `curl -sL -o /dev/null`);
	// it is run directly, never through a shell.
	browser := oauth.SystemBrowser()
	if v, _ := c.Lookup("MCPTRAY_BROWSER"); strings.TrimSpace(v) != "" {
		browser = oauth.CommandBrowser(oauth.ParseBrowserCommand(v))
	}
	// Say so only when the browser really opens: a saved sign-in may do
	// without it.
	opts.Browser = func(ctx context.Context, u string) error {
		fmt.Fprintf(c.Stderr, "Opening your browser to sign in to %s…\n", sanitize.Line(displayName(c.signingIn)))
		return browser(ctx, u)
	}
	// The https URL of a Client ID Metadata Document to use as the client
	// id with servers that support them.
	if v, _ := c.Lookup("MCPTRAY_CLIENT_METADATA_URL"); v != "" {
		opts.ClientMetadataURL = v
	}
	return service.New(opts)
}

// logger writes everything to stderr with MCPTRAY_DEBUG=1, and nothing
// otherwise: a command prints its output and, when it fails, one line
// saying why; mcptray's inner workings are not the person's business unless
// they ask.
func (c *cmdContext) logger() *slog.Logger {
	if c.log != nil {
		return c.log
	}
	if v, _ := c.Lookup("MCPTRAY_DEBUG"); v == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
